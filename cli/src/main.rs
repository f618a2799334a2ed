//! `toolsmith`: tools for any MCP server, whatever it is written in.
//!
//! `toolsmith audit -- COMMAND [ARGS...]` starts a stdio server, `toolsmith audit URL`
//! connects to a Streamable HTTP one; either way it lists the tools (every page) and reports
//! what a directory review would reject. It never calls a tool.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod connect;

#[derive(Parser, Debug)]
#[command(
    name = "toolsmith",
    version,
    about = "Tools for any MCP server: `toolsmith audit` checks its tools as a directory review would."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Audit a server's tools: hints, names, descriptions, schemas, icons. Only initializes
    /// and lists tools: never calls one.
    #[command(
        after_help = "Examples:\n  toolsmith audit -- npx -y @modelcontextprotocol/server-memory\n  toolsmith audit https://mcp.example.com/mcp --header 'Authorization: Bearer TOKEN'\n  toolsmith audit --sarif --sarif-file server.py -- python server.py > audit.sarif"
    )]
    Audit(Box<connect::AuditArgs>),
}

#[tokio::main]
async fn main() -> ExitCode {
    // Logs (rmcp's included) go to stderr, warnings and worse unless TOOLSMITH_LOG says.
    let level = std::env::var("TOOLSMITH_LOG")
        .ok()
        .and_then(|l| l.parse::<tracing::Level>().ok())
        .unwrap_or(tracing::Level::WARN);
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .init();
    let cli = Cli::parse();
    match cli.command {
        Command::Audit(args) => ExitCode::from(connect::audit(*args).await),
    }
}

//! `toolsmith`: tools for any MCP server, whatever it is written in.
//!
//! `toolsmith audit -- COMMAND [ARGS...]` starts a stdio server, `toolsmith audit URL`
//! connects to a Streamable HTTP one; either way it lists the tools (every page) and reports
//! what a directory review would reject. It never calls a tool.
//!
//! `toolsmith gateway --config FILE [SERVER ARGS]` serves other servers' tools through
//! toolsmith's hint governance (see `toolsmith-gateway`).
//!
//! `toolsmith bundle -- SERVER [ARGS...]` makes an MCP Bundle (`.mcpb`) of a stdio server
//! that is one native binary, and its `server.json` for the MCP registry.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bundle;
mod connect;
mod gateway;

#[derive(Parser, Debug)]
#[command(
    name = "toolsmith",
    version,
    about = "Tools for any MCP server: `toolsmith audit` checks its tools as a directory review would; `toolsmith gateway` serves them through toolsmith's hint governance."
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
    /// Serve other MCP servers' tools, and HTTP APIs' operations (by their OpenAPI
    /// documents), through toolsmith: their hints govern them (read-only and closed-world
    /// modes, scopes from hints, confirmation of destructive calls, rate limits, metrics),
    /// each upstream's tools under its prefix.
    #[command(after_help = "Examples:
  toolsmith gateway --config claude_desktop_config.json
  toolsmith gateway --config gateway.toml serve --read-only --confirm destructive
  toolsmith gateway --config gateway.toml serve --http 127.0.0.1:8080
  toolsmith gateway --config gateway.toml tools

An HTTP API as an upstream, in gateway.toml:
  [servers.notes]
  openapi = \"http://127.0.0.1:8000/openapi.json\"   # or a file: \"notes.yaml\"
  credentials = { APIKeyHeader = \"${NOTES_API_KEY}\" }")]
    Gateway(Box<gateway::GatewayArgs>),
    /// Make an MCP Bundle (.mcpb) of a stdio server that is one native binary, which Claude
    /// Desktop installs in one click, and the server.json the MCP registry lists it by. (A
    /// toolsmith server makes its own: `SERVER bundle`.)
    #[command(
        after_help = "Examples:\n  toolsmith bundle --author 'Ada <ada@example.com>' -- ./target/release/my-server --stdio\n  toolsmith bundle --repository https://github.com/ada/my-server --secret-setting 'API_KEY=the service key' -- my-server"
    )]
    Bundle(Box<bundle::BundleArgs>),
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
    // HTTPS for `audit URL` and the gateway's upstreams (rustls, ring).
    toolsmith_gateway::install_crypto_provider();
    let cli = Cli::parse();
    match cli.command {
        Command::Audit(args) => ExitCode::from(connect::audit(*args).await),
        Command::Gateway(args) => gateway::gateway(*args).await,
        Command::Bundle(args) => ExitCode::from(bundle::bundle(*args).await),
    }
}

//! `toolsmith gateway`: the upstreams a configuration file names, started and mounted into
//! one toolsmith server (each under its prefix), then the command line any toolsmith server
//! takes: serving over stdio (the default) or Streamable HTTP with every serving flag
//! (`serve --read-only`, `--confirm destructive`, `--http ADDR`, authorization, limits,
//! metrics), or `tools`, `schema`, `call`, `check`, `audit` on the upstreams' tools.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use toolsmith::{Registry, Server};
use toolsmith_gateway::{Config, Mounted};

/// `toolsmith gateway`'s arguments.
#[derive(clap::Args, Debug)]
pub struct GatewayArgs {
    /// The upstreams: Claude Desktop's claude_desktop_config.json as it is (`mcpServers`),
    /// or TOML in the same shape (`[servers.NAME]`, a file ending in .toml).
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// Leave out every tool that does not state all four hints (readOnlyHint,
    /// destructiveHint unless read-only, idempotentHint, openWorldHint), instead of serving it
    /// with the specification's cautious defaults. Each is named in a warning.
    #[arg(long)]
    strict_hints: bool,
    /// What to do with them, as any toolsmith server takes it (none: serve over stdio), e.g.
    /// `serve --read-only`, `serve --http 127.0.0.1:8080`, `tools`, `check hints.snapshot`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "SERVER ARGS"
    )]
    server: Vec<OsString>,
}

/// Mounts every upstream, then runs the server's command line; the exit status. An upstream
/// that does not start, or two tools with one name, stop it with status 1 (2 for a
/// configuration that cannot be read).
pub async fn gateway(args: GatewayArgs) -> ExitCode {
    let config = match Config::from_path(&args.config) {
        Ok(config) => config,
        Err(why) => {
            eprintln!("{why}");
            return ExitCode::from(2);
        }
    };
    let mut registry = Registry::new();
    let mut mounted: Vec<Mounted> = Vec::new();
    for upstream in config.upstreams() {
        let next = match upstream.strict_hints(args.strict_hints).connect().await {
            Ok(next) => next,
            Err(err) => {
                eprintln!("{err}");
                return ExitCode::FAILURE;
            }
        };
        let merged = next
            .registry()
            .map_err(|err| err.to_string())
            .and_then(|tools| registry.merge(tools).map_err(|err| err.to_string()));
        registry = match merged {
            Ok(merged) => merged,
            Err(why) => {
                eprintln!("{why}: give the upstreams prefixes that keep their names apart");
                return ExitCode::FAILURE;
            }
        };
        mounted.push(next);
    }
    if registry.is_empty() {
        let left_out: usize = mounted.iter().map(|m| m.left_out().len()).sum();
        eprintln!(
            "no upstream tool to serve ({left_out} left out by --strict-hints, each named above): correct the upstreams' hints, or serve without --strict-hints"
        );
        return ExitCode::FAILURE;
    }
    let server =
        Server::with_registry(registry).info("toolsmith-gateway", env!("CARGO_PKG_VERSION"));
    let argv = std::iter::once(OsString::from("toolsmith-gateway")).chain(args.server);
    let status = server.run_with(argv).await;
    // The upstreams run until the server is done.
    drop(mounted);
    status
}

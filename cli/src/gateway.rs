//! `toolsmith gateway`: the upstreams a configuration file names, started and mounted into
//! one toolsmith server (each under its prefix), then the command line any toolsmith server
//! takes: serving over stdio (the default) or Streamable HTTP with every serving flag
//! (`serve --read-only`, `--confirm destructive`, `--http ADDR`, authorization, limits,
//! metrics), or `tools`, `schema`, `call`, `check`, `audit` on the upstreams' tools.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use toolsmith::{Registry, Server};
use toolsmith_gateway::{Config, Mounted, OnChange, Overrides, Pin};

/// `toolsmith gateway`'s arguments.
#[derive(clap::Args, Debug)]
pub struct GatewayArgs {
    /// The upstreams: Claude Desktop's claude_desktop_config.json as it is (`mcpServers`),
    /// or TOML in the same shape (`[servers.NAME]`, a file ending in .toml). An entry is an
    /// MCP server started here (`command`), a remote one (`url`), or an HTTP API by its
    /// OpenAPI document (`openapi = "openapi.yaml"` or its URL: each operation a tool). A
    /// relative path in the file is taken from the file's folder.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// Leave out every tool that does not state all four hints (readOnlyHint,
    /// destructiveHint unless read-only, idempotentHint, openWorldHint), instead of serving it
    /// with the specification's cautious defaults. Each is named in a warning.
    #[arg(long)]
    strict_hints: bool,
    /// Corrections to the upstream tools' hints, titles, tags, scopes and confirmation, by
    /// served name or glob (`[tools."notes_delete_*"]` in TOML, or the same in JSON). A hint
    /// an override states counts as stated for --strict-hints.
    #[arg(long, value_name = "FILE")]
    overrides: Option<PathBuf>,
    /// A snapshot written by `check SNAPSHOT --write` that the upstream tools must still
    /// match: one whose hints, schemas, description or title changed since, or that it does
    /// not list, is refused (or hidden: --on-change hide) and named in a warning. `check`
    /// itself always sees the tools as they are.
    #[arg(long, value_name = "SNAPSHOT")]
    pin: Option<PathBuf>,
    /// What becomes of a tool that changed since the --pin snapshot: `refuse` (listed, every
    /// call refused), `hide` (not listed), or `hold` (refused, and held for review: the
    /// approvals page, `serve --approve page=ADDR`, shows what changed, and Approve pins it
    /// as it is now; or `pin approve NAME` from the command line).
    #[arg(long, value_name = "refuse|hide|hold", default_value = "refuse", value_parser = ["refuse", "hide", "hold"], requires = "pin")]
    on_change: String,
    /// What to do with them, as any toolsmith server takes it (none: serve over stdio), e.g.
    /// `serve --read-only`, `serve --http 127.0.0.1:8080`, `tools`, `check hints.snapshot`;
    /// or, with --pin, `pin approve NAME...`: pin those tools as they are now (the snapshot
    /// file rewritten, each change named).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "SERVER ARGS"
    )]
    server: Vec<OsString>,
}

/// Mounts every upstream, then runs the server's command line; the exit status. An upstream
/// that does not start, two tools with one name, or two upstreams serving one URI (a
/// resource of one that a template of another matches too) stop it with status 1 (2 for a
/// configuration or a pinned snapshot that cannot be read).
pub async fn gateway(args: GatewayArgs) -> ExitCode {
    let config = match Config::from_path(&args.config) {
        Ok(config) => config,
        Err(why) => {
            eprintln!("{why}");
            return ExitCode::from(2);
        }
    };
    let overrides = match args.overrides.as_deref().map(Overrides::from_path) {
        None => Overrides::new(),
        Some(Ok(overrides)) => overrides,
        Some(Err(why)) => {
            eprintln!("{why}");
            return ExitCode::from(2);
        }
    };
    let checking = args.server.first().is_some_and(|word| word == "check");
    // `pin approve NAME...`: the tools as they are now, pinned.
    let approving: Option<Vec<String>> = match args.server.first().and_then(|w| w.to_str()) {
        Some("pin") => match args.server.get(1).and_then(|w| w.to_str()) {
            Some("approve") if args.server.len() > 2 && args.pin.is_some() => Some(
                args.server[2..]
                    .iter()
                    .map(|name| name.to_string_lossy().into_owned())
                    .collect(),
            ),
            _ => {
                eprintln!(
                    "write `pin approve NAME...` after the gateway's flags, with --pin SNAPSHOT: it pins those tools as they are now"
                );
                return ExitCode::from(2);
            }
        },
        _ => None,
    };
    let mut pin = None;
    // For `pin approve`: the snapshot to rewrite, not applied (the tools are seen as they are).
    let mut pin_file: Option<Pin> = None;
    if let Some(path) = args.pin.as_deref().filter(|_| !checking) {
        let on_change = match args.on_change.as_str() {
            "hide" => OnChange::Hide,
            "hold" => OnChange::Hold,
            _ => OnChange::Refuse,
        };
        let review = match on_change {
            OnChange::Hold => format!(
                "an operator reviews it on the approvals page (`serve --approve page=ADDR`), or pins it as it is now with `toolsmith gateway --config {} --pin {} pin approve NAME`",
                args.config.display(),
                path.display()
            ),
            _ => format!(
                "review it with `toolsmith gateway --config {} check {}`, then write the snapshot again with --write",
                args.config.display(),
                path.display()
            ),
        };
        match Pin::from_path(path) {
            Ok(read) if approving.is_some() => pin_file = Some(read),
            Ok(read) => pin = Some(read.on_change(on_change).review(review)),
            Err(why) => {
                eprintln!("{why}");
                return ExitCode::from(2);
            }
        }
    }
    let mut registry = Registry::new();
    let mut mounted: Vec<Mounted> = Vec::new();
    // The sessions each upstream opens as its callers, counted on the gateway's /metrics.
    let series = toolsmith::metrics::Series::new();
    for upstream in config.upstreams() {
        let mut upstream = upstream
            .strict_hints(args.strict_hints)
            .overrides(overrides.clone())
            .metrics(series.clone());
        if let Some(pin) = &pin {
            upstream = upstream.pin(pin.clone());
        }
        let next = match upstream.connect().await {
            Ok(next) => next,
            Err(err) => {
                eprintln!("{err}");
                return ExitCode::FAILURE;
            }
        };
        const PREFIXES: &str = "give the upstreams prefixes that keep their names apart";
        let merged = next
            .registry()
            .map_err(|err| format!("{err}: {PREFIXES}"))
            .and_then(|tools| {
                registry.merge(tools).map_err(|err| match err {
                    // Two upstreams serving one URI: a prefix does not keep URIs apart.
                    toolsmith::Error::Conflict { ref what, .. } if what.contains("resource") => {
                        err.to_string()
                    }
                    err => format!("{err}: {PREFIXES}"),
                })
            });
        registry = match merged {
            Ok(merged) => merged,
            Err(why) => {
                eprintln!("{why}");
                return ExitCode::FAILURE;
            }
        };
        mounted.push(next);
    }
    if let (Some(names), Some(file)) = (approving, &pin_file) {
        return match file.approve(&registry, &names) {
            Ok(done) => {
                for line in done {
                    println!("{line}");
                }
                ExitCode::SUCCESS
            }
            Err(why) => {
                eprintln!("{why}");
                ExitCode::FAILURE
            }
        };
    }
    let served: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    for unmatched in overrides.unmatched(served) {
        tracing::warn!(pattern = %unmatched, "an override matches no upstream tool: check its name");
    }
    if registry.is_empty() {
        let left_out: usize = mounted.iter().map(|m| m.left_out().len()).sum();
        eprintln!(
            "no upstream tool to serve ({left_out} left out by --strict-hints, each named above): correct the upstreams' hints, or serve without --strict-hints"
        );
        return ExitCode::FAILURE;
    }
    let mut server = Server::with_registry(registry)
        .info("toolsmith-gateway", env!("CARGO_PKG_VERSION"))
        .metrics_series(series);
    // The sign-in pages of the upstreams that sign their users in, beside the endpoint.
    if let Some(routes) = toolsmith_gateway::sign_in_routes(&mounted) {
        server = server.http_routes(routes);
    }
    // The tools the pin holds, for the approvals page to review.
    if let Some(pin) = pin.as_ref().filter(|_| args.on_change == "hold") {
        let reviews = pin.reviews(server.registry_handle());
        server = server.reviews(reviews);
    }
    // An upstream restarted with other tools: they are served from then on.
    for upstream in &mounted {
        upstream.follow(server.registry_handle());
    }
    let argv = std::iter::once(OsString::from("toolsmith-gateway")).chain(args.server);
    let status = server.run_with(argv).await;
    // The upstreams run until the server is done.
    drop(mounted);
    status
}

//! Logs to stderr, never stdout: stdout belongs to the protocol.

use tracing_subscriber::filter::Targets;
use tracing_subscriber::prelude::*;

/// What is logged when `TOOLSMITH_LOG` is unset: toolsmith's own events from `info`, the
/// rest (rmcp's per-message chatter) from `warn`.
const DEFAULT_FILTER: &str = "warn,toolsmith=info";

/// Installs a stderr subscriber unless the program installed its own. `TOOLSMITH_LOG` takes
/// `level` or `target=level` directives separated by commas, e.g. `debug` or
/// `warn,toolsmith=debug`.
pub(crate) fn init() {
    let filter = std::env::var("TOOLSMITH_LOG")
        .ok()
        .and_then(|v| v.parse::<Targets>().ok())
        .unwrap_or_else(|| DEFAULT_FILTER.parse().expect("the default filter parses"));
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false);
    let _ = tracing_subscriber::registry()
        .with(layer.with_filter(filter))
        .try_init();
}

//! Logs to stderr, never stdout: stdout belongs to the protocol.

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::prelude::*;

/// What is logged when `TOOLSMITH_LOG` is unset: toolsmith's own events from `info`, the
/// rest (rmcp's per-message chatter) from `warn`.
const DEFAULT_FILTER: &str = "warn,toolsmith=info";

/// Installs a stderr subscriber unless the program installed its own. `TOOLSMITH_LOG` takes
/// `level` or `target=level` directives separated by commas, e.g. `debug` or
/// `warn,toolsmith=debug`; with `off` no subscriber is installed at all.
pub(crate) fn init() {
    let filter = std::env::var("TOOLSMITH_LOG")
        .ok()
        .and_then(|v| v.parse::<Targets>().ok())
        .unwrap_or_else(|| DEFAULT_FILTER.parse().expect("the default filter parses"));
    if logs_nothing(&filter) {
        return; // no subscriber: every event is a no-op, and no registry is allocated
    }
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false);
    let _ = tracing_subscriber::registry()
        .with(layer.with_filter(filter))
        .try_init();
}

/// Whether `filter` turns every event off.
fn logs_nothing(filter: &Targets) -> bool {
    filter.default_level().unwrap_or(LevelFilter::OFF) == LevelFilter::OFF
        && filter.iter().all(|(_, level)| level == LevelFilter::OFF)
}

#[cfg(test)]
mod tests {
    use super::logs_nothing;

    #[test]
    fn only_a_filter_that_enables_nothing_skips_the_subscriber() {
        let nothing = |text: &str| logs_nothing(&text.parse().unwrap());
        assert!(nothing("off"));
        assert!(nothing("off,rmcp=off"));
        assert!(!nothing("warn"));
        assert!(!nothing("off,toolsmith=info"));
        assert!(!nothing(super::DEFAULT_FILTER));
    }
}

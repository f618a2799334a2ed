//! Logs to stderr, never stdout: stdout belongs to the protocol.

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::prelude::*;

/// What is logged when `TOOLSMITH_LOG` is unset: toolsmith's own events from `info`, the
/// rest (rmcp's per-message chatter) from `warn`.
const DEFAULT_FILTER: &str = "warn,toolsmith=info";

/// Installs a stderr subscriber unless the program installed its own. `TOOLSMITH_LOG` (or,
/// when it is unset, `RUST_LOG`) takes `level` or `target=level` directives separated by
/// commas, e.g. `debug` or `warn,toolsmith=debug`; with `off` no subscriber is installed at
/// all.
///
/// With the `otel` feature and an OTLP endpoint in OpenTelemetry's variables, the subscriber
/// also exports toolsmith's spans (`crate::trace`), whatever `TOOLSMITH_LOG` says.
pub(crate) fn init() {
    // The program's own subscriber, or ours from an earlier serve: nothing to add (and no
    // exporter to make and drop).
    if tracing::dispatcher::has_been_set() {
        return;
    }
    let spec = spec_of(
        std::env::var("TOOLSMITH_LOG").ok(),
        std::env::var("RUST_LOG").ok(),
    );
    let filter = filter_from(spec.as_deref());
    let (traces, trouble) = match crate::trace::layer() {
        Ok(traces) => (traces, None),
        Err(why) => (None, Some(why)),
    };
    let logs = !logs_nothing(&filter);
    if !logs && traces.is_none() {
        return; // no subscriber: every event is a no-op, and no registry is allocated
    }
    let layer = logs.then(|| {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .with_filter(filter)
    });
    let (traces, activation) = match traces {
        Some((traces, activation)) => (Some(traces), Some(activation)),
        None => (None, None),
    };
    let installed = tracing_subscriber::registry()
        .with(layer)
        .with(traces)
        .try_init()
        .is_ok();
    if installed && let Some(activation) = activation {
        activation.activate();
    }
    if let Some(why) = trouble {
        tracing::warn!("traces are off: {why}");
    }
}

/// The directives asked for: `TOOLSMITH_LOG`, else `RUST_LOG` (what a Rust program's user
/// tries first).
fn spec_of(toolsmith: Option<String>, rust: Option<String>) -> Option<String> {
    toolsmith.or(rust)
}

/// The filter `TOOLSMITH_LOG` (`spec`) asks for. rmcp's own targets stay at `warn` unless
/// `spec` names them: at `debug` they log every request and result whole, arguments
/// included, which toolsmith's logs never do.
fn filter_from(spec: Option<&str>) -> Targets {
    let Some(filter) = spec.and_then(|spec| spec.parse::<Targets>().ok()) else {
        return DEFAULT_FILTER.parse().expect("the default filter parses");
    };
    let names_rmcp = spec.is_some_and(|spec| {
        spec.split(',')
            .any(|directive| directive.trim().starts_with("rmcp"))
    });
    if names_rmcp {
        filter
    } else {
        filter.with_target("rmcp", LevelFilter::WARN)
    }
}

/// Whether `filter` turns every event off.
fn logs_nothing(filter: &Targets) -> bool {
    filter.default_level().unwrap_or(LevelFilter::OFF) == LevelFilter::OFF
        && filter.iter().all(|(_, level)| level == LevelFilter::OFF)
}

#[cfg(test)]
mod tests {
    use tracing::Level;

    use super::{filter_from, logs_nothing, spec_of};

    #[test]
    fn rust_log_is_read_when_toolsmith_log_is_unset() {
        let some = |s: &str| Some(s.to_owned());
        assert_eq!(spec_of(None, some("debug")).as_deref(), Some("debug"));
        assert_eq!(
            spec_of(some("warn"), some("debug")).as_deref(),
            Some("warn")
        );
        assert_eq!(spec_of(None, None), None);
        let from_rust_log = filter_from(spec_of(None, some("debug")).as_deref());
        assert!(from_rust_log.would_enable("toolsmith::server", &Level::DEBUG));
    }

    #[test]
    fn rmcp_stays_at_warn_unless_it_is_named() {
        let debug = filter_from(Some("debug"));
        assert!(debug.would_enable("toolsmith::server", &Level::DEBUG));
        assert!(!debug.would_enable("rmcp::service::server", &Level::DEBUG));
        assert!(debug.would_enable("rmcp::service::server", &Level::WARN));
        let named = filter_from(Some("debug,rmcp=debug"));
        assert!(named.would_enable("rmcp::service::server", &Level::DEBUG));
        let default = filter_from(None);
        assert!(!default.would_enable("rmcp::service", &Level::INFO));
        assert!(default.would_enable("toolsmith::server", &Level::INFO));
    }

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

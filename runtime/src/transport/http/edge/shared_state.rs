//! What a request changes of its session's state that replicas share (`sessions/shared.rs`):
//! its subscriptions, which follow its `GET` stream, and its log level, noted for once rmcp
//! answered.

use serde_json::value::RawValue;

use super::super::sessions::{Admission, Sessions};
use crate::context::Caller;

/// Notes in `admission` what `method` (with `params`) changes of session `id`'s state.
pub(super) fn note(
    sessions: &Sessions,
    admission: &mut Admission,
    id: &str,
    method: Option<&str>,
    params: Option<&RawValue>,
    who: Option<&Caller>,
) {
    let Some(params) = params else {
        return;
    };
    match method {
        Some(subscription @ ("resources/subscribe" | "resources/unsubscribe")) => {
            if let Some(uri) = uri_of(params) {
                let on = subscription == "resources/subscribe";
                sessions.subscribing(admission, id, uri, on, who);
            }
        }
        Some("logging/setLevel") => {
            if let Some(level) = log_level(params) {
                sessions.setting_level(admission, id, level);
            }
        }
        _ => {}
    }
}

/// The URI `resources/subscribe`'s (or `unsubscribe`'s) `params` name.
fn uri_of(params: &RawValue) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Params {
        uri: String,
    }
    serde_json::from_str::<Params>(params.get())
        .ok()
        .map(|p| p.uri)
}

/// The level `logging/setLevel`'s `params` ask for, as rmcp reads it.
fn log_level(params: &RawValue) -> Option<String> {
    #[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 has it.
    #[derive(serde::Deserialize)]
    struct Params {
        level: rmcp::model::LoggingLevel,
    }
    let params: Params = serde_json::from_str(params.get()).ok()?;
    let level = serde_json::to_value(params.level).ok()?;
    level.as_str().map(str::to_owned)
}

//! MCP Apps through the gateway: an upstream's `ui://` resources (the HTML that renders a
//! tool's result) are served under the upstream's name, `ui://{upstream}/{the rest}`, so that
//! two upstreams' apps never share a URI, and a tool's `_meta.ui.resourceUri` (and the older
//! `ui/resourceUri` key) names the URI the gateway serves; a read of it is sent on with the
//! upstream's own URI. Every other key of a tool's `_meta` is passed on as it is.

use serde_json::Value;

/// The scheme of an MCP App's resources.
const SCHEME: &str = "ui://";

/// `uri` as the gateway serves it: a `ui://` URI under `upstream`'s name, any other as it is.
pub(crate) fn served_uri(uri: &str, upstream: &str) -> String {
    match uri.strip_prefix(SCHEME) {
        Some(rest) => format!("{SCHEME}{upstream}/{rest}"),
        None => uri.to_owned(),
    }
}

/// A tool's `_meta` as the gateway lists it: its `ui` resource under the served URI.
pub(crate) fn tool_meta(
    mut meta: serde_json::Map<String, Value>,
    upstream: &str,
) -> serde_json::Map<String, Value> {
    if let Some(Value::Object(ui)) = meta.get_mut("ui")
        && let Some(Value::String(uri)) = ui.get_mut("resourceUri")
    {
        *uri = served_uri(uri, upstream);
    }
    if let Some(Value::String(uri)) = meta.get_mut("ui/resourceUri") {
        *uri = served_uri(uri, upstream);
    }
    meta
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{served_uri, tool_meta};

    #[test]
    fn an_apps_uris_are_served_under_its_upstream() {
        assert_eq!(
            served_uri("ui://chart/view.html", "sales"),
            "ui://sales/chart/view.html"
        );
        assert_eq!(served_uri("notes://1", "sales"), "notes://1");
        let meta = json!({"ui": {"resourceUri": "ui://chart/view.html", "csp": {"a": 1}},
            "ui/resourceUri": "ui://chart/view.html", "example.com/x": 1});
        let served = tool_meta(meta.as_object().cloned().unwrap(), "sales");
        assert_eq!(
            serde_json::Value::Object(served),
            json!({"ui": {"resourceUri": "ui://sales/chart/view.html", "csp": {"a": 1}},
                "ui/resourceUri": "ui://sales/chart/view.html", "example.com/x": 1})
        );
    }
}

//! Icons: only `https:` and `data:` URIs are safe for a client to load.

use serde_json::Value;

use crate::finding::Finding;

pub(super) fn check(name: &str, tool: &Value, findings: &mut Vec<Finding>) {
    let Some(icons) = tool.get("icons").and_then(Value::as_array) else {
        return;
    };
    for (i, icon) in icons.iter().enumerate() {
        let src = icon.get("src").and_then(Value::as_str).unwrap_or("");
        let scheme = src.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
        if !matches!(scheme.as_deref(), Some("https" | "data")) {
            findings.push(
                Finding::new(
                    "icon-scheme",
                    Some(name),
                    format!("the icon {src:?} is neither https: nor data:: clients should refuse to load it"),
                    "serve the icon over https:, or inline it as a data: URI",
                )
                .at(format!("icons[{i}].src")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::rules::test_support::*;

    #[test]
    fn icon_scheme() {
        let icons = |src: &str| with("get_note", "icons", Some(json!([{"src": src}])));
        assert!(codes(&[icons("https://example.com/a.svg")]).is_empty());
        assert!(codes(&[icons("data:image/png;base64,iVBO")]).is_empty());
        assert_eq!(codes(&[icons("http://example.com/a.svg")]), ["icon-scheme"]);
        assert_eq!(codes(&[icons("file:///etc/icon.png")]), ["icon-scheme"]);
        assert_eq!(codes(&[icons("icon.png")]), ["icon-scheme"]);
    }
}

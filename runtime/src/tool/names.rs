//! What a tool made by hand is checked for when it is added (its name), the header of any
//! item made by hand, and the few of its strings kept for the life of the process (scopes, a timeout's text): each distinct one
//! once, so that they are `&'static` as a `#[tool]`'s are.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use crate::item::{About, Header};

/// The longest tool name MCP allows.
pub(crate) const MAX_TOOL_NAME: usize = 128;

/// Whether `name` is a tool name MCP allows: 1 to 128 characters of `A-Z a-z 0-9 _ - .`.
pub(crate) fn check_tool_name(name: &str) -> Result<(), String> {
    let shown: String = name.chars().take(40).collect();
    if name.is_empty() || name.len() > MAX_TOOL_NAME {
        return Err(format!(
            "the tool name '{shown}' must be 1 to {MAX_TOOL_NAME} characters long"
        ));
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some(c) => Err(format!(
            "the tool name '{shown}' holds {c:?}: use only A-Z, a-z, 0-9, '_', '-' and '.'"
        )),
        None => Ok(()),
    }
}

static STRINGS: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
static LISTS: Mutex<Option<HashSet<&'static [&'static str]>>> = Mutex::new(None);

/// `text`, kept once for the life of the process.
pub(crate) fn intern(text: &str) -> &'static str {
    let mut strings = STRINGS.lock().unwrap_or_else(|e| e.into_inner());
    let strings = strings.get_or_insert_with(HashSet::new);
    if let Some(&kept) = strings.get(text) {
        return kept;
    }
    let kept: &'static str = Box::leak(text.to_owned().into_boxed_str());
    strings.insert(kept);
    kept
}

/// `list`, kept once for the life of the process (an empty list costs nothing).
pub(crate) fn intern_list(list: &[String]) -> &'static [&'static str] {
    if list.is_empty() {
        return &[];
    }
    let items: Vec<&'static str> = list.iter().map(|s| intern(s)).collect();
    let mut lists = LISTS.lock().unwrap_or_else(|e| e.into_inner());
    let lists = lists.get_or_insert_with(HashSet::new);
    if let Some(&kept) = lists.get(items.as_slice()) {
        return kept;
    }
    let kept: &'static [&'static str] = Box::leak(items.into_boxed_slice());
    lists.insert(kept);
    kept
}

/// The timeout of an item made by hand (`kind` and `name` for the message): none, or one
/// above zero with its text kept.
pub(crate) fn made_timeout(
    kind: &str,
    name: &str,
    limit: Option<Duration>,
) -> Result<Option<super::param::Timeout>, String> {
    match limit {
        Some(limit) if limit.is_zero() => Err(format!(
            "the timeout of {kind} '{name}' is zero: give a duration above zero"
        )),
        Some(limit) => Ok(Some(super::param::Timeout {
            millis: limit.as_millis().try_into().unwrap_or(u64::MAX),
            text: intern(&duration_text(limit)),
        })),
        None => Ok(None),
    }
}

/// The header of an item made by hand, of what it says in `about`: its icons a client may
/// load, its scopes kept for the life of the process.
pub(crate) fn made_header(about: About) -> Header {
    Header::made(
        &about.name,
        about.title.as_deref(),
        &about.description,
        made_icons(about.icons),
        intern_list(&about.scopes),
        about.origin,
    )
}

/// The icons of an item made by hand a client may load: `https:` and `data:` URIs.
fn made_icons(icons: Vec<String>) -> Vec<String> {
    icons
        .into_iter()
        .filter(|icon| icon.starts_with("https:") || icon.starts_with("data:"))
        .collect()
}

/// A duration as a timeout message writes it: `30s`, `1500ms`.
pub(crate) fn duration_text(duration: Duration) -> String {
    match duration.subsec_millis() {
        0 => format!("{}s", duration.as_secs()),
        _ => format!("{}ms", duration.as_millis()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_are_checked_as_mcp_says() {
        assert!(check_tool_name("search_notes.v2-beta").is_ok());
        assert!(check_tool_name("").unwrap_err().contains("1 to 128"));
        assert!(check_tool_name(&"a".repeat(129)).is_err());
        assert!(check_tool_name("a b").unwrap_err().contains("' '"));
    }

    #[test]
    fn each_distinct_string_and_list_is_kept_once() {
        let a = intern_list(&["x:read".to_owned(), "x:write".to_owned()]);
        let b = intern_list(&["x:read".to_owned(), "x:write".to_owned()]);
        assert!(std::ptr::eq(a, b));
        assert_eq!(a, ["x:read", "x:write"]);
        assert!(std::ptr::eq(intern("x:read"), a[0]));
        assert_eq!(duration_text(Duration::from_secs(30)), "30s");
        assert_eq!(duration_text(Duration::from_millis(1500)), "1500ms");
    }
}

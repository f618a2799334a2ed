//! What a tool's name says about its behaviour: the verb rules behind `#[tool]`'s
//! compile-time name lint and `toolsmith::tool::infer_hints`. One implementation, used by both.
//!
//! ```
//! use toolsmith_infer::{Implied, implied};
//!
//! assert_eq!(implied("playlist.delete"), Some(Implied::Destructive("delete")));
//! assert_eq!(implied("getNote"), Some(Implied::ReadOnly("get")));
//! assert_eq!(implied("playlist_create"), None); // `playlist` is not `list`
//! ```

/// Name tokens that mean the tool deletes or overwrites.
///
/// ```
/// assert!(toolsmith_infer::DESTRUCTIVE_VERBS.contains(&"wipe"));
/// ```
pub const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete", "remove", "drop", "purge", "wipe", "destroy", "erase", "truncate",
];

/// Name tokens that mean the tool only reads.
///
/// ```
/// assert!(toolsmith_infer::READ_VERBS.contains(&"search"));
/// ```
pub const READ_VERBS: &[&str] = &["get", "list", "search", "find", "read", "show", "fetch"];

/// What a name implies.
///
/// ```
/// let implied = toolsmith_infer::implied("purge_cache").unwrap();
/// assert_eq!(implied, toolsmith_infer::Implied::Destructive("purge"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implied {
    /// A destructive verb stands in the name (it wins over a read verb).
    Destructive(&'static str),
    /// A read verb stands in the name, and no destructive one.
    ReadOnly(&'static str),
}

/// Splits a name into lowercase tokens on `_`, `.`, `-`, spaces and camel-case humps:
/// `getNote.v2` is `get`, `note`, `v2`.
///
/// ```
/// assert_eq!(toolsmith_infer::tokens("getNote.v2"), ["get", "note", "v2"]);
/// ```
pub fn tokens(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if matches!(c, '_' | '.' | '-' | ' ' | '/') {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// What `name` implies, matched on whole tokens (`playlist.delete` is a delete, not a list).
///
/// ```
/// assert_eq!(toolsmith_infer::implied("information_wipe"),
///            Some(toolsmith_infer::Implied::Destructive("wipe")));
/// ```
pub fn implied(name: &str) -> Option<Implied> {
    let tokens = tokens(name);
    let find = |verbs: &'static [&'static str]| {
        verbs
            .iter()
            .find(|verb| tokens.iter().any(|t| t == *verb))
            .copied()
    };
    find(DESTRUCTIVE_VERBS)
        .map(Implied::Destructive)
        .or_else(|| find(READ_VERBS).map(Implied::ReadOnly))
}

/// How a name contradicts declared hints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mismatch {
    /// A destructive verb on a tool declared read-only: clients may run it without asking.
    DestructiveNameReadOnly(&'static str),
    /// A destructive verb on a tool declared `destructive = false`.
    DestructiveNameNotDestructive(&'static str),
    /// A read verb on a tool not declared read-only: clients will ask before every call.
    ReadNameNotReadOnly(&'static str),
}

/// Whether `name` contradicts the declared hints: the rule of the `#[tool]` name lint.
///
/// ```
/// use toolsmith_infer::{Mismatch, mismatch};
///
/// assert_eq!(mismatch("delete_note", true, false), Some(Mismatch::DestructiveNameReadOnly("delete")));
/// assert_eq!(mismatch("get_note", false, true), Some(Mismatch::ReadNameNotReadOnly("get")));
/// assert_eq!(mismatch("get_note", true, false), None);
/// ```
pub fn mismatch(name: &str, read_only: bool, destructive: bool) -> Option<Mismatch> {
    match implied(name)? {
        Implied::Destructive(verb) if read_only => Some(Mismatch::DestructiveNameReadOnly(verb)),
        Implied::Destructive(verb) if !destructive => {
            Some(Mismatch::DestructiveNameNotDestructive(verb))
        }
        Implied::ReadOnly(verb) if !read_only => Some(Mismatch::ReadNameNotReadOnly(verb)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_on_separators_and_humps() {
        assert_eq!(tokens("getNote.v2"), ["get", "note", "v2"]);
        assert_eq!(tokens("information_wipe"), ["information", "wipe"]);
        assert_eq!(tokens("HTTPFetch"), ["httpfetch"]);
    }

    #[test]
    fn verbs_match_whole_tokens() {
        assert_eq!(
            implied("playlist.delete"),
            Some(Implied::Destructive("delete"))
        );
        assert_eq!(
            implied("information_wipe"),
            Some(Implied::Destructive("wipe"))
        );
        assert_eq!(implied("get_note"), Some(Implied::ReadOnly("get")));
        assert_eq!(implied("playlist_create"), None);
        assert_eq!(
            implied("get_and_delete"),
            Some(Implied::Destructive("delete"))
        );
        assert_eq!(implied("budget"), None);
    }
}

//! What a tool's name says about its behaviour: the verb rules behind the compile-time name
//! lint. Plain std code with no dependency, so that the runtime can reuse the same file.

/// Name tokens that mean the tool deletes or overwrites.
pub const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete", "remove", "drop", "purge", "wipe", "destroy", "erase", "truncate",
];

/// Name tokens that mean the tool only reads.
pub const READ_VERBS: &[&str] = &["get", "list", "search", "find", "read", "show", "fetch"];

/// What a name implies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implied {
    /// A destructive verb stands in the name (it wins over a read verb).
    Destructive(&'static str),
    /// A read verb stands in the name, and no destructive one.
    ReadOnly(&'static str),
}

/// Splits a name into lowercase tokens on `_`, `.`, `-`, spaces and camel-case humps:
/// `getNote.v2` is `get`, `note`, `v2`.
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

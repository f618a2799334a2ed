//! Tool names: SEP-986's characters and length, unique across the listing, and fit for the
//! function names of model APIs.

use crate::finding::Finding;

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// The name rules for tool `index` of the listing; `first` is the index of the first tool of
/// that name, when an earlier one had it.
pub(super) fn check(name: &str, index: usize, first: Option<usize>, findings: &mut Vec<Finding>) {
    let tool = Some(name);
    let len = name.chars().count();
    if len == 0 || len > 128 {
        findings.push(Finding::new(
            "name-length",
            tool,
            format!("the name has {len} characters; MCP tool names have 1 to 128"),
            "choose a name of 1 to 128 characters",
        ));
    }
    let mut bad: Vec<char> = name.chars().filter(|&c| !allowed(c)).collect();
    bad.dedup();
    if !bad.is_empty() {
        let shown: Vec<String> = bad.iter().map(|c| format!("{c:?}")).collect();
        findings.push(Finding::new(
            "name-characters",
            tool,
            format!(
                "the name has {}: MCP tool names use only A-Z a-z 0-9 _ - .",
                shown.join(", ")
            ),
            "rename the tool with letters, digits, `_`, `-` and `.` only",
        ));
    } else if (1..=128).contains(&len) && (len > 64 || name.contains('.')) {
        findings.push(Finding::new(
            "name-model-api",
            tool,
            "model APIs take function names of at most 64 of A-Z a-z 0-9 _ -: a client must rewrite this one",
            "prefer a name of at most 64 characters without `.`",
        ));
    }
    if let Some(first) = first {
        findings.push(Finding::new(
            "name-duplicate",
            tool,
            format!("tools {} and {} of the listing are both named `{name}`: a client can call only one", first + 1, index + 1),
            "give every tool its own name, across all pages",
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::*;

    #[test]
    fn name_length() {
        assert!(!codes(&[good(&"n".repeat(128))]).contains(&"name-length"));
        assert!(codes(&[good(&"n".repeat(129))]).contains(&"name-length"));
        assert!(codes(&[good("")]).contains(&"name-length"));
    }

    #[test]
    fn name_characters() {
        assert!(!codes(&[good("get-note_v2")]).contains(&"name-characters"));
        assert_eq!(codes(&[good("get note")]), ["name-characters"]);
        assert_eq!(codes(&[good("notes/get")]), ["name-characters"]);
    }

    #[test]
    fn name_duplicate() {
        assert!(!codes(&[good("get_note"), good("get_notes")]).contains(&"name-duplicate"));
        let findings = crate::audit(&[good("get_note"), good("x"), good("get_note")]);
        let duplicate = findings
            .iter()
            .find(|f| f.rule.code == "name-duplicate")
            .unwrap();
        assert!(
            duplicate.message.starts_with("tools 1 and 3"),
            "{}",
            duplicate.message
        );
    }

    #[test]
    fn name_model_api() {
        assert!(!codes(&[good(&"n".repeat(64))]).contains(&"name-model-api"));
        assert_eq!(codes(&[good("notes.get")]), ["name-model-api"]);
        assert_eq!(codes(&[good(&"n".repeat(65))]), ["name-model-api"]);
    }
}

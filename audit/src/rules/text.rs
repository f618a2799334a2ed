//! What a person and a model read: the title and the description.

use serde_json::Value;

use crate::finding::Finding;

/// Fewer words than this do not say what a tool does.
const MIN_WORDS: usize = 3;

fn text(value: Option<&Value>) -> Option<&str> {
    value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

pub(super) fn check(name: &str, tool: &Value, findings: &mut Vec<Finding>) {
    let title = text(tool.get("title"))
        .or_else(|| text(tool.get("annotations").and_then(|a| a.get("title"))));
    if title.is_none() {
        findings.push(Finding::new(
            "title-missing",
            Some(name),
            "no title: clients and directories show the bare name",
            "add a short human-readable `title`, e.g. \"Delete note\"",
        ));
    }
    match text(tool.get("description")) {
        None => findings.push(Finding::new(
            "description-missing",
            Some(name),
            "no description: a model has only the name to decide when to call it",
            "add a `description` saying what the tool does, what it changes and what it returns",
        )),
        Some(description) if description.split_whitespace().count() < MIN_WORDS => {
            findings.push(Finding::new(
                "description-short",
                Some(name),
                format!("the description {description:?} is too short to say what the tool does"),
                "describe in a sentence or two what the tool does, what it changes and what it returns",
            ))
        }
        Some(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::rules::test_support::*;

    #[test]
    fn title_missing() {
        assert!(!codes(&[good("get_note")]).contains(&"title-missing"));
        assert_eq!(codes(&[with("get_note", "title", None)]), ["title-missing"]);
        let annotated = with("get_note", "title", None);
        let mut annotated = annotated;
        annotated["annotations"]["title"] = json!("Get note");
        assert!(!codes(&[annotated]).contains(&"title-missing"));
    }

    #[test]
    fn description_missing() {
        assert!(!codes(&[good("get_note")]).contains(&"description-missing"));
        assert_eq!(
            codes(&[with("get_note", "description", None)]),
            ["description-missing"]
        );
        assert_eq!(
            codes(&[with("get_note", "description", Some(json!("  ")))]),
            ["description-missing"]
        );
    }

    #[test]
    fn description_short() {
        let enough = with("get_note", "description", Some(json!("Get a note.")));
        assert!(!codes(&[enough]).contains(&"description-short"));
        let short = with("get_note", "description", Some(json!("Gets notes")));
        assert_eq!(codes(&[short]), ["description-short"]);
    }
}

//! The question a confirmation asks: the tool's `confirm = "..."` message with each
//! `{argument}` replaced by the call's value of it, or by default a sentence that names the
//! tool (its title when it has one) and every argument the call gives.

use rmcp::model::JsonObject;
use serde_json::Value;

use crate::tool::ToolInfo;

/// The longest an argument's value is shown in a question; longer ones end with `…`.
const MAX_SHOWN: usize = 200;

/// The question asked before `tool` runs with `arguments`: its `confirm_with` function's
/// (given the context `context` makes), else its message, else the default.
pub(crate) fn question(
    tool: &ToolInfo,
    arguments: Option<&JsonObject>,
    context: impl FnOnce() -> crate::context::CallContext,
) -> String {
    if let Some(asked) = tool.asked_with(arguments, context) {
        return asked;
    }
    match tool.confirm_message() {
        Some(message) => interpolate(message, arguments),
        None => default_question(tool, arguments),
    }
}

fn default_question(tool: &ToolInfo, arguments: Option<&JsonObject>) -> String {
    let what = match tool.header().title() {
        Some(title) => format!("\"{title}\" ({})", tool.name()),
        None => format!("\"{}\"", tool.name()),
    };
    let given: Vec<String> = arguments
        .into_iter()
        .flatten()
        .map(|(name, value)| format!("{name} = {}", shown(Some(value))))
        .collect();
    if given.is_empty() {
        format!("Allow {what} to run?")
    } else {
        format!("Allow {what} to run with {}?", given.join(", "))
    }
}

/// `message` with every `{name}` replaced by that argument (`{{` and `}}` are braces; the
/// macro checked the placeholders).
fn interpolate(message: &str, arguments: Option<&JsonObject>) -> String {
    let mut out = String::with_capacity(message.len() + 16);
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let name: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let value = arguments.and_then(|args| args.get(name.trim()));
                out.push_str(&shown(value));
            }
            other => out.push(other),
        }
    }
    out
}

/// An argument as the user reads it: a string as it is, anything else as JSON, a missing one
/// as `(none)`; at most [`MAX_SHOWN`] characters. Line breaks, other control characters and
/// the characters that reorder text (bidi overrides) are shown escaped (`\n`, `\u{202e}`): an
/// argument cannot add lines to the question, or turn its words around.
fn shown(value: Option<&Value>) -> String {
    let text = match value {
        None | Some(Value::Null) => return "(none)".to_owned(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    };
    let mut out = String::with_capacity(text.len().min(MAX_SHOWN * 4));
    for (count, c) in text.chars().enumerate() {
        if count == MAX_SHOWN {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || reorders(c) => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// The characters that break a line, change the direction of the text after them, or hide
/// (line and paragraph separators, bidi marks and overrides, zero-width characters).
fn reorders(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2069}'
            | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{interpolate, shown};

    fn args(value: serde_json::Value) -> rmcp::model::JsonObject {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn placeholders_take_the_arguments_values() {
        let given = args(json!({"note_id": 3, "title": "Groceries", "tags": ["a"]}));
        assert_eq!(
            interpolate("Delete note {note_id}?", Some(&given)),
            "Delete note 3?"
        );
        assert_eq!(
            interpolate("Rename to {title} {tags} {{kept}}", Some(&given)),
            "Rename to Groceries [\"a\"] {kept}"
        );
        assert_eq!(interpolate("Drop {missing}?", Some(&given)), "Drop (none)?");
        assert_eq!(interpolate("Drop {note_id}?", None), "Drop (none)?");
    }

    #[test]
    fn an_argument_cannot_add_lines_or_reverse_the_question() {
        let sneaky = json!("3?\n\n(Only archives it.)\u{202e}");
        assert_eq!(shown(Some(&sneaky)), "3?\\n\\n(Only archives it.)\\u{202e}");
        assert!(!shown(Some(&json!("a\u{7}b"))).contains('\u{7}'));
        for hidden in ['\u{2028}', '\u{2029}', '\u{061c}', '\u{200b}', '\u{feff}'] {
            let shown = shown(Some(&json!(format!("a{hidden}b"))));
            assert!(!shown.contains(hidden), "{hidden:?}");
        }
    }

    #[test]
    fn long_values_are_cut() {
        let long = json!("x".repeat(1000));
        let text = shown(Some(&long));
        assert_eq!(text.chars().count(), super::MAX_SHOWN + 1);
        assert!(text.ends_with('…'));
    }
}

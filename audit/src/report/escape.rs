//! What a server says, made safe to print on a terminal: a tool's name or title could
//! otherwise clear the screen (`ESC [2J`), retitle the window (`ESC ]0;`), plant a hyperlink
//! (`ESC ]8;;`) or reorder the line (bidirectional overrides), and make the report look clean.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` changes what a terminal shows rather than showing itself: C0 controls (tab
/// and newline included: a report's layout is its own), DEL, C1 controls, and the
/// bidirectional marks, embeddings, overrides and isolates.
fn unsafe_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}' | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// `text` with every character that a terminal would act on written visibly instead: `\x1b`
/// for a C0 or C1 control or DEL, `\u{202e}` for a bidirectional one; a backslash is
/// doubled, so that an escape cannot be forged.
///
/// ```
/// use toolsmith_audit::shown;
///
/// assert_eq!(shown("get_note"), "get_note");
/// assert_eq!(shown("get_x\x1b[2J\x1b[H"), "get_x\\x1b[2J\\x1b[H");
/// assert_eq!(shown("a\u{202e}b"), "a\\u{202e}b");
/// assert_eq!(shown("a\\x1b"), "a\\\\x1b");
/// ```
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| unsafe_char(c) || c == '\\') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if unsafe_char(c) && (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if unsafe_char(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::shown;
    use crate::{Report, Server};

    #[test]
    fn the_text_report_prints_no_terminal_control_a_server_sent() {
        let tools = vec![
            json!({"name": "get_x\u{1b}[2J\u{1b}[H", "inputSchema": {"type": "object"}}),
            json!({"name": "t", "title": "\u{1b}]0;pwned\u{7}", "description": "\u{1b}]8;;https://evil\u{7}x",
                "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}),
            json!({"name": "rtl\u{202e}txt.exe", "inputSchema": {"type": "object"}}),
        ];
        let table = Report::new(Server::named("s"), tools).to_table();
        for c in ['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}'] {
            assert!(!table.contains(c), "{c:?} reached the report:\n{table}");
        }
        assert!(table.contains("get_x\\x1b[2J\\x1b[H"), "{table}");
        assert!(table.contains("rtl\\u{202e}txt.exe"), "{table}");
    }

    #[test]
    fn every_class_of_terminal_control_is_escaped() {
        for (raw, seen) in [
            ("\x1b]0;owned\x07", "\\x1b]0;owned\\x07"),
            ("\x1b]8;;http://x\x07y", "\\x1b]8;;http://x\\x07y"),
            ("a\nb\tc\rd", "a\\x0ab\\x09c\\x0dd"),
            ("del\x7f", "del\\x7f"),
            ("csi\u{9b}2J", "csi\\x9b2J"),
            ("\u{2066}x\u{2069}", "\\u{2066}x\\u{2069}"),
            ("\u{200f}\u{61c}", "\\u{200f}\\u{61c}"),
            ("naïve ☃", "naïve ☃"),
        ] {
            assert_eq!(shown(raw), seen, "{raw:?}");
        }
    }
}

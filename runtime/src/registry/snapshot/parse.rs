//! Reading a hint snapshot back: each line a tool, a resource (or template) or a prompt, its
//! name or URI a JSON string, then its fields (`key=value`, a value bare or a JSON string).
//! Anything else is refused, naming its line: a line of no known kind, a field no line of its
//! kind has or one it lacks, a second line for one name. What a name or a URI holds can never
//! make a line of its own, nor take another's place.

use std::collections::BTreeMap;
use std::fmt::Write;

/// What a line is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    /// The word a line of this kind starts with.
    pub(super) fn word(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::Prompt => "prompt",
        }
    }

    fn of(word: &str) -> Option<Kind> {
        [Kind::Tool, Kind::Resource, Kind::Prompt]
            .into_iter()
            .find(|kind| kind.word() == word)
    }

    /// The fields each line of this kind has, then those it may have.
    fn fields(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            Kind::Tool => (
                &[
                    "readOnly",
                    "destructive",
                    "idempotent",
                    "openWorld",
                    "confirm",
                    "scopes",
                    "input",
                    "output",
                    "description",
                ],
                &["task", "upstreamConfirms", "title"],
            ),
            Kind::Resource => (
                &["name", "template", "mime", "scopes", "input"],
                &["audience", "priority", "title"],
            ),
            Kind::Prompt => (&["scopes", "input"], &["title"]),
        }
    }
}

/// An entry's fields, in the order of its line: each value as written when bare, else as the
/// JSON string it holds, written again (so `"\u0041"` and `"A"` are one value).
pub(super) type Fields = Vec<(&'static str, String)>;

/// Every entry of a snapshot, by kind and name (a resource by its URI).
pub(super) type Entries = BTreeMap<(Kind, String), Fields>;

/// The entries of `text`, or what is wrong with it, naming the line.
pub(super) fn parse(text: &str) -> Result<Entries, String> {
    let mut entries = Entries::new();
    let mut lines: BTreeMap<(Kind, String), usize> = BTreeMap::new();
    for (at, line) in text.lines().enumerate() {
        let number = at + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (kind, name, fields) = entry(line).map_err(|why| format!("line {number}: {why}"))?;
        let key = (kind, name);
        if let Some(first) = lines.get(&key) {
            return Err(format!(
                "line {number}: a second line for {} {} (the first is line {first}): a snapshot lists each once",
                kind.word(),
                quoted(&key.1)
            ));
        }
        lines.insert(key.clone(), number);
        entries.insert(key, fields);
    }
    Ok(entries)
}

/// `text` as a JSON string: how a snapshot writes a name, a URI or a text. Every control
/// character, and every character a viewer may show as a line break or that reorders a line
/// (U+2028, U+2029, the bidirectional marks and overrides), is escaped (`\u000a`): a line
/// stays one line, and reads as it is, in an editor, a terminal or a review's diff.
pub(super) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if escaped(c) => {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `c` is written escaped (see [`quoted`]).
pub(super) fn escaped(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` as a report shows it: as it is, or [`quoted`] when it holds a character that is
/// written escaped.
pub(super) fn shown(text: &str) -> String {
    match text.chars().any(escaped) {
        true => quoted(text),
        false => text.to_owned(),
    }
}

/// One line's kind, name and fields.
fn entry(line: &str) -> Result<(Kind, String, Fields), String> {
    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
    let Some(kind) = Kind::of(word) else {
        let start: String = line.chars().take(40).collect();
        return Err(format!(
            "{} is not a line of a hint snapshot, which starts each with `tool \"NAME\"`, `resource \"URI\"` or `prompt \"NAME\"` (as a snapshot written before names were quoted has)",
            quoted(&start)
        ));
    };
    let Some((name, mut rest)) = string(rest) else {
        return Err(format!(
            "`{}` is followed by its name as a JSON string, e.g. `{} \"name\"`",
            kind.word(),
            kind.word()
        ));
    };
    let (required, optional) = kind.fields();
    let mut fields = Fields::new();
    while !rest.is_empty() {
        let Some(after) = rest.strip_prefix(' ') else {
            return Err(format!(
                "{} {}: a space goes between fields",
                kind.word(),
                quoted(&name)
            ));
        };
        let token = after.split(' ').next().unwrap_or_default();
        let Some((key, value)) = after.split_once('=').filter(|_| token.contains('=')) else {
            return Err(format!(
                "{} {}: {} is not key=value",
                kind.word(),
                quoted(&name),
                quoted(token)
            ));
        };
        let Some(&key) = required.iter().chain(optional).find(|known| **known == key) else {
            let key: String = key.chars().take(40).collect();
            return Err(format!(
                "{} {}: a {} line has no field {} (it has {})",
                kind.word(),
                quoted(&name),
                kind.word(),
                quoted(&key),
                required
                    .iter()
                    .chain(optional)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        if fields.iter().any(|(k, _)| *k == key) {
            return Err(format!("{} {}: `{key}` twice", kind.word(), quoted(&name)));
        }
        let (value, next) = match value.starts_with('"') {
            true => string(value)
                .map(|(text, next)| (quoted(&text), next))
                .ok_or_else(|| {
                    format!(
                        "{} {}: `{key}` opens a JSON string it does not close",
                        kind.word(),
                        quoted(&name)
                    )
                })?,
            false => {
                let end = value.find(' ').unwrap_or(value.len());
                if value[..end].contains('"') || value[..end].chars().any(escaped) {
                    return Err(format!(
                        "{} {}: `{key}` holds a quote or a control character outside a JSON string",
                        kind.word(),
                        quoted(&name)
                    ));
                }
                (value[..end].to_owned(), &value[end..])
            }
        };
        fields.push((key, value));
        rest = next;
    }
    if let Some(missing) = required.iter().find(|k| !fields.iter().any(|f| f.0 == **k)) {
        return Err(format!(
            "{} {} has no `{missing}`",
            kind.word(),
            quoted(&name)
        ));
    }
    Ok((kind, name, fields))
}

/// The JSON string `text` starts with, and what follows it; `None` when it starts with none.
fn string(text: &str) -> Option<(String, &str)> {
    if !text.starts_with('"') {
        return None;
    }
    let mut strings = serde_json::Deserializer::from_str(text).into_iter::<String>();
    let value = strings.next()?.ok()?;
    Some((value, &text[strings.byte_offset()..]))
}

//! The URI templates of toolsmith's resources: RFC 6570 simple expansion `{var}` (level 1)
//! and reserved expansion `{+var}` (level 2). `#[resource]` parses and checks a template at
//! compile time with this crate; the runtime matches a URI against it, fills a resource's
//! parameters from the variables, and finds two templates that could match one URI.
//!
//! ```
//! use toolsmith_template::Template;
//!
//! let template = Template::parse("notes://{note_id}").unwrap();
//! assert_eq!(template.variables().collect::<Vec<_>>(), ["note_id"]);
//! let matched = template.matches("notes://42").unwrap();
//! assert_eq!(matched, [("note_id", "42".to_owned())]);
//! assert!(template.matches("notes://4/2").is_none()); // `{var}` stops at `/`
//! assert_eq!(template.expand(|_| Some("a b".into())), "notes://a%20b");
//! ```

use std::collections::HashSet;
use std::fmt;

/// The longest URI [`Template::matches`] looks at; a longer one matches nothing.
pub const MAX_URI: usize = 64 * 1024;

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    text: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable { name: String, reserved: bool },
}

/// Why a template does not parse, in words that say how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// The message, lowercase, saying what to write instead.
    pub message: String,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TemplateError {}

fn error(message: impl Into<String>) -> TemplateError {
    TemplateError {
        message: message.into(),
    }
}

impl Template {
    /// Parses `text`: an absolute URI (`scheme:...`) whose variables are `{name}` or
    /// `{+name}`, each named once, never two side by side.
    ///
    /// ```
    /// use toolsmith_template::Template;
    ///
    /// assert!(Template::parse("file:///{+path}").is_ok());
    /// let err = Template::parse("notes://{id").unwrap_err();
    /// assert_eq!(err.message, "unclosed `{` in the URI template: close it with `}`");
    /// ```
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        check_scheme(text)?;
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut names = HashSet::new();
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            match c {
                '{' => {
                    let Some(end) = rest.find('}') else {
                        return Err(error("unclosed `{` in the URI template: close it with `}`"));
                    };
                    let inside = &rest[1..end];
                    let (reserved, name) = variable(inside)?;
                    if !names.insert(name.to_owned()) {
                        return Err(error(format!(
                            "the variable `{name}` appears twice in the URI template: name each variable once"
                        )));
                    }
                    if literal.is_empty() && matches!(parts.last(), Some(Part::Variable { .. })) {
                        return Err(error(format!(
                            "`{{{inside}}}` follows another variable directly, so a URI could split between them in more than one way: put a literal such as `/` between them"
                        )));
                    }
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    parts.push(Part::Variable {
                        name: name.to_owned(),
                        reserved,
                    });
                    rest = &rest[end + 1..];
                }
                '}' => {
                    return Err(error(
                        "a `}` without its `{` in the URI template: remove it, or open a variable with `{`",
                    ));
                }
                c if c.is_whitespace() || c.is_control() => {
                    return Err(error(format!(
                        "the URI template holds {c:?}, which a URI cannot: percent-encode it (`%20` for a space)"
                    )));
                }
                c => {
                    literal.push(c);
                    rest = &rest[c.len_utf8()..];
                }
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Template {
            text: text.to_owned(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether it has no variable: a URI of one resource.
    ///
    /// ```
    /// assert!(toolsmith_template::Template::parse("notes://index").unwrap().is_static());
    /// ```
    pub fn is_static(&self) -> bool {
        self.variables().next().is_none()
    }

    /// Its variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            Part::Variable { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables' values when `uri` matches, percent-decoded; `None` when it does not. A
    /// `{var}` matches one or more characters other than `/`, `?` and `#`; a `{+var}`, one
    /// or more other than `?` and `#`. Where a URI could match in more than one way, each
    /// variable takes as little as it can, from the left. Linear in the URI's length; a URI
    /// longer than [`MAX_URI`] matches nothing.
    ///
    /// ```
    /// let template = toolsmith_template::Template::parse("repo://{owner}/{+path}").unwrap();
    /// let matched = template.matches("repo://me/src/lib.rs").unwrap();
    /// assert_eq!(matched[1], ("path", "src/lib.rs".to_owned()));
    /// ```
    pub fn matches(&self, uri: &str) -> Option<Vec<(&str, String)>> {
        if uri.len() > MAX_URI {
            return None;
        }
        // `ok[p][i]`: parts `p..` match `uri[i..]` (`i` a char boundary), filled from the
        // end, one step per state: linear in the URI's length for each part.
        let len = uri.len();
        let mut ok = vec![vec![false; len + 1]; self.parts.len() + 1];
        ok[self.parts.len()][len] = true;
        let starts: Vec<(usize, char)> = uri.char_indices().collect();
        for (p, part) in self.parts.iter().enumerate().rev() {
            match part {
                Part::Literal(literal) => {
                    for &(i, _) in &starts {
                        let end = i + literal.len();
                        ok[p][i] =
                            end <= len && uri[i..].starts_with(literal.as_str()) && ok[p + 1][end];
                    }
                }
                Part::Variable { reserved, .. } => {
                    for &(i, c) in starts.iter().rev() {
                        let next = i + c.len_utf8();
                        ok[p][i] = in_class(c, *reserved) && (ok[p + 1][next] || ok[p][next]);
                    }
                }
            }
        }
        if !ok[0][0] {
            return None;
        }
        // Walk forward: each variable takes the shortest run after which the rest matches.
        let mut found = Vec::new();
        let mut at = 0;
        for (p, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(literal) => at += literal.len(),
                Part::Variable { name, .. } => {
                    let start = at;
                    for c in uri[start..].chars() {
                        at += c.len_utf8();
                        if ok[p + 1][at] {
                            break;
                        }
                    }
                    found.push((name.as_str(), decode(&uri[start..at])));
                }
            }
        }
        Some(found)
    }

    /// The URI with each variable replaced by `value(name)`, percent-encoded (a `{+var}`
    /// keeps the characters a URI reserves); a variable without a value is left out.
    pub fn expand(&self, value: impl Fn(&str) -> Option<String>) -> String {
        let mut uri = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(literal) => uri.push_str(literal),
                Part::Variable { name, reserved } => {
                    if let Some(value) = value(name) {
                        encode(&value, *reserved, &mut uri);
                    }
                }
            }
        }
        uri
    }

    /// Whether some URI matches both templates (then a read of it could not tell which one
    /// is meant).
    ///
    /// ```
    /// use toolsmith_template::Template;
    ///
    /// let notes = Template::parse("notes://{id}").unwrap();
    /// assert!(notes.overlaps(&Template::parse("notes://{name}").unwrap()));
    /// assert!(!notes.overlaps(&Template::parse("notes://{id}/tags").unwrap()));
    /// ```
    pub fn overlaps(&self, other: &Template) -> bool {
        let (a, b) = (self.elements(), other.elements());
        let mut seen = HashSet::new();
        let mut todo = vec![(0, 0)];
        while let Some((i, j)) = todo.pop() {
            if !seen.insert((i, j)) {
                continue;
            }
            if i == a.len() && j == b.len() {
                return true;
            }
            // A `*` may match nothing.
            if let Some(Element::Many(_)) = a.get(i) {
                todo.push((i + 1, j));
            }
            if let Some(Element::Many(_)) = b.get(j) {
                todo.push((i, j + 1));
            }
            let (Some(x), Some(y)) = (a.get(i), b.get(j)) else {
                continue;
            };
            if x.class().meets(&y.class()) {
                let next_i = if matches!(x, Element::Many(_)) {
                    i
                } else {
                    i + 1
                };
                let next_j = if matches!(y, Element::Many(_)) {
                    j
                } else {
                    j + 1
                };
                todo.push((next_i, next_j));
            }
        }
        false
    }

    /// The template as a sequence over characters: a literal character, one character of a
    /// variable's class, or any number of them (`{var}` is one, then many).
    fn elements(&self) -> Vec<Element> {
        let mut elements = Vec::new();
        for part in &self.parts {
            match part {
                Part::Literal(literal) => elements.extend(literal.chars().map(Element::Char)),
                Part::Variable { reserved, .. } => {
                    elements.push(Element::One(*reserved));
                    elements.push(Element::Many(*reserved));
                }
            }
        }
        elements
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

enum Element {
    Char(char),
    One(bool),
    Many(bool),
}

enum Class {
    Char(char),
    Variable { reserved: bool },
}

impl Element {
    fn class(&self) -> Class {
        match self {
            Element::Char(c) => Class::Char(*c),
            Element::One(reserved) | Element::Many(reserved) => Class::Variable {
                reserved: *reserved,
            },
        }
    }
}

impl Class {
    /// Whether one character is in both.
    fn meets(&self, other: &Class) -> bool {
        match (self, other) {
            (Class::Char(a), Class::Char(b)) => a == b,
            (Class::Char(c), Class::Variable { reserved })
            | (Class::Variable { reserved }, Class::Char(c)) => in_class(*c, *reserved),
            // Both take letters.
            (Class::Variable { .. }, Class::Variable { .. }) => true,
        }
    }
}

fn in_class(c: char, reserved: bool) -> bool {
    match c {
        '?' | '#' => false,
        '/' => reserved,
        _ => true,
    }
}

fn check_scheme(text: &str) -> Result<(), TemplateError> {
    let scheme = text.split(':').next().unwrap_or_default();
    let valid = text.contains(':')
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if valid {
        Ok(())
    } else {
        Err(error(format!(
            "`{text}` is not an absolute URI: start it with a scheme, e.g. `notes://{}`",
            text.trim_start_matches(|c: char| !c.is_ascii_alphanumeric() && c != '{')
        )))
    }
}

/// `(reserved, name)` of the text between `{` and `}`.
fn variable(inside: &str) -> Result<(bool, &str), TemplateError> {
    let (reserved, name) = match inside.strip_prefix('+') {
        Some(name) => (true, name),
        None => (false, inside),
    };
    if name.is_empty() {
        return Err(error(
            "an empty variable `{}` in the URI template: name it, e.g. `{id}`",
        ));
    }
    if let Some(op) = name.chars().next().filter(|c| {
        matches!(
            c,
            '#' | '.' | '/' | ';' | '?' | '&' | '=' | ',' | '!' | '@' | '|'
        )
    }) {
        return Err(error(format!(
            "the operator `{op}` in `{{{inside}}}` is not supported: write `{{name}}`, or `{{+name}}` for a value that may hold `/`"
        )));
    }
    if name.contains(',') || name.contains('*') || name.contains(':') {
        return Err(error(format!(
            "`{{{inside}}}` is not supported: write one variable per `{{}}`, without `*` or `:`"
        )));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(error(format!(
            "`{name}` is not a variable name: use letters, digits and `_`, as in a Rust parameter"
        )));
    }
    Ok((reserved, name))
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

fn encode(value: &str, reserved: bool, out: &mut String) {
    for byte in value.bytes() {
        let keep = byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'.' | b'_' | b'~')
            || (reserved && b":/?#[]@!$&'()*+,;=".contains(&byte));
        if keep {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Template {
        Template::parse(text).unwrap()
    }

    fn message(text: &str) -> String {
        Template::parse(text).unwrap_err().message
    }

    #[test]
    fn mistakes_are_named() {
        assert!(message("notes://{}").contains("empty variable"));
        assert!(message("notes://a}").contains("without its `{`"));
        assert!(message("notes://{?q}").contains("operator `?`"));
        assert!(message("notes://{a,b}").contains("one variable per"));
        assert!(message("notes://{a-b}").contains("not a variable name"));
        assert!(message("notes://{a}/{a}").contains("appears twice"));
        assert!(message("notes://{a}{b}").contains("follows another variable"));
        assert!(message("index").contains("not an absolute URI"));
        assert!(message("notes://a b").contains("percent-encode"));
    }

    #[test]
    fn matching_decodes_and_respects_classes() {
        let t = parse("notes://{id}/tags/{tag}");
        assert_eq!(
            t.matches("notes://7/tags/r%C3%A9sum%C3%A9").unwrap(),
            [("id", "7".to_owned()), ("tag", "résumé".to_owned())]
        );
        assert!(t.matches("notes://7/tags/").is_none());
        assert!(t.matches("notes:///tags/x").is_none());
        assert!(t.matches("notes://7/tags/x?y").is_none());
        let dotted = parse("files://{name}.{ext}");
        assert_eq!(
            dotted.matches("files://a.b.c").unwrap(),
            [("name", "a".to_owned()), ("ext", "b.c".to_owned())]
        );
    }

    #[test]
    fn hostile_uris_match_in_bounded_time() {
        let t = parse("x://{a}a{b}a{c}a{d}a{e}b");
        let uri = format!("x://{}", "a".repeat(3000));
        assert!(t.matches(&uri).is_none());
    }

    #[test]
    fn expansion_round_trips() {
        let t = parse("repo://{owner}/{+path}");
        let uri = t.expand(|name| Some(if name == "owner" { "a/b" } else { "x/y z" }.into()));
        assert_eq!(uri, "repo://a%2Fb/x/y%20z");
        assert_eq!(
            t.matches(&uri).unwrap(),
            [("owner", "a/b".to_owned()), ("path", "x/y z".to_owned())]
        );
    }

    #[test]
    fn overlaps_are_found() {
        assert!(parse("a://{x}").overlaps(&parse("a://{y}")));
        assert!(parse("a://{x}/b").overlaps(&parse("a://c/{y}")));
        assert!(!parse("a://{x}").overlaps(&parse("a://{x}/b")));
        assert!(parse("a://{+x}").overlaps(&parse("a://{y}/b")));
        assert!(!parse("a://{x}").overlaps(&parse("b://{x}")));
        assert!(!parse("a://index").overlaps(&parse("a://{x}/y")));
        assert!(parse("a://index").overlaps(&parse("a://{x}")));
    }
}

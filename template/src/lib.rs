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
    /// longer than [`MAX_URI`], or whose decoded value is not UTF-8, matches nothing.
    ///
    /// A value is decoded: `%2F` is `/`, and `%00` a NUL. A value that names a file or a
    /// key must be checked as such (`..`, separators) by whoever uses it.
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
        // Most templates a URI is tried against differ in their first literal: no table then.
        if let Some(Part::Literal(first)) = self.parts.first()
            && !uri.starts_with(first.as_str())
        {
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
                    found.push((name.as_str(), decode(&uri[start..at])?));
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
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
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

/// `text` percent-decoded; `None` when the bytes it decodes to are not UTF-8 (then the URI
/// matches nothing: a variable's value is text).
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = bytes.get(i + 1..i + 3)
            && hex.iter().all(u8::is_ascii_hexdigit)
        {
            let digit = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
            out.push(digit(hex[0]) * 16 + digit(hex[1]));
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).ok()
}

fn encode(value: &str, reserved: bool, out: &mut String) {
    for byte in value.bytes() {
        let keep = byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'.' | b'_' | b'~')
            || (reserved && b":/[]@!$&'()*+,;=".contains(&byte));
        if keep {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
}

mod overlap;
#[cfg(test)]
mod tests;

//! Reading a function's rustdoc: the tool description, and per-argument descriptions from
//! its `# Arguments` section (`` * `name` - text ``), which is left out of the description.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// One `# Arguments` entry.
pub struct ArgDoc {
    pub name: String,
    pub text: String,
    /// The doc attribute the entry stands in, for error spans.
    pub attr: Attribute,
}

/// What the rustdoc says.
#[derive(Default)]
pub struct Docs {
    /// The description: the rustdoc without its `# Arguments` section, trimmed.
    pub description: String,
    pub args: Vec<ArgDoc>,
}

struct Line<'a> {
    text: String,
    attr: &'a Attribute,
}

/// Reads the `#[doc = "..."]` attributes (what `///` and `/** */` become).
pub fn parse(attrs: &[Attribute]) -> Docs {
    let mut lines = Vec::new();
    for attr in attrs {
        if let Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            for text in s.value().lines() {
                lines.push(Line {
                    text: text.trim_end().to_owned(),
                    attr,
                });
            }
        }
    }
    let indent = lines
        .iter()
        .filter(|l| !l.text.trim().is_empty())
        .map(|l| l.text.len() - l.text.trim_start().len())
        .min()
        .unwrap_or(0);
    for line in &mut lines {
        line.text = line.text.get(indent..).unwrap_or("").to_owned();
    }
    split(&lines)
}

fn split(lines: &[Line]) -> Docs {
    let mut description: Vec<&str> = Vec::new();
    let mut args: Vec<ArgDoc> = Vec::new();
    let mut in_fence = false;
    let mut in_args = false;
    for line in lines {
        let trimmed = line.text.trim();
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence && let Some(title) = heading(trimmed) {
            let was_in_args = in_args;
            in_args = matches!(
                title.to_ascii_lowercase().as_str(),
                "arguments" | "args" | "parameters"
            );
            if in_args {
                continue;
            }
            if was_in_args {
                // The section is gone: keep the next heading apart from what came before.
                description.push("");
            }
        }
        if !in_args {
            description.push(&line.text);
            continue;
        }
        if let Some((name, text)) = entry(trimmed) {
            args.push(ArgDoc {
                name,
                text,
                attr: line.attr.clone(),
            });
        } else if let Some(last) = args.last_mut()
            && !trimmed.is_empty()
        {
            if !last.text.is_empty() {
                last.text.push(' ');
            }
            last.text.push_str(trimmed);
        }
    }
    Docs {
        description: tidy(&description),
        args,
    }
}

/// A Markdown ATX heading's title.
fn heading(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches('#');
    (rest.len() < line.len() && (rest.is_empty() || rest.starts_with(' '))).then(|| rest.trim())
}

/// `` * `name` - text `` (also `-`/`+` bullets, `:` or dashes as separators, bare names).
fn entry(line: &str) -> Option<(String, String)> {
    let rest = line.strip_prefix(['*', '-', '+'])?.trim_start();
    let (name, rest) = if let Some(quoted) = rest.strip_prefix('`') {
        let end = quoted.find('`')?;
        (&quoted[..end], &quoted[end + 1..])
    } else {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        (&rest[..end], &rest[end..])
    };
    if name.is_empty() {
        return None;
    }
    let text = rest
        .trim_start()
        .trim_start_matches(['-', ':', '\u{2013}', '\u{2014}'])
        .trim();
    Some((name.to_owned(), text.to_owned()))
}

/// Joins lines, dropping leading and trailing blank lines and runs of blank lines.
fn tidy(lines: &[&str]) -> String {
    let mut out = String::new();
    let mut blank = false;
    for line in lines {
        if line.trim().is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if blank {
            out.push_str("\n\n");
        } else if !out.is_empty() {
            out.push('\n');
        }
        blank = false;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(text: &str) -> Docs {
        let attrs: Vec<Attribute> = text
            .lines()
            .map(|l| syn::parse_quote!(#[doc = #l]))
            .collect();
        parse(&attrs)
    }

    #[test]
    fn arguments_section_is_split_out() {
        let d = docs(
            " Find notes.\n\n # Arguments\n * `query` - Text to look for.\n * `limit`: At most\n   this many.\n\n # Examples\n Call it.",
        );
        assert_eq!(d.description, "Find notes.\n\n# Examples\nCall it.");
        assert_eq!(d.args.len(), 2);
        assert_eq!(
            (d.args[0].name.as_str(), d.args[0].text.as_str()),
            ("query", "Text to look for.")
        );
        assert_eq!(d.args[1].text, "At most this many.");
    }

    #[test]
    fn hash_lines_in_code_blocks_are_not_headings() {
        let d = docs(" Do it.\n ```\n # Arguments\n ```\n");
        assert!(d.args.is_empty());
        assert!(d.description.contains("# Arguments"));
    }
}

//! `icon = "..."` (repeatable) and `icons = ["...", ...]`: the tool's icons, each checked to
//! be an `https:` or `data:` URI.

use syn::{Expr, ExprLit, Lit, LitStr};

use crate::ctxt::Ctxt;
use crate::entry::{Entry, ungroup};

const FORM: &str =
    "`icons` takes a list of string literals: `icons = [\"https://example.com/icon.png\"]`";

/// Adds the icon of an `icon = "..."` entry.
pub fn icon(cx: &Ctxt, icons: &mut Vec<LitStr>, entry: &Entry) {
    match entry.value.as_ref().map(|(_, v)| ungroup(v)) {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        })) => add(cx, icons, lit),
        Some(other) => cx.error_spanned_by(
            other,
            "`icon` takes a string literal: `icon = \"https://example.com/icon.png\"`",
        ),
        None => cx.error_spanned_by(
            &entry.key,
            "`icon` takes a string literal: `icon = \"https://example.com/icon.png\"`",
        ),
    }
}

/// Adds the icons of an `icons = [...]` entry.
pub fn icons(cx: &Ctxt, icons: &mut Vec<LitStr>, entry: &Entry) {
    let array = match entry.value.as_ref().map(|(_, v)| ungroup(v)) {
        Some(Expr::Array(array)) => array,
        Some(other) => return cx.error_spanned_by(other, FORM),
        None => return cx.error_spanned_by(&entry.key, FORM),
    };
    if array.elems.is_empty() {
        return cx.error_spanned_by(
            array,
            "`icons` is empty: list at least one icon, or remove the key",
        );
    }
    for elem in &array.elems {
        match ungroup(elem) {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => add(cx, icons, lit),
            other => cx.error_spanned_by(other, FORM),
        }
    }
}

fn add(cx: &Ctxt, icons: &mut Vec<LitStr>, lit: &LitStr) {
    let uri = lit.value();
    if let Err(why) = check(&uri) {
        return cx.error_spanned_by(lit, why);
    }
    if icons.iter().any(|i| i.value() == uri) {
        return cx.error_spanned_by(lit, "this icon is given twice: remove one");
    }
    icons.push(lit.clone());
}

/// Why `uri` cannot be an icon, if it cannot.
fn check(uri: &str) -> Result<(), &'static str> {
    let lower = uri.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("https://") {
        let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
        if host.is_empty() || uri.chars().any(char::is_whitespace) {
            return Err(
                "an `https:` icon needs a host and no spaces: `https://example.com/icon.png`",
            );
        }
        return Ok(());
    }
    if let Some(rest) = lower.strip_prefix("data:") {
        let Some((media, _data)) = rest.split_once(',') else {
            return Err(
                "a `data:` icon is `data:<type>[;base64],<data>`, e.g. `data:image/png;base64,iVBORw0...`",
            );
        };
        if !media.starts_with("image/") {
            return Err("a `data:` icon must be an image: `data:image/png;base64,...`");
        }
        return Ok(());
    }
    Err("an icon must be an `https:` or `data:` URI, e.g. `https://example.com/icon.png`")
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn https_and_data_image_uris_are_icons() {
        assert!(check("https://example.com/a.png").is_ok());
        assert!(check("HTTPS://example.com").is_ok());
        assert!(check("data:image/svg+xml;base64,PHN2Zz4=").is_ok());
        assert!(check("http://example.com/a.png").is_err());
        assert!(check("https:///a.png").is_err());
        assert!(check("data:text/plain,hi").is_err());
        assert!(check("data:image/png").is_err());
        assert!(check("icon.png").is_err());
    }
}

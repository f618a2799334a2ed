//! `scopes = ["billing:admin", ...]`: the OAuth scopes a caller needs, all of them, instead of
//! the one the hints imply. Each is one scope token (RFC 6749: printable ASCII, no space, no
//! `"` or `\`), given once.

use syn::{Expr, ExprLit, Lit, LitStr};

use crate::attr::{Entry, ungroup};
use crate::ctxt::Ctxt;

const FORM: &str = "`scopes` takes a list of string literals: `scopes = [\"billing:admin\"]`";

/// Reads a `scopes = [...]` entry into `slot`, reporting every mistake in it.
pub fn scopes(cx: &Ctxt, slot: &mut Option<Vec<LitStr>>, entry: &Entry) {
    let array = match entry.value.as_ref().map(|(_, v)| ungroup(v)) {
        Some(Expr::Array(array)) => array,
        Some(other) => return cx.error_spanned_by(other, FORM),
        None => return cx.error_spanned_by(&entry.key, FORM),
    };
    if slot.is_some() {
        return cx.error_spanned_by(
            entry.tokens(),
            "`scopes` is given twice: list every scope once",
        );
    }
    if array.elems.is_empty() {
        return cx.error_spanned_by(
            array,
            "`scopes` is empty: list the scopes a caller needs, or remove the key to use the hints' scope",
        );
    }
    let mut scopes: Vec<LitStr> = Vec::new();
    let mut clean = true;
    for elem in &array.elems {
        let Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) = ungroup(elem)
        else {
            cx.error_spanned_by(elem, FORM);
            clean = false;
            continue;
        };
        let value = lit.value();
        if let Err(why) = check(&value) {
            cx.error_spanned_by(lit, why);
            clean = false;
        } else if scopes.iter().any(|s| s.value() == value) {
            cx.error_spanned_by(lit, format!("scope {value:?} is given twice: remove one"));
            clean = false;
        } else {
            scopes.push(lit.clone());
        }
    }
    if clean {
        *slot = Some(scopes);
    }
}

/// Whether `scope` is one scope token.
fn check(scope: &str) -> Result<(), String> {
    if scope.is_empty() {
        return Err("empty scope: write a scope such as \"billing:admin\", or remove it".into());
    }
    if scope.chars().any(char::is_whitespace) {
        return Err(format!(
            "scope {scope:?} contains whitespace: a scope is one token, such as \"billing:admin\"; list several as separate strings"
        ));
    }
    if let Some(bad) = scope
        .chars()
        .find(|&c| !matches!(c, '\x21' | '\x23'..='\x5b' | '\x5d'..='\x7e'))
    {
        return Err(format!(
            "scope {scope:?} contains {bad:?}: a scope is printable ASCII without `\"` or `\\`"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn scope_tokens_are_checked() {
        assert!(check("billing:admin").is_ok());
        assert!(check("https://api.example.com/notes.read").is_ok());
        assert!(check("").is_err());
        assert!(check("a b").unwrap_err().contains("whitespace"));
        assert!(check("a\"b").is_err());
        assert!(check("a\\b").is_err());
        assert!(check("café").is_err());
    }
}

//! `scopes = ["billing:admin", ...]`: the OAuth scopes a caller needs, all of them, instead of
//! the one the hints imply. Each is one scope token (RFC 6749: printable ASCII, no space, no
//! `"` or `\`), given once.

use syn::LitStr;

use crate::ctxt::Ctxt;
use crate::entry::Entry;
use crate::list::StringList;

/// Reads a `scopes = [...]` entry into `slot`, reporting every mistake in it.
pub fn scopes(cx: &Ctxt, slot: &mut Option<Vec<LitStr>>, entry: &Entry) {
    let list = StringList {
        key: "scopes",
        item: "scope",
        form: "`scopes` takes a list of string literals: `scopes = [\"billing:admin\"]`",
        empty: "`scopes` is empty: list the scopes a caller needs, or remove the key to use the hints' scope",
    };
    list.read(cx, slot, entry, check);
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

//! Keys whose value is a list of strings (`tags = [...]`, `scopes = [...]`): one reader,
//! so that both report the same mistakes the same way.

use syn::{Expr, ExprLit, Lit, LitStr};

use crate::ctxt::Ctxt;
use crate::entry::{Entry, ungroup};

/// A `key = ["...", ...]` entry: a non-empty list of string literals, each accepted by a
/// check and given once, stated once. Every mistake in it is reported.
pub struct StringList {
    pub key: &'static str,
    /// What one element is called in messages (`tag`, `scope`).
    pub item: &'static str,
    /// How to write the entry, for a value of the wrong form.
    pub form: &'static str,
    /// What to say of an empty list.
    pub empty: &'static str,
}

impl StringList {
    /// Reads `entry` into `slot` when it has no mistake; `check` says what is wrong with an
    /// element.
    pub fn read(
        &self,
        cx: &Ctxt,
        slot: &mut Option<Vec<LitStr>>,
        entry: &Entry,
        check: impl Fn(&str) -> Result<(), String>,
    ) {
        let array = match entry.value.as_ref().map(|(_, v)| ungroup(v)) {
            Some(Expr::Array(array)) => array,
            Some(other) => return cx.error_spanned_by(other, self.form),
            None => return cx.error_spanned_by(&entry.key, self.form),
        };
        if slot.is_some() {
            let twice = format!(
                "`{}` is given twice: list every {} once",
                self.key, self.item
            );
            return cx.error_spanned_by(entry.tokens(), twice);
        }
        if array.elems.is_empty() {
            return cx.error_spanned_by(array, self.empty);
        }
        let mut items: Vec<LitStr> = Vec::new();
        let mut clean = true;
        for elem in &array.elems {
            let Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) = ungroup(elem)
            else {
                cx.error_spanned_by(elem, self.form);
                clean = false;
                continue;
            };
            let value = lit.value();
            if let Err(why) = check(&value) {
                cx.error_spanned_by(lit, why);
                clean = false;
            } else if items.iter().any(|t| t.value() == value) {
                let twice = format!("{} {value:?} is given twice: remove one", self.item);
                cx.error_spanned_by(lit, twice);
                clean = false;
            } else {
                items.push(lit.clone());
            }
        }
        if clean {
            *slot = Some(items);
        }
    }
}

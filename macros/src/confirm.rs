//! `confirm` and `confirm = "Delete note {note_id}?"`: the user is asked before every call.
//! A `{name}` in the message is the argument of that name, as the call gives it; `{{` and
//! `}}` are literal braces. Every placeholder must name a parameter of the function (checked
//! here), and that parameter must be an argument, not a context parameter (checked at its
//! type by the generated code, see [`arguments_check`]).

use proc_macro2::TokenStream;
use quote::{format_ident, quote_spanned};
use syn::{Expr, ExprLit, ExprPath, Lit, LitStr};

use crate::ast::Function;
use crate::ctxt::Ctxt;
use crate::entry::{Entry, ungroup};

/// What `confirm` says.
pub struct Confirm {
    /// The message as written, if one is given.
    pub message: Option<LitStr>,
}

/// Reads a `confirm` or `confirm = "..."` entry into `slot`.
pub fn confirm(cx: &Ctxt, slot: &mut Option<Confirm>, entry: &Entry) {
    let message = match entry.value.as_ref().map(|(_, v)| ungroup(v)) {
        None => None,
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        })) => Some(lit.clone()),
        Some(other) => {
            return cx.error_spanned_by(
                other,
                "`confirm` takes a message: `confirm = \"Delete note {note_id}?\"`, or write `confirm` alone for the default message",
            );
        }
    };
    if slot.is_some() {
        return cx.error_spanned_by(entry.tokens(), "`confirm` is given twice: remove one");
    }
    if let Some(lit) = &message
        && lit.value().trim().is_empty()
    {
        return cx.error_spanned_by(
            lit,
            "`confirm` has an empty message: write the question the user is asked, or write `confirm` alone for the default message",
        );
    }
    *slot = Some(Confirm { message });
}

/// Reads a `confirm_with = path` entry into `slot`.
pub fn confirm_with(cx: &Ctxt, slot: &mut Option<ExprPath>, entry: &Entry) {
    const TAKES: &str = "`confirm_with` takes the function that makes the question, with the tool's own parameters: `confirm_with = delete_question`";
    let path = match entry.value.as_ref().map(|(_, v)| ungroup(v)) {
        Some(Expr::Path(path)) => path.clone(),
        Some(other) => return cx.error_spanned_by(other, TAKES),
        None => return cx.error_spanned_by(&entry.key, TAKES),
    };
    if slot.is_some() {
        return cx.error_spanned_by(entry.tokens(), "`confirm_with` is given twice: remove one");
    }
    *slot = Some(path);
}

/// `confirm_with` makes the question: a message of its own as well is a contradiction.
pub fn check_with(cx: &Ctxt, confirm: Option<&Confirm>, with: &ExprPath) {
    if let Some(lit) = confirm.and_then(|confirm| confirm.message.as_ref()) {
        cx.error_spanned_by(
            lit,
            "`confirm_with` makes the question: remove this message, or `confirm_with`",
        );
    }
    let _ = with;
}

/// The names a message interpolates, in order, or what is wrong with its braces.
pub fn placeholders(message: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
            }
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some('{') | None => {
                            return Err(
                                "`confirm` has a `{` that is not closed: write `{name}` for an argument, or `{{` for a brace"
                                    .into(),
                            );
                        }
                        Some(c) => name.push(c),
                    }
                }
                let name = name.trim().to_owned();
                if name.is_empty() {
                    return Err(
                        "`confirm` has an empty `{}`: name an argument inside, such as `{note_id}`, or write `{{}}` for braces"
                            .into(),
                    );
                }
                names.push(name);
            }
            '}' => {
                return Err(
                    "`confirm` has a `}` that opens nothing: write `}}` for a brace".into(),
                );
            }
            _ => {}
        }
    }
    Ok(names)
}

/// Checks the message's placeholders against the function's parameters: one error for every
/// name that is not a parameter, saying which names exist.
pub fn check(cx: &Ctxt, confirm: &Confirm, function: &Function) {
    let Some(lit) = &confirm.message else { return };
    let names = match placeholders(&lit.value()) {
        Ok(names) => names,
        Err(problem) => return cx.error_spanned_by(lit, problem),
    };
    for name in names {
        if function.has_param(&name) {
            continue;
        }
        // Only what a message can show: a context parameter (by its type's name) is no
        // suggestion, it would fail next.
        let known: Vec<String> = function
            .params
            .iter()
            .filter(|p| !looks_like_context(&p.ty))
            .map(|p| format!("`{{{}}}`", p.name))
            .collect();
        let has = if known.is_empty() {
            "the tool has no arguments to show: remove the placeholder, or make the question with `confirm_with = function`".to_owned()
        } else {
            format!("use one of {}", known.join(", "))
        };
        cx.error_spanned_by(
            lit,
            format!(
                "`confirm` names `{{{name}}}`, which is not a parameter of this function: {has}"
            ),
        );
    }
}

/// Whether `ty` names one of the runtime's context types (`State<T>`, `Progress`, ...): a
/// guess by its last path segment, for suggestions only (the type check decides).
fn looks_like_context(ty: &syn::Type) -> bool {
    const CONTEXT: [&str; 10] = [
        "State",
        "Progress",
        "Cancellation",
        "ClientLog",
        "Resources",
        "Caller",
        "Elicit",
        "Sample",
        "AskClient",
        "CallContext",
    ];
    match ty {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|last| CONTEXT.contains(&last.ident.to_string().as_str())),
        syn::Type::Reference(reference) => looks_like_context(&reference.elem),
        _ => false,
    }
}

/// For each parameter the message names, a check at the message that the parameter is an
/// argument: a context parameter (`State<T>`, `Progress`, ...) has no value to show.
pub fn arguments_check(confirm: &Confirm, function: &Function) -> TokenStream {
    let Some(lit) = &confirm.message else {
        return TokenStream::new();
    };
    let names = placeholders(&lit.value()).unwrap_or_default();
    let checks = function
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| names.contains(&p.name))
        .map(|(i, param)| {
            let ty = &param.ty;
            let ident = format_ident!("__toolsmith_confirm_check{}", i);
            quote_spanned! {lit.span()=>
                #[allow(dead_code)]
                fn #ident() {
                    (&&::toolsmith::__private::Probe::<#ty>::NEW).assert_shown_in_confirm();
                }
            }
        });
    quote::quote!(#(#checks)*)
}

#[cfg(test)]
mod tests {
    use super::placeholders;

    #[test]
    fn placeholders_are_read_and_braces_escaped() {
        assert_eq!(placeholders("Delete note {note_id}?").unwrap(), ["note_id"]);
        assert_eq!(placeholders("Move {a} to { b }").unwrap(), ["a", "b"]);
        assert!(placeholders("A set {{x}}").unwrap().is_empty());
        assert!(placeholders("Delete?").unwrap().is_empty());
        for bad in ["Delete {note_id", "Delete {}", "Delete }", "{a{b}}"] {
            assert!(placeholders(bad).is_err(), "{bad}");
        }
    }
}

//! `complete(arg = fn, ...)`: the fns that complete a resource template's variables or a
//! prompt's arguments. Each names an argument of the item (checked here) and a fn
//! `fn(&str, &toolsmith::complete::Completion) -> Vec<String>` (sync or `async`; checked by the
//! compiler at the fn's path).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Ident, Path, Token};

use crate::ctxt::Ctxt;
use crate::entry::Entry;

/// One `arg = fn`.
pub struct Complete {
    pub argument: Ident,
    pub func: Path,
}

struct Pair {
    argument: Ident,
    func: Option<Path>,
}

impl syn::parse::Parse for Pair {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let argument: Ident = syn::ext::IdentExt::parse_any(input)?;
        let func = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(Pair { argument, func })
    }
}

/// Reads `complete(arg = fn, ...)` into `slot`.
pub fn parse(cx: &Ctxt, slot: &mut Vec<Complete>, entry: &Entry) {
    let form = "`complete` takes `argument = fn` pairs: `complete(note_id = note_ids)`";
    let Some(args) = &entry.args else {
        return cx.error_spanned_by(entry.tokens(), form);
    };
    let pairs = match Punctuated::<Pair, Token![,]>::parse_terminated.parse2(args.clone()) {
        Ok(pairs) => pairs,
        Err(err) => return cx.error_spanned_by(args, format!("{form} ({err})")),
    };
    if pairs.is_empty() {
        return cx.error_spanned_by(entry.tokens(), form);
    }
    for pair in pairs {
        let Some(func) = pair.func else {
            cx.error_spanned_by(
                &pair.argument,
                format!(
                    "`{0}` needs the fn that completes it: `complete({0} = fn_name)`",
                    pair.argument
                ),
            );
            continue;
        };
        if slot.iter().any(|c| c.argument == pair.argument) {
            cx.error_spanned_by(
                &pair.argument,
                format!("`{}` is completed twice: keep one fn", pair.argument),
            );
            continue;
        }
        slot.push(Complete {
            argument: pair.argument,
            func,
        });
    }
}

/// Every completed argument must be one of `names` (what `what` calls them).
pub fn check(cx: &Ctxt, completes: &[Complete], names: &[String], what: &str) {
    for complete in completes {
        let name = complete.argument.to_string();
        let name = name.trim_start_matches("r#");
        if !names.iter().any(|n| n == name) {
            let known = if names.is_empty() {
                format!("it has no {what}")
            } else {
                format!(
                    "use one of {}",
                    names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            cx.error_spanned_by(
                &complete.argument,
                format!("`complete` names `{name}`, which is not one of its {what}: {known}"),
            );
        }
    }
}

/// Per completion, its fn (`__toolsmith_complete{i}`) and its `CompleteDef`.
pub fn defs(completes: &[Complete]) -> (TokenStream, Vec<TokenStream>) {
    let mut fns = TokenStream::new();
    let mut defs = Vec::new();
    for (i, complete) in completes.iter().enumerate() {
        let ident = format_ident!("__toolsmith_complete{}", i);
        let func = &complete.func;
        let candidates = quote_spanned! {func.span()=>
            (&&::toolsmith::__private::completed(
                ::toolsmith::__private::complete_call(#func, value, completion),
            ))
            .candidates()
        };
        fns.extend(quote! {
            fn #ident<'a>(
                value: &'a str,
                completion: &'a ::toolsmith::complete::Completion,
            ) -> ::toolsmith::__private::Candidates<'a> {
                #[allow(unused_imports)]
                use ::toolsmith::__private::{CompleteLater as _, CompleteNow as _};
                #candidates
            }
        });
        let argument = complete.argument.to_string();
        let argument = argument.trim_start_matches("r#");
        defs.push(quote! {
            ::toolsmith::__private::CompleteDef { argument: #argument, complete: #ident }
        });
    }
    (fns, defs)
}

//! What `#[resource]` and `#[prompt]` generate alike: the entry (the item parsed, the
//! attribute and the function modelled, the user's item emitted as written next to every
//! error), and the registration (the function with a rustdoc line, the item that makes a
//! duplicate in one module a compile error, and an anonymous const with the parameters'
//! kinds and schemas, the invocation, the completion fns and the submitted definition). Each
//! attribute adds its own checks and fields through an [`Emit`].

use proc_macro2::TokenStream;
use quote::quote;
use syn::Attribute;

use crate::ast::{self, Function, Kind};
use crate::ctxt::Ctxt;
use crate::expand::with_errors;
use crate::item::{self, ItemAttrs};

/// One attribute's part of the registration.
pub struct Emit {
    /// The definition's type (`::toolsmith::__private::ResourceDef`).
    pub def: TokenStream,
    pub name: String,
    pub description: String,
    /// The line added to the rustdoc.
    pub doc_line: String,
    /// The item two declarations of one URI or name in a module collide on.
    pub unique: TokenStream,
    /// Type checks, at their own spans.
    pub checks: TokenStream,
    /// `fn __toolsmith_invoke`.
    pub invoke: TokenStream,
    /// The definition's fields besides the shared ones.
    pub fields: TokenStream,
}

/// The expansion of `kind`'s attribute: `body` checks what is the attribute's own and says
/// what to emit, or `None` (then only the errors and the item as written are emitted).
pub fn expand(
    args: TokenStream,
    input: TokenStream,
    kind: Kind,
    body: impl FnOnce(&Ctxt, &ItemAttrs, &Function) -> Option<Emit>,
) -> TokenStream {
    let item = match crate::expand::parse_item(input) {
        Ok(item) => item,
        Err(as_written) => return as_written,
    };
    let cx = Ctxt::default();
    let attrs = item::parse(&cx, args, kind)
        .map_err(|e| cx.syn_error(e))
        .ok();
    let function = match ast::parse_as(&cx, item, kind) {
        Ok(function) => function,
        Err(item) => return with_errors(cx, quote!(#item)),
    };
    let emit = attrs.as_ref().and_then(|attrs| {
        crate::valid::argument_docs(&cx, &function);
        body(&cx, attrs, &function)
    });
    match (attrs, emit, cx.is_clean()) {
        (Some(attrs), Some(emit), true) => registration(&attrs, &function, emit),
        _ => {
            let item = &function.item;
            with_errors(cx, quote!(#item))
        }
    }
}

fn registration(attrs: &ItemAttrs, function: &Function, emit: Emit) -> TokenStream {
    let Emit {
        def,
        name,
        description,
        doc_line,
        unique,
        checks,
        invoke,
        fields,
    } = emit;
    let mut item = function.item.clone();
    item.attrs.push(syn::parse_quote!(#[doc = ""]));
    item.attrs.push(syn::parse_quote!(#[doc = #doc_line]));
    let cfgs: Vec<&Attribute> = function
        .item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .collect();
    let kinds = crate::invoke::kinds(function);
    let (schema_fns, params) = crate::expand::param_defs(function);
    let (complete_fns, completes) = crate::complete::defs(&attrs.completes);
    let title = item::optional(attrs.title.as_ref().map(|t| &t.lit));
    let icons = &attrs.icons;
    let scopes = attrs.scopes.iter().flatten();
    let timeout = item::timeout_tokens(&attrs.timeout);
    let ident = &function.item.sig.ident;
    let item_def = crate::expand::item_def(&name, ident, &title, &description, icons, scopes);
    quote! {
        #item

        #(#cfgs)*
        #unique

        #(#cfgs)*
        #[doc(hidden)]
        const _: () = {
            #[allow(unused_imports)]
            use ::toolsmith::__private::{
                ContextParam as _, Fallback as _, JsonParam as _, PromptFallback as _,
            };
            #checks
            #kinds
            #(#schema_fns)*
            #invoke
            #complete_fns
            ::toolsmith::__private::inventory::submit! {
                #def {
                    item: #item_def,
                    params: &[#(#params),*],
                    timeout: #timeout,
                    completions: &[#(#completes),*],
                    invoke: __toolsmith_invoke,
                    #fields
                }
            }
        };
    }
}

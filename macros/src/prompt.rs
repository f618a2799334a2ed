//! `#[prompt]`: a function whose parameters are a prompt's arguments (`Option<T>`: optional;
//! the rustdoc's `# Arguments` describes them) and whose value is its messages: a `String`
//! (one user message), a `PromptMessage` or a `Vec<PromptMessage>`, also inside `Result`. The
//! function stays as written; an anonymous const submits its `PromptDef`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Item, Type};

use crate::ast::{self, Function, Kind, generic_arg};
use crate::ctxt::Ctxt;
use crate::item::{self, ItemAttrs};

/// The whole expansion of `#[prompt(args)] input`.
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: Item = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(err) => {
            let err = err.to_compile_error();
            return quote!(#err #input);
        }
    };
    let cx = Ctxt::default();
    let attrs = item::parse(&cx, args, Kind::Prompt)
        .map_err(|e| cx.syn_error(e))
        .ok();
    let function = match ast::parse_as(&cx, item, Kind::Prompt) {
        Ok(function) => function,
        Err(item) => return item::with_errors(cx, quote!(#item)),
    };
    let Some(attrs) = attrs else {
        let item = &function.item;
        return item::with_errors(cx, quote!(#item));
    };
    let name = item::name(&cx, &attrs, &function, Kind::Prompt);
    let description = item::description(&cx, &attrs, &function, Kind::Prompt);
    crate::valid::argument_docs(&cx, &function);
    let params: Vec<String> = function.params.iter().map(|p| p.name.clone()).collect();
    crate::complete::check(&cx, &attrs.completes, &params, "arguments");
    let output = output(&cx, &function);
    match (output, cx.is_clean()) {
        (Some(output), true) => generate(&attrs, &function, &name, &description, &output),
        _ => {
            let item = &function.item;
            item::with_errors(cx, quote!(#item))
        }
    }
}

/// The return type: its `Result`, if any, and the messages inside.
struct Returns {
    result: Option<Type>,
    messages: Type,
}

fn output(cx: &Ctxt, function: &Function) -> Option<Returns> {
    let syn::ReturnType::Type(_, ty) = &function.item.sig.output else {
        cx.error_spanned_by(
            &function.item.sig.ident,
            "a prompt returns its messages: `String` (one user message), `PromptMessage` or `Vec<PromptMessage>`",
        );
        return None;
    };
    Some(match generic_arg(ty, "Result") {
        Some(inner) => Returns {
            result: Some((**ty).clone()),
            messages: inner.clone(),
        },
        None => Returns {
            result: None,
            messages: (**ty).clone(),
        },
    })
}

fn generate(
    attrs: &ItemAttrs,
    function: &Function,
    name: &str,
    description: &str,
    returns: &Returns,
) -> TokenStream {
    let mut item = function.item.clone();
    let doc_line = format!(" **MCP prompt** `{name}`.");
    item.attrs.push(syn::parse_quote!(#[doc = ""]));
    item.attrs.push(syn::parse_quote!(#[doc = #doc_line]));
    let cfgs: Vec<&Attribute> = function
        .item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .collect();
    let span = attrs
        .name
        .as_ref()
        .map_or(function.item.sig.ident.span(), |n| n.lit.span());
    let unique = item::unique("__toolsmith_two_prompts_have_this_name_", name, span);
    let messages = &returns.messages;
    let ok = quote!(|value: #messages| ::toolsmith::__private::Prompted::<#messages>::NEW.messages(value));
    let invoke = crate::invoke::invoke_with(function, |call| match &returns.result {
        Some(ty) => quote!(::toolsmith::__private::Typed::<#ty>::NEW.result(#call, #ok)),
        None => quote!((#ok)(#call)),
    });
    let mut checks = quote_spanned! {messages.span()=>
        const _: () = ::toolsmith::__private::assert_messages::<#messages>();
    };
    if let Some(ty) = &returns.result {
        checks.extend(quote_spanned! {ty.span()=>
            const _: () = ::toolsmith::__private::assert_result::<#ty>();
        });
    }
    let kinds = crate::invoke::kinds(function);
    let (schema_fns, params) = crate::expand::param_defs(function);
    let (complete_fns, completes) = crate::complete::defs(&attrs.completes);
    let title = item::optional(attrs.title.as_ref().map(|t| &t.lit));
    let icons = &attrs.icons;
    let scopes = attrs.scopes.iter().flatten();
    let timeout = item::timeout_tokens(&attrs.timeout);
    let ident = &function.item.sig.ident;
    let rust_path = format!("::{}", ident.to_string().trim_start_matches("r#"));
    let line = quote_spanned!(ident.span()=> ::core::line!());
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
                ::toolsmith::__private::PromptDef {
                    name: #name,
                    rust_path: ::core::concat!(::core::module_path!(), #rust_path),
                    file: ::core::file!(),
                    line: #line,
                    title: #title,
                    description: #description,
                    icons: &[#(#icons),*],
                    scopes: &[#(#scopes),*],
                    params: &[#(#params),*],
                    timeout: #timeout,
                    completions: &[#(#completes),*],
                    invoke: __toolsmith_invoke,
                }
            }
        };
    }
}

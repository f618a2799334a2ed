//! `#[prompt]`: a function whose parameters are a prompt's arguments (`Option<T>`: optional;
//! the rustdoc's `# Arguments` describes them) and whose value is its messages: a `String`
//! (one user message), a `PromptMessage` or a `Vec<PromptMessage>`, also inside `Result`. The
//! function stays as written; an anonymous const submits its `PromptDef`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use crate::ast::{Function, Kind, generic_arg};
use crate::ctxt::Ctxt;
use crate::emit::Emit;
use crate::item::{self, ItemAttrs};

/// The whole expansion of `#[prompt(args)] input`.
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    crate::emit::expand(args, input, Kind::Prompt, |cx, attrs, function| {
        let name = item::name(cx, attrs, function, Kind::Prompt);
        let description = item::description(cx, attrs, function, Kind::Prompt);
        let params: Vec<String> = function
            .params
            .iter()
            .map(|p| p.name.clone())
            .chain(function.refused.iter().cloned())
            .collect();
        crate::complete::check(cx, &attrs.completes, &params, "arguments");
        let returns = output(cx, function)?;
        Some(emit(attrs, function, name, description, &returns))
    })
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

fn emit(
    attrs: &ItemAttrs,
    function: &Function,
    name: String,
    description: String,
    returns: &Returns,
) -> Emit {
    let span = attrs
        .name
        .as_ref()
        .map_or(function.item.sig.ident.span(), |n| n.lit.span());
    let unique = item::unique("__toolsmith_two_prompts_have_this_name_", &name, span);
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
    Emit {
        def: quote!(::toolsmith::__private::PromptDef),
        doc_line: format!(" **MCP prompt** `{name}`."),
        name,
        description,
        unique,
        checks,
        invoke,
        fields: TokenStream::new(),
    }
}

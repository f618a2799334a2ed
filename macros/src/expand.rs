//! Generating the registration: the function stays as written (plus a rustdoc line listing
//! its hints) and an anonymous const submits its `ToolDef` to the registry.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Item, LitStr};

use crate::ast::{self, Function, OutputKind};
use crate::attr::{self, Attrs};
use crate::ctxt::Ctxt;
use crate::invoke;
use crate::valid::{self, Warning};

/// The whole expansion of `#[tool(args)] input`.
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match parse_item(input) {
        Ok(item) => item,
        Err(as_written) => return as_written,
    };
    let cx = Ctxt::default();
    let attrs = attr::parse(&cx, args).map_err(|e| cx.syn_error(e)).ok();
    let function = match ast::parse(&cx, item) {
        Ok(function) => function,
        Err(item) => return with_errors(cx, quote!(#item)),
    };
    let warnings = match &attrs {
        Some(attrs) => valid::check(&cx, attrs, &function),
        None => Vec::new(),
    };
    match (attrs, cx.is_clean()) {
        (Some(attrs), true) => generate(&attrs, &function, &warnings),
        _ => {
            let item = &function.item;
            with_errors(cx, quote!(#item))
        }
    }
}

/// The item an attribute is on, or, when it does not parse, the expansion that says so:
/// the error and the input as written (for `#[tool]`, `#[resource]` and `#[prompt]`).
pub fn parse_item(input: TokenStream) -> Result<Item, TokenStream> {
    syn::parse2(input.clone()).map_err(|err| {
        let err = err.to_compile_error();
        quote!(#err #input)
    })
}

/// The user's item as written, next to every recorded error: nothing else is generated, so
/// no follow-on error can pile up.
pub fn with_errors(cx: Ctxt, item: TokenStream) -> TokenStream {
    let errors = cx.check().err().map(|e| e.to_compile_error());
    quote!(#errors #item)
}

fn generate(attrs: &Attrs, function: &Function, warnings: &[Warning]) -> TokenStream {
    let (name, _) = valid::tool_name(attrs, function);
    let hints = attrs.hints();
    let description = match &attrs.description {
        Some(text) => text.lit.value(),
        None => function.docs.description.clone(),
    };
    let title = match &attrs.title {
        Some(text) => {
            let lit = &text.lit;
            quote!(::core::option::Option::Some(#lit))
        }
        None => quote!(::core::option::Option::None),
    };

    let category = match &attrs.category {
        Some(text) => {
            let lit = &text.lit;
            quote!(::core::option::Option::Some(#lit))
        }
        None => quote!(::core::option::Option::None),
    };
    let tags = attrs.tags.iter().flatten();
    let icons = &attrs.icons;
    let scopes = attrs.scopes.iter().flatten();

    let mut item = function.item.clone();
    let doc_line = format!(
        " **MCP tool** `{name}`: {}{}{}.",
        hints.describe(),
        if attrs.confirm.is_some() || attrs.confirm_with.is_some() {
            ", asks the user first"
        } else {
            ""
        },
        attrs
            .title
            .as_ref()
            .map(|t| format!("; title \"{}\"", t.lit.value()))
            .unwrap_or_default()
    );
    item.attrs.push(syn::parse_quote!(#[doc = ""]));
    item.attrs.push(syn::parse_quote!(#[doc = #doc_line]));
    let cfgs: Vec<&Attribute> = function
        .item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .collect();

    let invoke = invoke::invoke(function);
    let kinds = invoke::kinds(function);
    let checks = invoke::checks(function);
    let timeout = match &attrs.timeout {
        Some((millis, text)) => quote! {
            ::core::option::Option::Some(::toolsmith::__private::Timeout { millis: #millis, text: #text })
        },
        None => quote!(::core::option::Option::None),
    };
    let blocking = attrs.blocking.is_some();
    let (schema_fns, params) = param_defs(function);
    let (output, output_fn) = match &function.output.kind {
        OutputKind::Unit => (quote!(::toolsmith::__private::OutputDef::Empty), None),
        OutputKind::Text => (quote!(::toolsmith::__private::OutputDef::Text), None),
        OutputKind::Content(_) => (quote!(::toolsmith::__private::OutputDef::Content), None),
        OutputKind::Json(ty) | OutputKind::Linked(ty) => {
            let typed = quote_spanned!(ty.span()=> ::toolsmith::__private::Typed::<#ty>::NEW);
            (
                quote!(::toolsmith::__private::OutputDef::Json(__toolsmith_output)),
                Some(quote! {
                    fn __toolsmith_output() -> ::toolsmith::__private::OutputSchema {
                        #typed.output_schema()
                    }
                }),
            )
        }
    };
    let ident = &function.item.sig.ident;
    let item_def = item_def(&name, ident, &title, &description, icons, scopes);
    let (read_only, destructive, idempotent, open_world) = (
        hints.read_only,
        hints.destructive,
        hints.idempotent,
        hints.open_world,
    );
    let (confirm, confirm_checks) = match (&attrs.confirm, &attrs.confirm_with) {
        (_, Some(with)) => (
            quote!(::toolsmith::__private::ConfirmDef {
                asks: true,
                message: ::core::option::Option::None,
                question: ::core::option::Option::Some(__toolsmith_question),
            }),
            crate::invoke::question(function, with),
        ),
        (Some(confirm), None) => {
            let message = match &confirm.message {
                Some(lit) => quote!(::core::option::Option::Some(#lit)),
                None => quote!(::core::option::Option::None),
            };
            (
                quote!(::toolsmith::__private::ConfirmDef {
                    asks: true,
                    message: #message,
                    question: ::core::option::Option::None,
                }),
                crate::confirm::arguments_check(confirm, function),
            )
        }
        (None, None) => (
            quote!(::toolsmith::__private::ConfirmDef {
                asks: false,
                message: ::core::option::Option::None,
                question: ::core::option::Option::None,
            }),
            TokenStream::new(),
        ),
    };
    let warnings = warnings.iter().map(warning);
    let json_schema = attrs.json_schema.is_some();
    let task = match &attrs.task {
        None => quote!(::toolsmith::__private::TaskSupport::Never),
        Some(attr::Task { required: false }) => {
            quote!(::toolsmith::__private::TaskSupport::Optional)
        }
        Some(attr::Task { required: true }) => {
            quote!(::toolsmith::__private::TaskSupport::Required)
        }
    };
    let max_concurrency = match attrs.max_concurrency {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };

    quote! {
        #item

        #(#cfgs)*
        #[doc(hidden)]
        const _: () = {
            #[allow(unused_imports)]
            use ::toolsmith::__private::{ContextParam as _, Fallback as _, JsonParam as _};
            #(#warnings)*
            #checks
            #confirm_checks
            #kinds
            #(#schema_fns)*
            #output_fn
            #invoke
            ::toolsmith::__private::inventory::submit! {
                ::toolsmith::__private::ToolDef {
                    item: #item_def,
                    package: match ::core::option_env!("CARGO_PKG_NAME") {
                        ::core::option::Option::Some(name) => name,
                        ::core::option::Option::None => "unknown",
                    },
                    version: match ::core::option_env!("CARGO_PKG_VERSION") {
                        ::core::option::Option::Some(version) => version,
                        ::core::option::Option::None => "0.0.0",
                    },
                    about: ::toolsmith::__private::PackageAbout {
                        description: ::core::option_env!("CARGO_PKG_DESCRIPTION"),
                        authors: ::core::option_env!("CARGO_PKG_AUTHORS"),
                        repository: ::core::option_env!("CARGO_PKG_REPOSITORY"),
                        homepage: ::core::option_env!("CARGO_PKG_HOMEPAGE"),
                        license: ::core::option_env!("CARGO_PKG_LICENSE"),
                    },
                    category: #category,
                    tags: &[#(#tags),*],
                    hints: ::toolsmith::__private::Hints {
                        read_only: #read_only,
                        destructive: #destructive,
                        idempotent: #idempotent,
                        open_world: #open_world,
                    },
                    params: &[#(#params),*],
                    json_schema: #json_schema,
                    max_concurrency: #max_concurrency,
                    timeout: #timeout,
                    blocking: #blocking,
                    confirm: #confirm,
                    task: #task,
                    output: #output,
                    invoke: __toolsmith_invoke,
                }
            }
        };
    }
}

/// What every definition starts with (`ItemDef`): for `#[tool]`, `#[resource]` and
/// `#[prompt]` alike.
pub fn item_def<I: quote::ToTokens, S: quote::ToTokens>(
    name: &str,
    ident: &syn::Ident,
    title: &TokenStream,
    description: &str,
    icons: impl IntoIterator<Item = I>,
    scopes: impl IntoIterator<Item = S>,
) -> TokenStream {
    let rust_path = format!("::{}", ident.to_string().trim_start_matches("r#"));
    let line = quote_spanned!(ident.span()=> ::core::line!());
    let (icons, scopes) = (icons.into_iter(), scopes.into_iter());
    quote! {
        ::toolsmith::__private::ItemDef {
            name: #name,
            rust_path: ::core::concat!(::core::module_path!(), #rust_path),
            file: ::core::file!(),
            line: #line,
            title: #title,
            description: #description,
            icons: &[#(#icons),*],
            scopes: &[#(#scopes),*],
        }
    }
}

/// Per parameter: its schema and type functions, and its `ParamDef` (for `#[tool]`,
/// `#[resource]` and `#[prompt]` alike).
pub fn param_defs(function: &Function) -> (Vec<TokenStream>, Vec<TokenStream>) {
    // Every parameter has a `ParamDef`: the runtime leaves context parameters (by their kind)
    // out of the input schema, and never calls their schema function.
    let schema_fns: Vec<TokenStream> = function
        .params
        .iter()
        .enumerate()
        .map(|(i, param)| {
            let ty = param.optional.as_ref().unwrap_or(&param.ty);
            let ident = format_ident!("__toolsmith_schema{}", i);
            let type_ident = format_ident!("__toolsmith_type{}", i);
            let typed = quote_spanned!(ty.span()=> ::toolsmith::__private::Typed::<#ty>::NEW);
            let full = &param.ty;
            let typed_full =
                quote_spanned!(full.span()=> ::toolsmith::__private::Typed::<#full>::NEW);
            quote! {
                fn #ident(
                    generator: &mut ::toolsmith::__private::schemars::SchemaGenerator,
                ) -> ::toolsmith::__private::schemars::Schema {
                    #typed.param_schema(generator)
                }
                fn #type_ident() -> ::core::option::Option<::core::any::TypeId> {
                    #typed_full.param_type()
                }
            }
        })
        .collect();
    let params: Vec<TokenStream> = function
        .params
        .iter()
        .enumerate()
        .map(|(i, param)| {
            let name = &param.name;
            let required = param.optional.is_none();
            let description = match function.docs.args.iter().find(|a| a.name == *name) {
                Some(doc) if !doc.text.is_empty() => {
                    let text = &doc.text;
                    quote!(::core::option::Option::Some(#text))
                }
                _ => quote!(::core::option::Option::None),
            };
            let schema = format_ident!("__toolsmith_schema{}", i);
            let type_id = format_ident!("__toolsmith_type{}", i);
            let kind = format_ident!("__toolsmith_kind{}", i);
            quote! {
                ::toolsmith::__private::ParamDef {
                    name: #name,
                    description: #description,
                    required: #required,
                    schema: #schema,
                    type_id: #type_id,
                    kind: #kind,
                }
            }
        })
        .collect();
    (schema_fns, params)
}

/// A warning on stable Rust: using a deprecated item whose note is the message, at the span
/// the warning is about (the rustc line reads "use of deprecated function
/// `tool_name_contradicts_its_hints`: <message>").
fn warning(warning: &Warning) -> TokenStream {
    let definition = Ident::new("tool_name_contradicts_its_hints", Span::call_site());
    let use_site = Ident::new("tool_name_contradicts_its_hints", warning.span);
    // A macro's only stable way to warn is a deprecated item: the note says what it is.
    let message = format!(
        "(toolsmith's name lint, not a deprecation) {}",
        warning.message
    );
    let note = LitStr::new(&message, Span::call_site());
    quote! {
        #[deprecated(note = #note)]
        const fn #definition() {}
        const _: () = #use_site();
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    #[test]
    fn rustdoc_gains_a_line_listing_the_hints() {
        let out = super::tool(
            quote!(read_only, closed_world, title = "Search notes"),
            quote! {
                /// Find notes.
                fn search_notes(query: String) -> Vec<String> { vec![query] }
            },
        );
        let file: syn::File = syn::parse2(out).expect("the expansion parses");
        let syn::Item::Fn(function) = &file.items[0] else {
            panic!("the function comes first")
        };
        let docs: Vec<String> = function
            .attrs
            .iter()
            .filter_map(|a| match &a.meta {
                syn::Meta::NameValue(nv) => {
                    Some(quote::ToTokens::to_token_stream(&nv.value).to_string())
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            docs.last().unwrap(),
            "\" **MCP tool** `search_notes`: read-only, idempotent, closed-world; title \\\"Search notes\\\".\""
        );
    }

    #[test]
    fn on_error_the_function_is_emitted_as_written() {
        let input = quote! {
            /// Docs.
            fn f() {}
        };
        let out = super::tool(quote!(readonly), input.clone()).to_string();
        assert!(out.starts_with(":: core :: compile_error !"), "{out}");
        assert!(out.ends_with(&input.to_string()), "{out}");
        assert!(!out.contains("inventory"), "{out}");
    }
}

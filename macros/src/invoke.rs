//! Generating the call path of a tool: `__toolsmith_invoke`, which takes each parameter
//! from the arguments or the call's context and hands the body to the runtime, each
//! parameter's kind (argument or context, decided by its type in the runtime) and the type
//! checks of its parameters and return type.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use crate::ast::{Function, OutputKind};

/// `fn __toolsmith_invoke(args) -> Invocation`: takes every parameter, from the arguments or
/// from the call's context as its type decides, then hands the call to the runtime (sync
/// bodies run off the reactor).
pub fn invoke(function: &Function) -> TokenStream {
    invoke_with(function, |call| convert(function, call))
}

/// `__toolsmith_invoke`, its value turned into an `Outcome` by `convert` (given the call
/// expression).
pub fn invoke_with(
    function: &Function,
    convert: impl FnOnce(TokenStream) -> TokenStream,
) -> TokenStream {
    let ident = &function.item.sig.ident;
    let (binds, takes) = takes(function);
    // In a program that compiles, every `None` was recorded in the arguments, so `finish`
    // has already returned: the `else` is only there for the compiler.
    let unwrap = (!binds.is_empty()).then(|| {
        quote! {
            let ( #(::core::option::Option::Some(#binds),)* ) = ( #(#binds,)* ) else {
                return ::toolsmith::__private::Invocation::Invalid(
                    ::std::string::String::from("a parameter could not be made"),
                );
            };
        }
    });
    let mutability = (!binds.is_empty()).then(|| quote!(mut));
    let call = if function.is_async {
        quote!(#ident(#(#binds),*).await)
    } else {
        quote!(#ident(#(#binds),*))
    };
    let convert = convert(call);
    let run = if function.is_async {
        quote!(::toolsmith::__private::boxed_async(async move { #convert }))
    } else {
        quote!(::toolsmith::__private::boxed_blocking(move || #convert))
    };
    quote! {
        fn __toolsmith_invoke(
            #mutability __toolsmith_args: ::toolsmith::__private::Arguments<'_>,
            __toolsmith_ctx: &::toolsmith::__private::CallContext,
        ) -> ::toolsmith::__private::Invocation {
            let _ = __toolsmith_ctx;
            #(#takes)*
            if let ::core::result::Result::Err(answer) = __toolsmith_args.finish() {
                return answer;
            }
            #unwrap
            #run
        }
    }
}

/// One binding per parameter, and the statements that take each one from the arguments or
/// the call's context (`Option`s: `None` when a problem was recorded).
fn takes(function: &Function) -> (Vec<syn::Ident>, Vec<TokenStream>) {
    let binds: Vec<_> = (0..function.params.len())
        .map(|i| format_ident!("__toolsmith_arg{}", i))
        .collect();
    let takes = function
        .params
        .iter()
        .zip(&binds)
        .enumerate()
        .map(|(index, (param, bind))| {
            let probe = probe(&param.ty);
            quote! {
                let #bind = #probe.role().take(&mut __toolsmith_args, __toolsmith_ctx, #index);
            }
        })
        .collect();
    (binds, takes)
}

/// `fn __toolsmith_question(args, ctx) -> Option<String>` for `confirm_with = with`: the
/// tool's parameters taken as for a call, handed to `with`, whose value (anything
/// `Display`) is the question; `None` when a parameter cannot be made.
pub fn question(function: &Function, with: &syn::ExprPath) -> TokenStream {
    let (binds, takes) = takes(function);
    let mutability = (!binds.is_empty()).then(|| quote!(mut));
    let unwrap = (!binds.is_empty()).then(|| {
        quote! {
            let ( #(::core::option::Option::Some(#binds),)* ) = ( #(#binds,)* ) else {
                return ::core::option::Option::None;
            };
        }
    });
    // At the function's path: a parameter list that differs from the tool's is an error
    // there.
    let spanned = binds
        .iter()
        .map(|bind| syn::Ident::new(&bind.to_string(), with.span()));
    let call = quote_spanned!(with.span()=> #with(#(#spanned),*));
    quote! {
        fn __toolsmith_question(
            #mutability __toolsmith_args: ::toolsmith::__private::Arguments<'_>,
            __toolsmith_ctx: &::toolsmith::__private::CallContext,
        ) -> ::core::option::Option<::std::string::String> {
            let _ = __toolsmith_ctx;
            #(#takes)*
            __toolsmith_args.finish().ok()?;
            #unwrap
            ::core::option::Option::Some(::std::string::ToString::to_string(&#call))
        }
    }
}

/// `(&&Probe::<T>::NEW)`, at the type's token: its methods are those of a context parameter
/// when `T` is a context type, else those of an argument.
fn probe(ty: &Type) -> TokenStream {
    quote_spanned!(ty.span()=> (&&::toolsmith::__private::Probe::<#ty>::NEW))
}

/// Per parameter, `fn __toolsmith_kind{i}() -> ParamKind`: whether it is an argument or a
/// context parameter (and which state it needs), with the parameter's type check, at its
/// token: an argument's type must implement `Deserialize` and `JsonSchema`.
pub fn kinds(function: &Function) -> TokenStream {
    let kinds = function.params.iter().enumerate().map(|(i, param)| {
        let ident = format_ident!("__toolsmith_kind{}", i);
        let probe = probe(&param.ty);
        let sync = (!function.is_async).then(|| {
            quote_spanned! {param.ty.span()=>
                #probe.assert_in_sync_tool();
            }
        });
        let checks = quote_spanned! {param.ty.span()=>
            #probe.assert_deserialize();
            #probe.assert_param_schema();
            #sync
        };
        quote! {
            fn #ident() -> ::toolsmith::__private::ParamKind {
                #checks
                #probe.role().kind()
            }
        }
    });
    quote!(#(#kinds)*)
}

/// One check per return type, at its own token.
pub fn checks(function: &Function) -> TokenStream {
    let output = match &function.output.kind {
        OutputKind::Json(ty) | OutputKind::Linked(ty) => Some(quote_spanned! {ty.span()=>
            const _: () = ::toolsmith::__private::assert_serialize::<#ty>();
            const _: () = ::toolsmith::__private::assert_output_schema::<#ty>();
        }),
        OutputKind::Content(ty) => Some(quote_spanned! {ty.span()=>
            const _: () = ::toolsmith::__private::assert_content::<#ty>();
        }),
        _ => None,
    };
    let result = match (&function.item.sig.output, &function.output.error) {
        (_, Some(error)) => Some(
            quote_spanned!(error.span()=> const _: () = ::toolsmith::__private::assert_error::<#error>();),
        ),
        (syn::ReturnType::Type(_, ty), None) if function.output.result => Some(
            quote_spanned!(ty.span()=> const _: () = ::toolsmith::__private::assert_result::<#ty>();),
        ),
        _ => None,
    };
    quote!(#output #result)
}

/// The expression turning the call's value into an `Outcome`.
fn convert(function: &Function, call: TokenStream) -> TokenStream {
    let ok = match &function.output.kind {
        OutputKind::Unit => quote!(::toolsmith::__private::empty),
        OutputKind::Text => quote!(::toolsmith::__private::text),
        OutputKind::Json(ty) => {
            quote!(|value: #ty| ::toolsmith::__private::Typed::<#ty>::NEW.json(value))
        }
        OutputKind::Linked(ty) => {
            quote!(|value: ::toolsmith::tool::Linked<#ty>| ::toolsmith::__private::Typed::<#ty>::NEW.linked(value))
        }
        OutputKind::Content(ty) => {
            quote!(|value: #ty| ::toolsmith::__private::Typed::<#ty>::NEW.content(value))
        }
    };
    match (&function.item.sig.output, function.output.result) {
        (syn::ReturnType::Type(_, ty), true) => {
            quote!(::toolsmith::__private::Typed::<#ty>::NEW.result(#call, #ok))
        }
        _ => quote!((#ok)(#call)),
    }
}

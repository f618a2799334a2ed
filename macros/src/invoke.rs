//! Generating the call path of a tool: `__toolsmith_invoke`, which takes each parameter
//! from the arguments or the call's context and hands the body to the runtime, and the type
//! checks of its parameters and return type.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Function, OutputKind};

/// `fn __toolsmith_invoke(args) -> Invocation`: decodes every parameter, then hands the call
/// to the runtime (sync bodies run off the reactor).
pub fn invoke(function: &Function) -> TokenStream {
    let ident = &function.item.sig.ident;
    let binds: Vec<_> = (0..function.params.len())
        .map(|i| format_ident!("__toolsmith_arg{}", i))
        .collect();
    let mut json_index = 0usize;
    let takes: Vec<TokenStream> = function
        .params
        .iter()
        .zip(&binds)
        .map(|(param, bind)| {
            let ty = &param.ty;
            if param.context.is_some() {
                let from = quote_spanned!(ty.span()=>
                    <#ty as ::toolsmith::__private::FromContext>::from_context(__toolsmith_ctx)
                );
                quote!(let #bind = #from;)
            } else {
                let index = json_index;
                json_index += 1;
                quote!(let #bind = ::toolsmith::__private::Typed::<#ty>::NEW.take(&mut __toolsmith_args, #index);)
            }
        })
        .collect();
    let unwrap = (!binds.is_empty()).then(|| {
        quote! {
            let ( #(::core::option::Option::Some(#binds),)* ) = ( #(#binds,)* ) else {
                return ::toolsmith::__private::Invocation::Invalid(
                    ::std::string::String::from("the arguments could not be decoded"),
                );
            };
        }
    });
    let mutability = (json_index > 0).then(|| quote!(mut));
    let call = if function.is_async {
        quote!(#ident(#(#binds),*).await)
    } else {
        quote!(#ident(#(#binds),*))
    };
    let convert = convert(function, call);
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
            if let ::core::result::Result::Err(problems) = __toolsmith_args.finish() {
                return ::toolsmith::__private::Invocation::Invalid(problems);
            }
            #unwrap
            #run
        }
    }
}

/// One check per parameter type and return type, each at its own token.
pub fn checks(function: &Function) -> TokenStream {
    let params = function
        .params
        .iter()
        .filter(|p| p.context.is_none())
        .map(|param| {
            let ty = &param.ty;
            quote_spanned! {ty.span()=>
                const _: () = ::toolsmith::__private::assert_deserialize::<#ty>();
                const _: () = ::toolsmith::__private::assert_param_schema::<#ty>();
            }
        });
    let output = match &function.output.kind {
        OutputKind::Json(ty) => Some(quote_spanned! {ty.span()=>
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
    quote!(#(#params)* #output #result)
}

/// The expression turning the call's value into an `Outcome`.
fn convert(function: &Function, call: TokenStream) -> TokenStream {
    let ok = match &function.output.kind {
        OutputKind::Unit => quote!(::toolsmith::__private::empty),
        OutputKind::Text => quote!(::toolsmith::__private::text),
        OutputKind::Json(ty) => {
            quote!(|value: #ty| ::toolsmith::__private::Typed::<#ty>::NEW.json(value))
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

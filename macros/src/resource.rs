//! `#[resource]`: a function that serves a resource (a URI) or a resource template (a URI
//! with `{variables}`, each a parameter). The function stays as written; an anonymous const
//! submits its `ResourceDef`. Checked here: the URI's syntax, that every variable is a
//! parameter (and, through the type system, that every other parameter comes from the
//! context), the `complete` keys, the MIME type, and what the function returns.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use crate::ast::{self, Function, Kind, generic_arg, last_ident_is};
use crate::ctxt::Ctxt;
use crate::emit::Emit;
use crate::item::{self, ItemAttrs};

/// The whole expansion of `#[resource(args)] input`.
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    crate::emit::expand(args, input, Kind::Resource, |cx, attrs, function| {
        let checked = check(cx, attrs, function)?;
        Some(emit(attrs, function, checked))
    })
}

/// What the checks found, for the expansion.
struct Checked {
    uri: String,
    variables: Vec<String>,
    name: String,
    description: String,
    convert: Leaf,
}

fn check(cx: &Ctxt, attrs: &ItemAttrs, function: &Function) -> Option<Checked> {
    let name = item::name(cx, attrs, function, Kind::Resource);
    let description = item::description(cx, attrs, function, Kind::Resource);
    let convert = output(cx, function);
    let Some(uri) = &attrs.uri else {
        if attrs.uri_given {
            // Its mistake is reported already.
            return None;
        }
        cx.error_spanned_by(
            &function.item.sig.ident,
            "#[resource] needs its URI: `#[resource(uri = \"notes://index\")]`, or a template such as `uri = \"notes://{note_id}\"`",
        );
        return None;
    };
    let template = toolsmith_template::Template::parse(&uri.value()).ok()?;
    let variables: Vec<String> = template.variables().map(str::to_owned).collect();
    let params: Vec<&str> = function.params.iter().map(|p| p.name.as_str()).collect();
    for variable in &variables {
        if !function.has_param(variable) {
            let has = if params.is_empty() {
                "the function has no parameters".to_owned()
            } else {
                format!(
                    "its parameters are {}",
                    params
                        .iter()
                        .map(|p| format!("`{p}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            cx.error_spanned_by(
                uri,
                format!(
                    "the URI variable `{{{variable}}}` is not a parameter ({has}): add `{variable}: String` (or another type), or remove it from the URI"
                ),
            );
        }
    }
    crate::complete::check(cx, &attrs.completes, &variables, "URI variables");
    Some(Checked {
        uri: uri.value(),
        variables,
        name,
        description,
        convert: convert?,
    })
}

/// How the function's value becomes an outcome: its layers (`Result`, `Option`, `Modified`)
/// and what they hold.
struct Leaf {
    result: Option<Type>,
    optional: Option<Type>,
    modified: Option<Type>,
    kind: LeafKind,
}

enum LeafKind {
    Text,
    Blob,
    Content(Type),
    Json(Type),
}

const RETURNS: &str = "a resource returns its contents: `String` (text), `Vec<u8>` or `Bytes` (a blob), `Image` or `Audio`, or any `Serialize` type (JSON text); each may be inside `Option` (`None`: not found), `Modified` (dated) and `Result<_, E>` (a `ToolError` is shown, any other error masked)";

fn output(cx: &Ctxt, function: &Function) -> Option<Leaf> {
    let syn::ReturnType::Type(_, ty) = &function.item.sig.output else {
        cx.error_spanned_by(&function.item.sig.ident, RETURNS);
        return None;
    };
    let mut ty: &Type = ty;
    let mut leaf = Leaf {
        result: None,
        optional: None,
        modified: None,
        kind: LeafKind::Text,
    };
    if let Some(inner) = generic_arg(ty, "Result") {
        leaf.result = Some(ty.clone());
        ty = inner;
    }
    if let Some(inner) = generic_arg(ty, "Option") {
        leaf.optional = Some(ty.clone());
        ty = inner;
    }
    if let Some(inner) = generic_arg(ty, "Modified") {
        leaf.modified = Some(ty.clone());
        ty = inner;
    }
    leaf.kind = match ty {
        Type::Path(p) if p.qself.is_none() && last_ident_is(&p.path, "String") => LeafKind::Text,
        Type::Path(p) if p.qself.is_none() && last_ident_is(&p.path, "Bytes") => LeafKind::Blob,
        other if generic_arg(other, "Vec").is_some_and(is_u8) => LeafKind::Blob,
        other if is_named(other, &["Image", "Audio"]) => LeafKind::Content(other.clone()),
        Type::Tuple(t) if t.elems.is_empty() => {
            cx.error_spanned_by(ty, RETURNS);
            return None;
        }
        Type::Reference(_) | Type::ImplTrait(_) => {
            cx.error_spanned_by(ty, RETURNS);
            return None;
        }
        other
            if ast::is_content(other) || generic_arg(other, "Vec").is_some_and(ast::is_content) =>
        {
            cx.error_spanned_by(
                ty,
                format!("{RETURNS}; links and several blocks are for tools and prompts"),
            );
            return None;
        }
        other => LeafKind::Json(other.clone()),
    };
    Some(leaf)
}

fn is_u8(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("u8"))
}

fn is_named(ty: &Type, names: &[&str]) -> bool {
    names.iter().any(|name| {
        ast::is_content(ty) && matches!(ty, Type::Path(p) if last_ident_is(&p.path, name))
    })
}

/// The conversion of the call's value, outermost layer first.
fn convert(leaf: &Leaf, call: TokenStream) -> TokenStream {
    let mut ok = match &leaf.kind {
        LeafKind::Text => quote!(::toolsmith::__private::text),
        LeafKind::Blob => quote!(::toolsmith::__private::blob),
        LeafKind::Content(ty) => {
            quote!(|value: #ty| ::toolsmith::__private::Typed::<#ty>::NEW.content(value))
        }
        LeafKind::Json(ty) => {
            quote!(|value: #ty| ::toolsmith::__private::Typed::<#ty>::NEW.serialized(value))
        }
    };
    if let Some(ty) = &leaf.modified {
        ok = quote!(|value: #ty| ::toolsmith::__private::modified(value, #ok));
    }
    if let Some(ty) = &leaf.optional {
        ok = quote!(|value: #ty| ::toolsmith::__private::optional(value, #ok));
    }
    match &leaf.result {
        Some(ty) => quote!(::toolsmith::__private::Typed::<#ty>::NEW.result(#call, #ok)),
        None => quote!((#ok)(#call)),
    }
}

/// The return type's checks, at its own token.
fn checks(leaf: &Leaf) -> TokenStream {
    let kind = match &leaf.kind {
        LeafKind::Json(ty) => Some(quote_spanned! {ty.span()=>
            const _: () = ::toolsmith::__private::assert_resource_serialize::<#ty>();
        }),
        LeafKind::Content(ty) => Some(quote_spanned! {ty.span()=>
            const _: () = ::toolsmith::__private::assert_content::<#ty>();
        }),
        _ => None,
    };
    let result = leaf.result.as_ref().map(|ty| {
        quote_spanned!(ty.span()=> const _: () = ::toolsmith::__private::assert_result::<#ty>();)
    });
    quote!(#kind #result)
}

/// Per parameter that is not a URI variable: a check, at its type, that it comes from the
/// context (a local trait whose message names it, implemented for every context type).
fn not_variables(function: &Function, variables: &[String], uri: &str) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, param) in function.params.iter().enumerate() {
        if variables.contains(&param.name) {
            continue;
        }
        let name = &param.name;
        let message = format!(
            "`{name}` is not a variable of the URI template `{uri}`: add `{{{name}}}` to the URI, or remove the parameter"
        );
        let label = "neither a URI variable nor a context parameter (`State<T>`, `Caller`, ...)";
        let trait_ident = quote::format_ident!("__ToolsmithUriVariable{}", i);
        let ty = &param.ty;
        out.extend(quote! {
            #[diagnostic::on_unimplemented(message = #message, label = #label)]
            trait #trait_ident {}
            impl<T: ::toolsmith::__private::FromContext> #trait_ident for T {}
        });
        out.extend(quote_spanned! {ty.span()=>
            const _: fn() = || {
                fn variable_or_context<T: ?Sized + #trait_ident>() {}
                variable_or_context::<#ty>();
            };
        });
    }
    out
}

fn emit(attrs: &ItemAttrs, function: &Function, checked: Checked) -> Emit {
    let Checked {
        uri,
        variables,
        name,
        description,
        convert: leaf,
    } = checked;
    let kind = if variables.is_empty() {
        "resource"
    } else {
        "resource template"
    };
    let uri_lit = attrs.uri.as_ref().expect("checked");
    let unique = item::unique(
        "__toolsmith_two_resources_have_this_uri_",
        &uri,
        uri_lit.span(),
    );
    let invoke = crate::invoke::invoke_with(function, |call| convert(&leaf, call));
    let mut checks = checks(&leaf);
    checks.extend(not_variables(function, &variables, &uri));
    let mime_type = item::optional(attrs.mime_type.as_ref());
    let audience = attrs.audience.iter().flatten();
    let priority = match attrs.priority {
        Some(p) => quote!(::core::option::Option::Some(#p)),
        None => quote!(::core::option::Option::None),
    };
    Emit {
        def: quote!(::toolsmith::__private::ResourceDef),
        doc_line: format!(" **MCP {kind}** `{uri}`."),
        fields: quote! {
            uri: #uri,
            mime_type: #mime_type,
            audience: &[#(#audience),*],
            priority: #priority,
        },
        name,
        description,
        unique,
        checks,
        invoke,
    }
}

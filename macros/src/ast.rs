//! A model of the annotated function: its parameters (and which are optional), what it
//! returns, its docs. Signatures `#[tool]` cannot serve are reported here, one error each.

use syn::{
    Attribute, FnArg, GenericArgument, Ident, Item, ItemFn, Pat, PathArguments, ReturnType, Type,
};

use crate::ctxt::Ctxt;
use crate::docs::{self, Docs};

/// The annotated function.
pub struct Function {
    pub item: ItemFn,
    pub is_async: bool,
    pub params: Vec<Param>,
    /// Parameters whose type was refused (its error reported): still parameters by name, so
    /// that what names them (`# Arguments`, a question's `{name}`, a URI variable) is not
    /// reported a second time as naming no parameter.
    pub refused: Vec<String>,
    pub output: Output,
    pub docs: Docs,
}

impl Function {
    /// Whether `name` is a parameter's (one whose type was refused included).
    pub fn has_param(&self, name: &str) -> bool {
        self.params.iter().any(|p| p.name == name) || self.refused.iter().any(|r| r == name)
    }
}

/// A parameter: a plain name and an owned type.
pub struct Param {
    /// The JSON key: the name without `r#`.
    pub name: String,
    pub ty: Type,
    /// For `Option<T>`: `T`. Such a parameter, when it is an argument, may be left out.
    /// Whether a parameter is an argument or comes from the call's context is up to its type
    /// (the runtime's `FromContext`), not its name: the macro does not tell them apart.
    pub optional: Option<Type>,
}

/// What the function returns.
pub struct Output {
    pub kind: OutputKind,
    /// Whether it is a `Result<_, E>`.
    pub result: bool,
    /// `E` when the `Result` names it (not for aliases such as `io::Result<T>`).
    pub error: Option<Type>,
}

pub enum OutputKind {
    /// `()` or nothing.
    Unit,
    /// `String`: plain text.
    Text,
    /// Any other type: structured content.
    Json(Box<Type>),
    /// A content type (`Image`, `Vec<Content>`, `ToolOutput`, ...): content blocks.
    Content(Box<Type>),
    /// `Linked<T>`: structured content of `T` (its schema the output schema), and links.
    Linked(Box<Type>),
}

/// What the attribute makes of the function: its messages name it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    /// `a tool`, `a resource`, `a prompt`.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Tool => "a tool",
            Kind::Resource => "a resource",
            Kind::Prompt => "a prompt",
        }
    }

    /// `#[tool]`, `#[resource]`, `#[prompt]`.
    pub fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "#[tool]",
            Kind::Resource => "#[resource]",
            Kind::Prompt => "#[prompt]",
        }
    }

    fn ident(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::Prompt => "prompt",
        }
    }
}

/// Reads the item. Anything but a function is an error; signature problems go to `cx`.
pub fn parse(cx: &Ctxt, item: Item) -> Result<Function, Box<Item>> {
    parse_as(cx, item, Kind::Tool)
}

/// Reads the item for `kind`. Only a tool's return type is classified here; a resource and
/// a prompt classify theirs.
pub fn parse_as(cx: &Ctxt, item: Item, kind: Kind) -> Result<Function, Box<Item>> {
    let item = match item {
        Item::Fn(item) => item,
        other => {
            cx.error_spanned_by(
                describe(&other).0,
                format!(
                    "{} goes on a `fn` or `async fn`, not on {}",
                    kind.attr(),
                    describe(&other).1
                ),
            );
            return Err(Box::new(other));
        }
    };
    check_signature(cx, &item, kind);
    let mut refused = Vec::new();
    let params = item
        .sig
        .inputs
        .iter()
        .filter_map(|arg| param(cx, arg, kind, &mut refused))
        .collect();
    let output = match kind {
        Kind::Tool => output(cx, &item.sig.output),
        Kind::Resource | Kind::Prompt => Output {
            kind: OutputKind::Unit,
            result: false,
            error: None,
        },
    };
    let docs = docs::parse(&item.attrs);
    Ok(Function {
        is_async: item.sig.asyncness.is_some(),
        params,
        refused,
        output,
        docs,
        item,
    })
}

fn describe(item: &Item) -> (proc_macro2::TokenStream, &'static str) {
    use quote::ToTokens;
    let (tokens, what): (proc_macro2::TokenStream, _) = match item {
        Item::Struct(i) => (i.struct_token.to_token_stream(), "a struct"),
        Item::Enum(i) => (i.enum_token.to_token_stream(), "an enum"),
        Item::Impl(i) => (i.impl_token.to_token_stream(), "an impl block"),
        Item::Mod(i) => (i.mod_token.to_token_stream(), "a module"),
        Item::Trait(i) => (i.trait_token.to_token_stream(), "a trait"),
        Item::Const(i) => (i.const_token.to_token_stream(), "a const"),
        Item::Static(i) => (i.static_token.to_token_stream(), "a static"),
        Item::Type(i) => (i.type_token.to_token_stream(), "a type alias"),
        Item::Use(i) => (i.use_token.to_token_stream(), "a use item"),
        other => (other.to_token_stream(), "this item"),
    };
    (tokens, what)
}

fn check_signature(cx: &Ctxt, item: &ItemFn, kind: Kind) {
    let sig = &item.sig;
    let noun = kind.noun();
    if let Some(token) = &sig.unsafety {
        cx.error_spanned_by(
            token,
            format!(
                "{noun} cannot be an `unsafe fn`: make it safe and keep the `unsafe` block inside"
            ),
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(
            abi,
            format!("{noun} cannot be an `extern` fn: remove the ABI"),
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(
            variadic,
            format!("{noun} cannot be variadic: take a `Vec<T>` parameter instead"),
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            format!("{noun} cannot be generic: its JSON schema needs concrete parameter and return types"),
        );
    }
    if let Some(again) = item.attrs.iter().find(|a| is_attr(a, kind.ident())) {
        cx.error_spanned_by(
            again,
            format!(
                "{} is given twice on this function: remove one",
                kind.attr()
            ),
        );
    }
}

/// Whether `attr` is `#[name]` or `#[toolsmith::name]`.
fn is_attr(attr: &Attribute, name: &str) -> bool {
    let path = attr.path();
    path.is_ident(name)
        || (path.segments.len() == 2
            && path.segments[0].ident == "toolsmith"
            && path.segments[1].ident == name)
}

fn param(cx: &Ctxt, arg: &FnArg, kind: Kind, refused: &mut Vec<String>) -> Option<Param> {
    let noun = kind.noun();
    let typed = match arg {
        FnArg::Receiver(receiver) => {
            cx.error_spanned_by(
                receiver,
                format!(
                    "{noun} cannot take `self`: make it a free function whose parameters are the {}'s arguments",
                    kind.ident()
                ),
            );
            return None;
        }
        FnArg::Typed(typed) => typed,
    };
    let name = match &*typed.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => plain_name(&p.ident),
        other => {
            cx.error_spanned_by(
                other,
                format!("{noun} parameter needs a plain name, which becomes its JSON argument name: write `name: Type`"),
            );
            return None;
        }
    };
    if !type_ok(cx, &typed.ty, noun) {
        refused.push(name);
        return None;
    }
    Some(Param {
        name,
        optional: option_inner(&typed.ty).cloned(),
        ty: (*typed.ty).clone(),
    })
}

/// Checks a parameter type for forms that cannot come from JSON.
fn type_ok(cx: &Ctxt, ty: &Type, noun: &str) -> bool {
    match ty {
        Type::Reference(reference) => {
            cx.error_spanned_by(
                ty,
                format!(
                    "{noun} parameter must be owned, it is decoded from JSON: use `{}` instead",
                    owned_suggestion(&reference.elem)
                ),
            );
            false
        }
        Type::ImplTrait(_) => {
            cx.error_spanned_by(
                ty,
                format!("{noun} parameter cannot be `impl Trait`: use a concrete type that implements Deserialize and JsonSchema"),
            );
            false
        }
        Type::Paren(inner) => type_ok(cx, &inner.elem, noun),
        Type::Group(inner) => type_ok(cx, &inner.elem, noun),
        _ => true,
    }
}

fn owned_suggestion(elem: &Type) -> String {
    use quote::ToTokens;
    match elem {
        Type::Path(p) if p.path.is_ident("str") => "String".into(),
        Type::Path(p) if p.path.is_ident("Path") => "PathBuf".into(),
        Type::Slice(slice) => format!("Vec<{}>", slice.elem.to_token_stream()),
        other => other.to_token_stream().to_string(),
    }
}

/// The parameter name as the client writes it: `r#type` is `type`.
fn plain_name(ident: &Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map(str::to_owned).unwrap_or(name)
}

fn output(cx: &Ctxt, ret: &ReturnType) -> Output {
    let ReturnType::Type(_, ty) = ret else {
        return Output {
            kind: OutputKind::Unit,
            result: false,
            error: None,
        };
    };
    let (inner, result) = match generic_arg(ty, "Result") {
        Some(ok) => (ok, true),
        None => (&**ty, false),
    };
    let kind = match inner {
        Type::Tuple(t) if t.elems.is_empty() => OutputKind::Unit,
        Type::Path(p) if p.qself.is_none() && last_ident_is(&p.path, "String") => OutputKind::Text,
        Type::Reference(_) => {
            cx.error_spanned_by(
                inner,
                "unsupported return type: a tool returns an owned value, e.g. `String` instead of `&str`",
            );
            OutputKind::Unit
        }
        Type::ImplTrait(_) => {
            cx.error_spanned_by(
                inner,
                "unsupported return type: `impl Trait` has no JSON schema, return a concrete type that implements Serialize and JsonSchema",
            );
            OutputKind::Unit
        }
        other if is_content(other) || generic_arg(other, "Vec").is_some_and(is_content) => {
            OutputKind::Content(Box::new(other.clone()))
        }
        other if linked(other).is_some() => OutputKind::Linked(Box::new(
            linked(other)
                .cloned()
                .unwrap_or(Type::Verbatim(proc_macro2::TokenStream::new())),
        )),
        other => {
            if let Some(content) = nested_content(other) {
                cx.error_spanned_by(
                    content,
                    "a content type is returned alone, in a `Vec`, or inside `Result`; to add text or structured content, return `toolsmith::tool::ToolOutput`",
                );
            }
            OutputKind::Json(Box::new(other.clone()))
        }
    };
    Output {
        kind,
        result,
        error: result.then(|| generic_args(ty).nth(1).cloned()).flatten(),
    }
}

/// The content types, known by name: written bare or under a `toolsmith` path. A type of
/// the same name under another path (`crate::model::Image`) is the program's own.
const CONTENT: &[&str] = &[
    "Image",
    "Audio",
    "ResourceLink",
    "EmbeddedResource",
    "Content",
    "ToolOutput",
];

pub fn is_content(ty: &Type) -> bool {
    let Type::Path(p) = ty else { return false };
    let segments = &p.path.segments;
    p.qself.is_none()
        && segments
            .last()
            .is_some_and(|s| s.arguments.is_none() && CONTENT.iter().any(|c| s.ident == c))
        && (segments.len() == 1 || segments.first().is_some_and(|s| s.ident == "toolsmith"))
}

/// `T` of `Linked<T>` (bare or under a `toolsmith` path).
fn linked(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let segments = &p.path.segments;
    let named = segments.last().is_some_and(|s| s.ident == "Linked")
        && (segments.len() == 1 || segments.first().is_some_and(|s| s.ident == "toolsmith"));
    if named {
        generic_arg(ty, "Linked")
    } else {
        None
    }
}

/// A content type inside `ty` where it cannot be (`Option<Image>`, `(String, Image)`).
fn nested_content(ty: &Type) -> Option<&Type> {
    let inner: Vec<&Type> = match ty {
        Type::Path(_) => generic_args(ty).collect(),
        Type::Tuple(t) => t.elems.iter().collect(),
        Type::Array(a) => vec![&*a.elem],
        Type::Slice(s) => vec![&*s.elem],
        Type::Paren(p) => vec![&*p.elem],
        Type::Group(g) => vec![&*g.elem],
        _ => Vec::new(),
    };
    inner.into_iter().find_map(|t| {
        if is_content(t) {
            Some(t)
        } else {
            nested_content(t)
        }
    })
}

pub fn last_ident_is(path: &syn::Path, name: &str) -> bool {
    path.segments
        .last()
        .is_some_and(|s| s.ident == name && s.arguments.is_none())
}

/// `T` in `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    generic_arg(ty, "Option")
}

/// The first type argument of a path type whose last segment is `name` (`Result<T, E>`,
/// `io::Result<T>`, `Option<T>`).
pub fn generic_arg<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let last = path.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    generic_args(ty).next()
}

/// The type arguments of a path type's last segment.
pub fn generic_args(ty: &Type) -> impl Iterator<Item = &Type> {
    let args = match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .and_then(|last| match &last.arguments {
                PathArguments::AngleBracketed(args) => Some(&args.args),
                _ => None,
            }),
        _ => None,
    };
    args.into_iter().flatten().filter_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    })
}

//! The attribute of `#[resource]` and `#[prompt]`: the keys they share with `#[tool]`
//! (`name`, `title`, `description`, `icon`/`icons`, `scopes`, `timeout`), a resource's own
//! (`uri`, `mime_type`, `audience`, `priority`) and `complete(arg = fn, ...)`. Every mistake is
//! recorded; parsing goes on so that they are all reported together.

use proc_macro2::TokenStream;
use syn::ext::IdentExt;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, Token, UnOp};

use crate::ast::Kind;
use crate::attr::{self, Text};
use crate::complete::{self, Complete};
use crate::ctxt::Ctxt;
use crate::entry::{Entry, ungroup};

const RESOURCE_KEYS: &[&str] = &[
    "uri",
    "name",
    "title",
    "description",
    "mime_type",
    "audience",
    "priority",
    "icon",
    "icons",
    "scopes",
    "timeout",
    "complete",
];

const PROMPT_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "icon",
    "icons",
    "scopes",
    "timeout",
    "complete",
];

/// Everything the attribute says.
#[derive(Default)]
pub struct ItemAttrs {
    pub uri: Option<LitStr>,
    /// `uri` was given, even if its value was wrong (then its error is reported already).
    pub uri_given: bool,
    pub name: Option<Text>,
    pub title: Option<Text>,
    pub description: Option<Text>,
    pub mime_type: Option<LitStr>,
    pub audience: Option<Vec<LitStr>>,
    pub priority: Option<f32>,
    pub icons: Vec<LitStr>,
    pub scopes: Option<Vec<LitStr>>,
    pub timeout: Option<(u64, LitStr)>,
    pub completes: Vec<Complete>,
}

/// Parses the attribute's arguments for `kind`. A syntax error is returned at once; every
/// other mistake goes into `cx`.
pub fn parse(cx: &Ctxt, args: TokenStream, kind: Kind) -> syn::Result<ItemAttrs> {
    let entries = Punctuated::<Entry, Token![,]>::parse_terminated.parse2(args)?;
    let keys = match kind {
        Kind::Resource => RESOURCE_KEYS,
        _ => PROMPT_KEYS,
    };
    let mut attrs = ItemAttrs::default();
    for entry in entries {
        let key = entry.key.unraw().to_string();
        if !keys.contains(&key.as_str()) {
            cx.error_spanned_by(&entry.key, unknown_key(&key, keys, kind));
            continue;
        }
        if entry.args.is_some() && key != "complete" {
            cx.error_spanned_by(
                entry.tokens(),
                format!(
                    "`{key}(...)` is not a key of {}: write `{key} = value`",
                    kind.attr()
                ),
            );
            continue;
        }
        match key.as_str() {
            "uri" => {
                attrs.uri_given = true;
                uri(cx, &mut attrs.uri, &entry)
            }
            "name" => attr::text(cx, &mut attrs.name, &entry, false),
            "title" => attr::text(cx, &mut attrs.title, &entry, true),
            "description" => attr::text(cx, &mut attrs.description, &entry, true),
            "mime_type" => mime_type(cx, &mut attrs.mime_type, &entry),
            "audience" => audience(cx, &mut attrs.audience, &entry),
            "priority" => priority(cx, &mut attrs.priority, &entry),
            "icon" => crate::icon::icon(cx, &mut attrs.icons, &entry),
            "icons" => crate::icon::icons(cx, &mut attrs.icons, &entry),
            "scopes" => crate::scopes::scopes(cx, &mut attrs.scopes, &entry),
            "timeout" => attr::timeout(cx, &mut attrs.timeout, &entry),
            "complete" => complete::parse(cx, &mut attrs.completes, &entry),
            _ => unreachable!("every key is listed"),
        }
    }
    Ok(attrs)
}

fn unknown_key(key: &str, keys: &[&str], kind: Kind) -> String {
    let close = keys
        .iter()
        .map(|k| (attr::edit_distance(&key.to_ascii_lowercase(), k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min()
        .map(|(_, k)| k);
    match close {
        Some(close) => format!("unknown key `{key}`: did you mean `{close}`?"),
        None => format!(
            "unknown key `{key}` for {}: expected one of {}",
            kind.attr(),
            keys.join(", ")
        ),
    }
}

/// A string literal value, once (the same reading as `#[tool]`'s string keys).
fn literal(cx: &Ctxt, slot: &Option<LitStr>, entry: &Entry, example: &str) -> Option<LitStr> {
    let given = slot.is_some();
    let mut text = slot.clone().map(|lit| Text { lit });
    attr::text_like(cx, &mut text, entry, false, example);
    // Given twice: `text_like` said so.
    (!given).then_some(text?.lit)
}

/// `uri = "notes://{note_id}"`: a URI, or a URI template (RFC 6570 `{var}`, `{+var}`).
fn uri(cx: &Ctxt, slot: &mut Option<LitStr>, entry: &Entry) {
    let Some(lit) = literal(cx, slot, entry, "notes://{note_id}") else {
        return;
    };
    match toolsmith_template::Template::parse(&lit.value()) {
        Ok(_) => *slot = Some(lit),
        Err(err) => cx.error_spanned_by(&lit, err.message),
    }
}

/// `mime_type = "type/subtype"`, with optional parameters (`text/plain; charset=utf-8`).
fn mime_type(cx: &Ctxt, slot: &mut Option<LitStr>, entry: &Entry) {
    let Some(lit) = literal(cx, slot, entry, "application/json") else {
        return;
    };
    match mime_problem(&lit.value()) {
        None => *slot = Some(lit),
        Some(why) => cx.error_spanned_by(&lit, why),
    }
}

/// What is wrong with a MIME type, if anything (RFC 6838's `type/subtype`).
pub fn mime_problem(mime: &str) -> Option<String> {
    let essence = mime.split(';').next().unwrap_or_default().trim();
    let token = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c))
    };
    match essence.split_once('/') {
        Some((kind, sub)) if token(kind) && token(sub) => None,
        _ => Some(format!(
            "`{mime}` is not a MIME type: write `type/subtype`, e.g. \"application/json\" or \"text/markdown\""
        )),
    }
}

/// `audience = ["user", "assistant"]`.
fn audience(cx: &Ctxt, slot: &mut Option<Vec<LitStr>>, entry: &Entry) {
    let list = crate::list::StringList {
        key: "audience",
        item: "role",
        form: "`audience` takes a list of roles: `audience = [\"user\"]` or `[\"user\", \"assistant\"]`",
        empty: "`audience` is empty: list \"user\" and/or \"assistant\", or remove the key",
    };
    list.read(cx, slot, entry, |role| match role {
        "user" | "assistant" => Ok(()),
        other => Err(format!(
            "`{other}` is not a role: the audience is \"user\" or \"assistant\""
        )),
    });
}

/// `priority = 0.8`: from 0.0 (optional) to 1.0 (required).
fn priority(cx: &Ctxt, slot: &mut Option<f32>, entry: &Entry) {
    let form =
        "`priority` takes a number from 0.0 (least important) to 1.0 (most): `priority = 0.8`";
    let value = match entry.value.as_ref().map(|(_, v)| ungroup(v)) {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        })) => f.base10_parse::<f32>().ok(),
        Some(Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        })) => i.base10_parse::<f32>().ok(),
        Some(Expr::Unary(ExprUnary {
            op: UnOp::Neg(_), ..
        })) => Some(-1.0),
        _ => None,
    };
    let Some(value) = value else {
        let at = entry
            .value
            .as_ref()
            .map_or(entry.tokens(), |(_, v)| quote::quote!(#v));
        return cx.error_spanned_by(at, form);
    };
    if !(0.0..=1.0).contains(&value) {
        let (_, v) = entry.value.as_ref().expect("a value was read");
        return cx.error_spanned_by(v, form);
    }
    if slot.is_some() {
        return cx.error_spanned_by(entry.tokens(), "`priority` is given twice: remove one");
    }
    *slot = Some(value);
}

/// `Some("...")` or `None`, for an optional string key.
pub fn optional(text: Option<&LitStr>) -> TokenStream {
    match text {
        Some(lit) => quote::quote!(::core::option::Option::Some(#lit)),
        None => quote::quote!(::core::option::Option::None),
    }
}

/// The `Timeout` of `timeout = "..."`.
pub fn timeout_tokens(timeout: &Option<(u64, LitStr)>) -> TokenStream {
    match timeout {
        Some((millis, text)) => quote::quote! {
            ::core::option::Option::Some(::toolsmith::__private::Timeout { millis: #millis, text: #text })
        },
        None => quote::quote!(::core::option::Option::None),
    }
}

/// The item's description: `description = "..."`, else the rustdoc; an item without one is
/// an error (a client shows it to decide what to use).
pub fn description(
    cx: &Ctxt,
    attrs: &ItemAttrs,
    function: &crate::ast::Function,
    kind: Kind,
) -> String {
    match &attrs.description {
        Some(text) => text.lit.value(),
        None => {
            if function.docs.description.trim().is_empty() {
                cx.error_spanned_by(
                    &function.item.sig.ident,
                    format!(
                        "this {} has no description: add a doc comment (a client shows it), or `description = \"...\"`",
                        &kind.noun()[2..]
                    ),
                );
            }
            function.docs.description.clone()
        }
    }
}

/// The name: `name = "..."`, else the function's.
pub fn name(cx: &Ctxt, attrs: &ItemAttrs, function: &crate::ast::Function, kind: Kind) -> String {
    match &attrs.name {
        Some(text) => {
            let name = text.lit.value();
            if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c.is_control()) {
                cx.error_spanned_by(
                    &text.lit,
                    format!(
                        "{} name is one word without spaces, e.g. \"summarize_notes\"",
                        kind.noun()
                    ),
                );
            }
            name
        }
        None => function
            .item
            .sig
            .ident
            .to_string()
            .trim_start_matches("r#")
            .to_owned(),
    }
}

/// A module-level item named after `key` (two of them in one module are a compile error at
/// the second: two resources with one URI, two prompts with one name).
pub fn unique(prefix: &str, key: &str, span: proc_macro2::Span) -> TokenStream {
    let readable: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(48)
        .collect();
    // FNV-1a: different keys that read the same still differ.
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let ident = syn::Ident::new(&format!("{prefix}{readable}_{hash:016x}"), span);
    quote::quote_spanned! {span=>
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        const #ident: () = ();
    }
}

#[cfg(test)]
mod tests {
    use super::mime_problem;

    #[test]
    fn mime_types_are_type_slash_subtype() {
        for good in [
            "application/json",
            "text/plain; charset=utf-8",
            "image/svg+xml",
        ] {
            assert_eq!(mime_problem(good), None, "{good}");
        }
        for bad in ["json", "text/", "/plain", "text plain", "text/pl ain", ""] {
            assert!(mime_problem(bad).is_some(), "{bad}");
        }
    }
}

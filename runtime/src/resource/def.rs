//! What `#[resource]` generates: a static [`ResourceDef`] per resource or template,
//! registered through `inventory`. Not a public API (reached through `__private`).

use crate::complete::CompleteDef;
use crate::context::CallContext;
use crate::tool::args::Arguments;
use crate::tool::param::{Invocation, ParamDef, Timeout};

/// One resource (a URI without variables) or resource template, as `#[resource]` declares
/// it.
#[doc(hidden)]
pub struct ResourceDef {
    /// The programmatic name (default: the function's name).
    pub name: &'static str,
    /// The URI, or the URI template (RFC 6570 `{var}` / `{+var}`), checked by the macro.
    pub uri: &'static str,
    pub rust_path: &'static str,
    pub file: &'static str,
    pub line: u32,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub mime_type: Option<&'static str>,
    /// `audience = ["user", "assistant"]`, checked by the macro.
    pub audience: &'static [&'static str],
    /// `priority = 0.0..=1.0`, checked by the macro.
    pub priority: Option<f32>,
    pub icons: &'static [&'static str],
    /// `scopes = [...]`: what a caller needs instead of the read scope.
    pub scopes: &'static [&'static str],
    /// Every parameter: the template's variables and context parameters.
    pub params: &'static [ParamDef],
    pub timeout: Option<Timeout>,
    pub completions: &'static [CompleteDef],
    pub invoke: for<'a> fn(Arguments<'a>, &CallContext) -> Invocation,
}

inventory::collect!(ResourceDef);

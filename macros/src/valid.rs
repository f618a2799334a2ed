//! Checks a declaration as a whole: hints that contradict each other, tool names that break
//! the MCP naming rule, missing descriptions, stray `# Arguments` entries, and names whose
//! verb contradicts the hints (a warning).

use proc_macro2::Span;
use quote::ToTokens;

use crate::ast::Function;
use crate::attr::Attrs;
use crate::ctxt::Ctxt;
use toolsmith_infer::{self as infer, Mismatch};

/// A warning to emit with the expansion (compilation continues).
pub struct Warning {
    pub span: Span,
    pub message: String,
}

/// The tool's name: `name = "..."`, else the function's name.
pub fn tool_name(attrs: &Attrs, function: &Function) -> (String, Span) {
    match &attrs.name {
        Some(text) => (text.lit.value(), text.lit.span()),
        None => {
            let ident = &function.item.sig.ident;
            let name = ident.to_string();
            (
                name.strip_prefix("r#").map(str::to_owned).unwrap_or(name),
                ident.span(),
            )
        }
    }
}

pub fn check(cx: &Ctxt, attrs: &Attrs, function: &Function) -> Vec<Warning> {
    contradictions(cx, attrs);
    let (name, span) = tool_name(attrs, function);
    if let Some(problem) = name_problem(&name) {
        cx.syn_error(syn::Error::new(span, problem));
    }
    description(cx, attrs, function);
    argument_docs(cx, function);
    if let Some(confirm) = &attrs.confirm {
        crate::confirm::check(cx, confirm, function);
    }
    if let Some(with) = &attrs.confirm_with {
        crate::confirm::check_with(cx, attrs.confirm.as_ref(), with);
    }
    name_lint(attrs, &name, span).into_iter().collect()
}

fn contradictions(cx: &Ctxt, attrs: &Attrs) {
    let Some(read_only) = attrs.read_only.as_ref().filter(|h| h.value) else {
        return;
    };
    if let Some(destructive) = attrs.destructive.as_ref().filter(|h| h.value) {
        cx.error_spanned_by(
            &destructive.tokens,
            format!(
                "`{}` contradicts `{}`: a read-only tool changes nothing, so it cannot be destructive; remove one",
                destructive.spelling, read_only.spelling
            ),
        );
    }
    if let Some(idempotent) = attrs.idempotent.as_ref().filter(|h| !h.value) {
        cx.error_spanned_by(
            &idempotent.tokens,
            format!(
                "`{}` contradicts `{}`: a read-only tool is always idempotent; remove `{}`",
                idempotent.spelling, read_only.spelling, idempotent.spelling
            ),
        );
    }
}

/// The MCP tool-name rule: 1 to 128 characters, only `A-Z a-z 0-9 _ - .`.
pub fn name_problem(name: &str) -> Option<String> {
    let len = name.chars().count();
    if len == 0 {
        return Some("tool name is empty: MCP tool names have 1 to 128 characters".into());
    }
    if len > 128 {
        return Some(format!(
            "tool name is {len} characters long: MCP tool names have at most 128; choose a shorter `name = \"...\"`"
        ));
    }
    let bad = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))?;
    Some(format!(
        "tool name `{name}` has the character {bad:?}: MCP tool names use only A-Z, a-z, 0-9, `_`, `-` and `.`"
    ))
}

fn description(cx: &Ctxt, attrs: &Attrs, function: &Function) {
    if attrs.description.is_none() && function.docs.description.trim().is_empty() {
        cx.error_spanned_by(
            &function.item.sig.ident,
            "this tool has no description: add a doc comment (the model reads it to decide when to call the tool), or `description = \"...\"`",
        );
    }
}

pub fn argument_docs(cx: &Ctxt, function: &Function) {
    for arg in &function.docs.args {
        if !function.has_param(&arg.name) {
            let names: Vec<String> = function
                .params
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect();
            let has = if names.is_empty() {
                "it has no parameters".to_owned()
            } else {
                format!("its parameters are {}", names.join(", "))
            };
            cx.error_spanned_by(
                arg.attr.to_token_stream(),
                format!(
                    "`# Arguments` names `{}`, which is not a parameter of this function ({has}): fix or remove the entry",
                    arg.name
                ),
            );
        }
    }
}

fn name_lint(attrs: &Attrs, name: &str, span: Span) -> Option<Warning> {
    if attrs.allow_name_mismatch.is_some() {
        return None;
    }
    let hints = attrs.hints();
    let message = match infer::mismatch(name, hints.read_only, hints.destructive)? {
        Mismatch::DestructiveNameReadOnly(verb) => format!(
            "tool `{name}` says `{verb}` but is declared read_only: clients may run it without asking. Fix the hints, or add `allow_name_mismatch`"
        ),
        Mismatch::DestructiveNameNotDestructive(verb) => format!(
            "tool `{name}` says `{verb}` but is declared `destructive = false`: clients may run it without asking. Fix the hints, or add `allow_name_mismatch`"
        ),
        Mismatch::ReadNameNotReadOnly(verb) => format!(
            "tool `{name}` says `{verb}` but is not declared read_only: clients will ask before every call. Add `read_only`, or `allow_name_mismatch`"
        ),
    };
    Some(Warning { span, message })
}

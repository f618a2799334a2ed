//! One `key`, `key = value` or `key(...)` of an attribute, shared by the parsers of
//! `#[tool]` (`attr`), `#[resource]`/`#[prompt]` (`item`) and of single keys (`confirm`,
//! `icon`, `list`, `scopes`, `complete`).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, Token};

/// `key`, `key = value` or `key(...)`.
pub struct Entry {
    pub key: Ident,
    pub value: Option<(Token![=], Expr)>,
    /// `key(...)`: what the parentheses hold (`complete(note_id = note_ids)`).
    pub args: Option<TokenStream>,
}

/// A value without the invisible groups `macro_rules!` wraps around `$x:literal` / `$x:expr`.
pub fn ungroup(expr: &Expr) -> &Expr {
    match expr {
        Expr::Group(group) => ungroup(&group.expr),
        other => other,
    }
}

impl Parse for Entry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = Ident::parse_any(input)?;
        let mut args = None;
        if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            args = Some(content.parse()?);
        }
        let value = if args.is_none() && input.peek(Token![=]) {
            Some((input.parse()?, input.parse()?))
        } else {
            None
        };
        if !input.is_empty() && !input.peek(Token![,]) {
            return Err(input.error(format!(
                "expected `,` after `{key}`: write `{key}` or `{key} = value`"
            )));
        }
        Ok(Entry { key, value, args })
    }
}

impl Entry {
    pub fn tokens(&self) -> TokenStream {
        let key = &self.key;
        match (&self.value, &self.args) {
            (Some((eq, value)), _) => quote!(#key #eq #value),
            (None, Some(args)) => quote!(#key(#args)),
            (None, None) => key.to_token_stream(),
        }
    }

    pub fn spelling(&self) -> String {
        match &self.value {
            Some((_, value)) => format!("{} = {}", self.key, value.to_token_stream()),
            None => self.key.to_string(),
        }
    }
}

//! The `#[tool]` attribute of [toolsmith](https://docs.rs/toolsmith). Depend on `toolsmith`,
//! which re-exports it; this crate is its implementation.
//!
//! The phases each have a file: `attr` parses the attribute, `ast` models the function,
//! `valid` checks the declaration, `expand` generates the registration. Errors are collected
//! in a `ctxt::Ctxt` and reported together.

mod ast;
mod attr;
mod confirm;
mod ctxt;
mod docs;
mod expand;
mod icon;
mod invoke;
mod list;
mod scopes;
mod valid;

use proc_macro::TokenStream;

/// Turns a `fn` or `async fn` into a registered MCP tool. See `toolsmith::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

//! The `#[tool]`, `#[resource]` and `#[prompt]` attributes of
//! [toolsmith](https://docs.rs/toolsmith). Depend on `toolsmith`, which re-exports them; this
//! crate is their implementation.
//!
//! The phases each have a file: `attr` parses the attribute (each of its `key = value`
//! an `entry::Entry`, shared with the other attributes' parsers), `ast` models the function,
//! `valid` checks the declaration, `expand` generates the registration. `#[resource]` and
//! `#[prompt]` share the function model and the parameters' generation, and have a file each
//! (`resource`, `prompt`), their attribute in `item`, their completions in `complete`. Errors
//! are collected in a `ctxt::Ctxt` and reported together.

mod ast;
mod attr;
mod complete;
mod confirm;
mod ctxt;
mod docs;
mod emit;
mod entry;
mod expand;
mod icon;
mod invoke;
mod item;
mod list;
mod prompt;
mod resource;
mod scopes;
mod valid;

use proc_macro::TokenStream;

/// Turns a `fn` or `async fn` into a registered MCP tool. See `toolsmith::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

/// Turns a `fn` or `async fn` into a registered MCP resource or resource template. See
/// `toolsmith::resource`.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    resource::resource(args.into(), input.into()).into()
}

/// Turns a `fn` or `async fn` into a registered MCP prompt. See `toolsmith::prompt`.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    prompt::prompt(args.into(), input.into()).into()
}

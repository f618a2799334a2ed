//! # toolsmith
//!
//! Declare [Model Context Protocol](https://modelcontextprotocol.io) tools as ordinary Rust
//! functions, with honest behaviour hints, and serve them over stdio.
//!
//! ```no_run
//! use toolsmith::{tool, ToolError};
//!
//! /// Look up the weather for a city.
//! ///
//! /// # Arguments
//! /// * `city` - The city's name, e.g. "Lisbon".
//! #[tool(read_only, title = "Weather")]
//! async fn weather(city: String) -> Result<String, ToolError> {
//!     if city.is_empty() {
//!         return Err(ToolError::new("Give a city name."));
//!     }
//!     Ok(format!("Sunny in {city}"))
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//!     toolsmith::serve_stdio().await?;
//!     Ok(())
//! }
//! ```
//!
//! `#[tool]` keeps the function callable as written and registers it: its name, its rustdoc
//! as description, a JSON Schema of its parameters, an output schema from its return type
//! and a complete hint block (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
//! `openWorldHint`). See [`tool`](macro@tool) for every key.
//!
//! Resources, resource templates and prompts are declared the same way, with [`resource`](macro@resource)
//! (`#[resource(uri = "notes://{note_id}")]`) and [`prompt`](macro@prompt), and their arguments complete
//! with `complete(arg = fn)` ([`Completion`](crate::complete::Completion)); a tool tells subscribed clients that a resource
//! changed through [`Resources`](crate::context::Resources).
//!
//! **The [`guide`]** walks through everything, one topic a page (a crate from zero, hints,
//! context, results, testing, the command line, stdio, HTTP, limits, authorization,
//! confirmation, resources and prompts, tasks, operating, audit, performance), every
//! example compiled by `cargo test`.
//!
//! ## Serving
//!
//! One entry point per use, each a free function with the defaults and a [`Server`] method
//! with its settings:
//!
//! | use | defaults | configured |
//! | --- | --- | --- |
//! | a server binary with the command line (`tools`, `call`, `check`, `serve --read-only`, ...) | [`run`] | [`Server::run`] |
//! | stdio only, from your own `main` | [`serve_stdio`] | [`Server::serve_stdio`] |
//! | any byte stream pair (tests, a socket) | `Server::new().serve_io(read, write)` | [`Server::serve_io`] |
//! | Streamable HTTP (feature `http`) | `run` with `serve --http ADDR` | `Server::serve_http` |
//!
//! ## rmcp is a public dependency
//!
//! toolsmith is built on [rmcp](https://docs.rs/rmcp) **3.11**, and rmcp's types appear in
//! its public API: [`ToolInfo::mcp_tool`](crate::tool::ToolInfo::mcp_tool) returns an `rmcp::model::Tool`,
//! [`Error::Initialize`] holds an `rmcp::service::ServerInitializeError`, and the test
//! client (feature `testing`) returns rmcp's `Tool`, `CallToolResult` and content blocks. Reach those types through the re-export
//! [`toolsmith::rmcp`](crate::rmcp), or depend on exactly the same rmcp version
//! (`rmcp = "=3.11.0"`): with another version, the types are different types and will not
//! fit. An rmcp upgrade of toolsmith is a breaking release of toolsmith.

#![cfg_attr(docsrs, feature(doc_cfg))]

// The README's example compiles as it stands (a doctest of its own).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctest;

// The runtime by layer; dependencies point one way (checked in CI by `module-graph`):
// - `tool/`: what a tool is (definitions, hints, arguments, schemas, outputs).
// - `context/`: what a call can ask for (state, progress, cancellation, client log, caller,
//   `Elicit` and `Sample`); a call talks to its client (notifications, requests) through a
//   channel the serving side provides, or, on 2026-07-28, through the questions of its round
//   (`inquiry.rs`).
// - `resource/`, `prompt/`: what a resource (or template) and a prompt are, beside `tool/`;
//   `complete/`: what an argument completion is.
// - `registry/`: every tool, resource and prompt, search by hints, the hints snapshot.
// - `auth/` (feature `auth`): the JWKS, read again in the background, and JWT validation, a
//   token into a `Caller`.
// - `transport/`: byte streams and framing, one folder per transport; knows no server.
// - `server/`: the builder; `call/`, the one call pipeline every way in runs; `session/`,
//   sessions by transport with their fast paths; `adapter/`, what rmcp's service drives;
//   policy, access, `tools/list`.
// - `layer/`: what a layer around every call sees and answers, and `RateLimit`; the
//   pipeline runs them (`server/call/layer.rs`).
// - `approve/`: who decides a confirmation besides the user at the client (`Approver`,
//   `Rules`, remembered `Grants`); the pipeline consults them (`server/call/ask.rs`).
// - `task/`: what a task is (a call that runs on after its handle was sent), and the
//   stores that keep tasks (memory; Redis, feature `redis`); the pipeline runs them
//   (`server/call/task/`).
// - `metrics/` (feature `metrics`): the Prometheus series of one server, which the pipeline
//   and the HTTP transport record into, and a program's own (`Series`, public); without the feature, `metrics/off.rs`: the same
//   names, with types that are never made.
// - `trace/` (feature `otel`): spans of HTTP requests and tool calls, exported over OTLP;
//   without the feature, `trace/off.rs`: the same names, doing nothing.
// - `net/` (feature `fetch`): the outbound-fetch guard (what fetches a URL a client gave).
// - `tls.rs` (features `auth`, `webhook`, `otel`, `fetch`): the cryptography of the HTTPS
//   clients.
// - `command_line/` (the command line every server binary gets), `run.rs` (a binary's entry
//   point: the command line applied to a server), `logging.rs` (stderr), `error.rs`.
#[macro_use]
mod macros;

pub mod approve;
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub mod auth;
#[cfg(feature = "bundle")]
#[cfg_attr(docsrs, doc(cfg(feature = "bundle")))]
pub mod bundle;
mod command_line;
pub mod complete;
pub mod context;
pub mod error;
pub mod guide;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod html;
pub mod item;
pub mod layer;
mod logging;
#[cfg(feature = "metrics")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub mod metrics;
#[cfg(not(feature = "metrics"))]
#[path = "metrics/off.rs"]
mod metrics;
#[cfg(feature = "fetch")]
#[cfg_attr(docsrs, doc(cfg(feature = "fetch")))]
pub mod net;
mod outcome;
pub mod prompt;
pub mod registry;
mod request;
pub mod resource;
mod run;
pub mod server;
mod setting;
#[cfg(feature = "signin")]
#[cfg_attr(docsrs, doc(cfg(feature = "signin")))]
pub mod signin;
pub mod task;
#[cfg(feature = "testing")]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing;
#[cfg(any(
    feature = "auth",
    feature = "webhook",
    feature = "otel",
    feature = "fetch"
))]
mod tls;
pub mod tool;
#[cfg(feature = "otel")]
mod trace;
#[cfg(not(feature = "otel"))]
#[path = "trace/off.rs"]
mod trace;
mod transport;

// The crate root: what a first server needs. Everything else is in the module named for
// what it holds (`context`, `tool`, `resource`, `prompt`, `registry`, `server`, ...).
pub use context::{CallContext, Progress, State};
pub use error::{Error, ToolError};
pub use registry::Registry;
pub use run::run;
pub use server::{Server, serve_stdio};
pub use setting::Setting;
pub use tool::{Hints, JsonObject, Tool, ToolDescription};

/// The MCP SDK toolsmith is built on (3.11), for the rare need to reach its model types;
/// see [rmcp is a public dependency](crate#rmcp-is-a-public-dependency).
///
/// ```
/// let version = toolsmith::rmcp::model::ProtocolVersion::V_2025_11_25;
/// assert_eq!(version.as_str(), "2025-11-25");
/// ```
pub use rmcp;

/// The web framework the HTTP transport is built on (0.8), for the routes a program adds
/// beside the MCP endpoint ([`Server::http_routes`]).
///
/// ```
/// let router: toolsmith::axum::Router = toolsmith::axum::Router::new();
/// # let _ = router;
/// ```
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use axum;

/// Turns a `fn` or `async fn` into a registered MCP tool.
///
/// ```no_run
/// /// Delete a note. Deleting a note that is already gone is not an error.
/// ///
/// /// # Arguments
/// /// * `note_id` - The note's id.
/// #[toolsmith::tool(destructive, idempotent, closed_world, title = "Delete note")]
/// fn delete_note(note_id: u64) -> bool {
///     note_id > 0
/// }
///
/// assert!(delete_note(1)); // still an ordinary function
/// ```
///
/// Keys:
/// - `read_only`, `destructive`, `idempotent`, `open_world`: hints, each a flag (true) or
///   `key = true|false`. `closed_world` is `open_world = false`.
/// - `title = "..."`: the human-readable title (tool `title` and `annotations.title`).
/// - `name = "..."`: the MCP name (default: the function's name).
/// - `description = "..."`: the description (default: the rustdoc).
/// - `icon = "https://..."` (repeatable) or `icons = ["...", ...]`: the tool's icons, each an
///   `https:` or `data:image/...` URI.
/// - `scopes = ["...", ...]`: the OAuth scopes a caller needs, all of them, over HTTP with
///   authorization (feature `auth`); by default the hints decide (see [`ScopeNames`](crate::tool::ScopeNames)).
/// - `max_concurrency = N`: at most N calls of the tool run at once; more wait for a slot,
///   up to the tool's `timeout` (see [`layer::ConcurrencyLimit`]).
/// - `json_schema = "2020-12"`: the input schema names its dialect (`$schema`) and keeps
///   its named subschemas in `$defs`, for clients that validate strictly; by default schemas
///   are portable (no `$schema`, subschemas inlined).
/// - `category = "..."` and `tags = ["...", ...]`: what the tool is about, for listings,
///   metrics (`category`) and rules (`tags`).
/// - `timeout = "30s"`: the longest a call runs; past it the call ends with an error.
/// - `confirm` or `confirm = "Delete note {note_id}?"`: the user is asked before every call,
///   `{argument}` shown as the call gives it; `confirm_with = function`: the question made by
///   a function with the tool's own parameters (see [the asking guide](crate::guide::asking)).
/// - `blocking`: the calls run on a thread of the server's pool from the first (a tool that
///   blocks: a file scan, a query); an undeclared sync `fn` runs where its call was read
///   once its calls prove quick.
/// - `task` or `task = "required"`: the call may (or must) run as a task of the tasks
///   extension, polled by the client.
/// - `allow_name_mismatch`: keeps a name the name lint warns about (a `delete_` tool that is
///   not destructive, ...).
///
/// Parameters of the context types ([`State`], [`Progress`], [`Cancellation`](crate::context::Cancellation),
/// [`ClientLog`](crate::context::ClientLog), [`Caller`](crate::context::Caller)) are filled by the server, not from the arguments.
///
/// The return type decides the result: `()` (no content), `String` (one text block), a
/// content type ([`Image`](crate::tool::Image), [`Audio`](crate::tool::Audio), [`ResourceLink`](crate::tool::ResourceLink), [`EmbeddedResource`](crate::tool::EmbeddedResource), a `Vec` of
/// [`Content`](crate::tool::Content), [`ToolOutput`](crate::tool::ToolOutput)), or any `Serialize + JsonSchema` type (structured content
/// with an `outputSchema`); each also inside `Result`.
///
/// Unstated hints take the specification's cautious defaults: destructive, not
/// idempotent, open-world; `read_only` implies not destructive and idempotent.
pub use toolsmith_macros::tool;

/// Turns a `fn` or `async fn` into a registered MCP resource (`resources/list`) or, when its
/// URI has `{variables}`, a resource template (`resources/templates/list`).
///
/// ```no_run
/// use serde::Serialize;
/// use toolsmith::resource;
///
/// #[derive(Serialize)]
/// struct Note { id: u64, title: String }
///
/// /// Every note's id and title.
/// #[resource(uri = "notes://index", title = "Note index", mime_type = "application/json")]
/// fn index() -> Vec<Note> {
///     vec![Note { id: 1, title: "Groceries".into() }]
/// }
///
/// /// One note, as JSON.
/// ///
/// /// # Arguments
/// /// * `note_id` - The note's id.
/// #[resource(uri = "notes://{note_id}", mime_type = "application/json")]
/// fn note(note_id: u64) -> Option<Note> {
///     (note_id == 1).then(|| Note { id: 1, title: "Groceries".into() })
/// }
/// ```
///
/// `resources/read` of a URI finds the resource of exactly that URI, else the template that
/// matches it, and fills the function's parameters from the URI's variables, decoded by
/// their types (`notes://7` gives `note_id: u64` the value 7). Every variable must be a
/// parameter and every other parameter a context parameter ([`State`], [`Caller`](crate::context::Caller),
/// [`ClientLog`](crate::context::ClientLog), [`Cancellation`](crate::context::Cancellation), [`Resources`](crate::context::Resources)): the macro says which one is not.
///
/// Keys:
/// - `uri = "..."` (required): the URI, or an RFC 6570 template with `{var}` (a value
///   without `/`) and `{+var}` (a value that may hold `/`).
/// - `name`, `title`, `description` (default: the rustdoc), `mime_type = "type/subtype"`.
/// - `audience = ["user", "assistant"]`, `priority = 0.0..=1.0`: annotations.
/// - `icon`/`icons`, `scopes = [...]` (instead of the read scope), `timeout = "5s"`.
/// - `complete(var = fn, ...)`: a fn `fn(&str, &Completion) -> Vec<String>` (or an
///   `async fn`) that completes a variable (`completion/complete`).
///
/// The return type decides the contents: `String` (text, `text/plain` unless `mime_type`
/// says otherwise), `Vec<u8>` or `Bytes` (a base64 blob), [`Image`](crate::tool::Image) or [`Audio`](crate::tool::Audio) (a blob of
/// its type), any other `Serialize` type (JSON text, `application/json`). Each may be inside
/// `Option` (`None`: "resource not found", -32002), [`Modified`](crate::resource::Modified) (dated) and `Result<_, E>`
/// (a [`ToolError`] is shown to the client as an error, any other is masked).
pub use toolsmith_macros::resource;

/// Turns a `fn` or `async fn` into a registered MCP prompt (`prompts/list`, `prompts/get`).
///
/// ```no_run
/// use toolsmith::prompt;
///
/// /// Summarize the notes, or only those with a tag.
/// ///
/// /// # Arguments
/// /// * `tag` - Only notes with this tag.
/// #[prompt(title = "Summarize notes")]
/// fn summarize_notes(tag: Option<String>) -> String {
///     match tag {
///         Some(tag) => format!("Summarize my notes tagged {tag}."),
///         None => "Summarize my notes.".to_owned(),
///     }
/// }
/// ```
///
/// Its parameters are the prompt's arguments (an `Option<T>` one is optional; the rustdoc's
/// `# Arguments` describes each), decoded from the strings the client sends by their types;
/// a missing required argument is refused with `-32602`. Context parameters are filled by
/// the server, as for a tool. It returns a `String` (one user message), a [`PromptMessage`](crate::prompt::PromptMessage)
/// or a `Vec<PromptMessage>` (roles and content blocks, images included), also inside
/// `Result`.
///
/// Keys: `name`, `title`, `description`, `icon`/`icons`, `scopes = [...]`, `timeout`, and
/// `complete(arg = fn, ...)` as for [`resource`](macro@resource).
pub use toolsmith_macros::prompt;

#[doc(hidden)]
pub mod __private;

extern crate self as toolsmith;

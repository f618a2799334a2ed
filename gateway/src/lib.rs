//! toolsmith's hint governance in front of any MCP server: an upstream server's tools,
//! mounted into a toolsmith [`Server`](toolsmith::Server) as tools made at run time
//! ([`toolsmith::Tool`]), each under a name prefix. Every call of one goes through the
//! toolsmith pipeline first (the serving policy, the scopes its hints imply, confirmation,
//! layers, rate limits, metrics, traces, the call log), then to the upstream.
//!
//! An upstream's hints are what it says; a hint it leaves unstated takes the specification's
//! cautious default (destructive, not idempotent, open-world), as a `#[tool]` without the key
//! does: a server that never says `readOnlyHint` is served as one that may write. A result
//! comes back as the upstream gave it (its blocks with their annotations, its structured
//! content); an error result becomes an error result with its text. The upstream gets only
//! the environment (or, over HTTP, the headers) its configuration names (and `PATH`), never
//! the gateway's own, and no token a client sent the gateway.
//!
//! The `toolsmith` CLI serves a configuration file of upstreams (Claude Desktop's
//! `claude_desktop_config.json` as it is, or [`Config`]'s TOML) with every serving flag of a
//! toolsmith server: `toolsmith gateway --config FILE serve --read-only --http
//! 127.0.0.1:8080`.
//!
//! An upstream is a stdio command ([`Upstream::stdio`]) or a Streamable HTTP endpoint
//! ([`Upstream::http`], with the headers its configuration gives it).
//!
//! At connect, an upstream's tools go through the checks of `toolsmith audit` (its findings
//! are logged, and kept: [`Mounted::findings`]); with [`Upstream::strict_hints`], a tool that
//! leaves a hint unstated is left out instead of served with the cautious defaults.
//!
//! Not yet: an upstream's own questions (elicitation,
//! sampling) passed to the client (an upstream that confirms its own destructive calls
//! refuses them, since the gateway's client cannot be asked), its progress, logs and
//! `list_changed`, its resources and prompts, restarting an upstream that dies, per-tool
//! hint overrides and a pinned snapshot of its tools.
//!
//! ```no_run
//! # async fn gateway() -> Result<(), Box<dyn std::error::Error>> {
//! use toolsmith::{Confirm, Policy, Server};
//! use toolsmith_gateway::Upstream;
//!
//! // A Python server, started with only the environment given here.
//! let notes = Upstream::stdio("notes", "python")
//!     .arg("notes_server.py")
//!     .env("NOTES_DIR", "/srv/notes")
//!     .connect()
//!     .await?;
//! // Its tools, as `notes_search`, `notes_delete`, ...: destructive ones confirmed first.
//! let server = Server::with_registry(notes.registry()?)
//!     .policy(Policy::new().deny_open_world(true))
//!     .confirm(Confirm::Destructive);
//! server.serve_stdio().await?;
//! # Ok(()) }
//! ```

mod config;
mod error;
mod proxied;
mod upstream;

pub use config::Config;
pub use error::Error;
pub use upstream::{Mounted, Upstream};

//! # The toolsmith guide
//!
//! toolsmith declares [Model Context Protocol](https://modelcontextprotocol.io) tools as
//! ordinary Rust functions with honest behaviour hints, and serves them over stdio and
//! Streamable HTTP. This guide walks through it one topic a page; every Rust example in it
//! is compiled and run by `cargo test`, so that it cannot drift from the API.
//!
//! | page | what it covers |
//! | --- | --- |
//! | [`quickstart`] | a new crate from zero, its complete `Cargo.toml`, Claude Desktop |
//! | [`tools`] | `#[tool]`: every key of the attribute, the hints and their defaults, the open-world hint |
//! | [`context`] | parameters that are not arguments: `State`, `Progress`, `Cancellation`, `ClientLog`, timeouts |
//! | [`results`] | what a tool returns: JSON, text, images, audio, files, several blocks, links |
//! | [`testing`] | `toolsmith::testing::Client`: calls, hints and notifications in a test |
//! | [`cli`] | the command line every server has, and the hints snapshot CI checks |
//! | [`stdio`] | serving over stdio: the ways to serve, guarded streams, fuzzing, protocol versions |
//! | [`http`] | serving over Streamable HTTP, sessions, behind nginx |
//! | [`security`] | the limits on what a client may send, in one table |
//! | [`auth`] | OAuth 2.1 bearer tokens, and scopes derived from the hints |
//! | [`asking`] | confirmation of destructive calls, `Elicit` and `Sample` |
//! | [`items`] | resources, prompts and completions |
//! | [`tasks`] | long-running tools as tasks, and the Redis store replicas share |
//! | [`operating`] | traces, metrics, layers around every call |
//! | [`audit`] | `toolsmith audit` of any MCP server's hints |
//! | [`install`] | one-click install: an MCP Bundle of the server, and its `server.json` for the registry |
//! | [`performance`] | the benchmarks and what they measure |
//! | [`layout`] | where things live in the source |
//!
//! Built with every feature (as docs.rs builds it), every page is here; the quickstart,
//! testing, tasks and asking pages need `testing`, the HTTP and security pages `http`, and the
//! authorization page `auth`, for their examples.

#[cfg_attr(feature = "testing", doc = include_str!("quickstart.md"))]
#[cfg_attr(
    not(feature = "testing"),
    doc = "Its examples need the `testing` feature: build the docs with it (docs.rs does)."
)]
pub mod quickstart {}
#[doc = include_str!("tools.md")]
pub mod tools {}
#[doc = include_str!("context.md")]
pub mod context {}
#[doc = include_str!("results.md")]
pub mod results {}
#[cfg_attr(feature = "testing", doc = include_str!("testing.md"))]
#[cfg_attr(
    not(feature = "testing"),
    doc = "Its examples need the `testing` feature: build the docs with it (docs.rs does)."
)]
pub mod testing {}
#[doc = include_str!("cli.md")]
pub mod cli {}
#[doc = include_str!("stdio.md")]
pub mod stdio {}
#[cfg_attr(feature = "http", doc = include_str!("http.md"))]
#[cfg_attr(
    not(feature = "http"),
    doc = "Its examples need the `http` feature: build the docs with it (docs.rs does)."
)]
pub mod http {}
#[cfg_attr(feature = "http", doc = include_str!("security.md"))]
#[cfg_attr(
    not(feature = "http"),
    doc = "Its examples need the `http` feature: build the docs with it (docs.rs does)."
)]
pub mod security {}
#[cfg_attr(feature = "auth", doc = include_str!("auth.md"))]
#[cfg_attr(
    not(feature = "auth"),
    doc = "Its examples need the `auth` feature: build the docs with it (docs.rs does)."
)]
pub mod auth {}
// One page in three files: the approvals page's screenshot (a data URI, made by the interop
// suite's browser test) sits between the text before it and the text after it.
#[cfg_attr(feature = "testing", doc = include_str!("asking.md"))]
#[cfg_attr(feature = "testing", doc = include_str!("approvals-page.md"))]
#[cfg_attr(feature = "testing", doc = include_str!("asking-rest.md"))]
#[cfg_attr(
    not(feature = "testing"),
    doc = "Its examples need the `testing` feature: build the docs with it (docs.rs does)."
)]
pub mod asking {}
#[doc = include_str!("items.md")]
pub mod items {}
#[cfg_attr(feature = "testing", doc = include_str!("tasks.md"))]
#[cfg_attr(
    not(feature = "testing"),
    doc = "Its examples need the `testing` feature: build the docs with it (docs.rs does)."
)]
pub mod tasks {}
#[cfg_attr(feature = "testing", doc = include_str!("operating.md"))]
#[cfg_attr(
    not(feature = "testing"),
    doc = "Its examples need the `testing` feature: build the docs with it (docs.rs does)."
)]
pub mod operating {}
#[doc = include_str!("audit.md")]
pub mod audit {}
#[doc = include_str!("install.md")]
pub mod install {}
#[doc = include_str!("performance.md")]
pub mod performance {}
#[doc = include_str!("layout.md")]
pub mod layout {}

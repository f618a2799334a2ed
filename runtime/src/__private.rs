//! What `#[tool]`-generated code names. Not a public API: it may change in any release.

pub use ::inventory;
pub use ::schemars;
pub use ::serde;
pub use ::serde_json;

pub use crate::CallContext;
pub use crate::Hints;
#[cfg(feature = "__test-switches")]
pub use crate::context::AskClient;
pub use crate::context::from::{FromContext, MissingState, StateKey};
pub use crate::tool::args::Arguments;
pub use crate::tool::checks::{
    Fallback, Typed, assert_error, assert_output_schema, assert_result, assert_serialize,
};
pub use crate::tool::content::{IntoContent, assert_content};
pub use crate::tool::def::{
    ConfirmDef, Invocation, OutputDef, PackageAbout, ParamDef, ParamKind, TaskSupport, Timeout,
    ToolDef,
};
pub use crate::tool::output::{Outcome, empty, text};
pub use crate::tool::probe::{
    ContextParam, ContextRole, JsonParam, Probe, ShownInConfirm, SyncContext,
};
pub use crate::tool::schema::OutputSchema;

pub use crate::complete::Candidates;
pub use crate::complete::def::{
    CompleteDef, CompleteLater, CompleteNow, CompletionFn, complete_call, completed,
};
pub use crate::item::ItemDef;
pub use crate::prompt::def::PromptDef;
pub use crate::prompt::message::{IntoMessages, PromptFallback, Prompted, assert_messages};
pub use crate::resource::contents::{assert_resource_serialize, blob, modified, optional};
pub use crate::resource::def::ResourceDef;

/// Turns a server's tools fast path on (the default) or off: with it off, every request
/// goes through rmcp's service loop (toolsmith's tests that compare the two paths).
#[cfg(feature = "__test-switches")]
pub fn fast_path(server: crate::Server, on: bool) -> crate::Server {
    server.fast_path(on)
}

/// The least time between two fetches of the key set when a token names an unknown key
/// (toolsmith's authorization tests).
#[cfg(all(feature = "__test-switches", feature = "auth"))]
pub fn refetch_interval(
    auth: crate::auth::Auth,
    interval: std::time::Duration,
) -> crate::auth::Auth {
    auth.refetch_interval(interval)
}

/// Boxes an async tool's future.
pub fn boxed_async<F>(future: F) -> Invocation
where
    F: std::future::Future<Output = Outcome> + Send + 'static,
{
    Invocation::Async(Box::pin(future))
}

/// Boxes a sync tool's body.
pub fn boxed_blocking<F>(body: F) -> Invocation
where
    F: FnOnce() -> Outcome + Send + 'static,
{
    Invocation::Blocking(Box::new(body))
}

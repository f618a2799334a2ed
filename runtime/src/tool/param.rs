//! What every invocable item (a tool, a resource, a prompt) is made of, below what declares
//! it: its parameters (and where each value comes from), its timeout, and the invocation one
//! call makes. `args.rs` and `schema.rs` build on these; `def.rs` declares a tool with them.

use std::any::TypeId;
use std::future::Future;
use std::pin::Pin;

use schemars::{Schema, SchemaGenerator};

use crate::context::StateKey;
use crate::tool::output::Outcome;

/// A tool's `timeout = "..."`.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Timeout {
    pub millis: u64,
    /// As written, for the message (`timed out after 30s`).
    pub text: &'static str,
}

/// The registered state `State<T>` parameters among `params` need (of a tool, a resource or
/// a prompt).
pub(crate) fn states_of(params: &[ParamDef]) -> impl Iterator<Item = StateKey> + '_ {
    params.iter().filter_map(|param| match (param.kind)() {
        ParamKind::Context { state, .. } => state,
        ParamKind::Argument => None,
    })
}

/// One parameter of a tool.
#[doc(hidden)]
pub struct ParamDef {
    pub name: &'static str,
    pub description: Option<&'static str>,
    pub required: bool,
    pub schema: fn(&mut SchemaGenerator) -> Schema,
    /// Its type, when known: tools whose parameters match share one input schema.
    pub type_id: fn() -> Option<TypeId>,
    /// Where its value comes from, decided by its type (see `tool::probe`).
    pub kind: fn() -> ParamKind,
}

impl ParamDef {
    /// Whether the client passes it: it is in the input schema.
    pub(crate) fn is_argument(&self) -> bool {
        matches!((self.kind)(), ParamKind::Argument)
    }
}

/// Where a parameter's value comes from.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// The call's arguments, decoded from JSON.
    Argument,
    /// The call's context (`State<T>`, `Progress`, ...); `state` is the registered state it
    /// needs, if any; `asks`, whether it asks the client during the call (`Elicit`);
    /// `cancels`, whether it stops a run (`Cancellation`).
    Context {
        state: Option<StateKey>,
        asks: bool,
        cancels: bool,
    },
}

/// A call whose arguments were decoded: ready to run, or refused.
#[doc(hidden)]
pub enum Invocation {
    /// The arguments were wrong; the message says which and how.
    Invalid(String),
    /// A sync tool: on the pool, or in place once its calls prove quick (`tool/place.rs`).
    Blocking(Box<dyn FnOnce() -> Outcome + Send>),
    /// An async tool.
    Async(Pin<Box<dyn Future<Output = Outcome> + Send>>),
}

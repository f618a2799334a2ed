//! What makes a parameter a context parameter: `FromContext`, implemented by each context
//! type, and the state check behind `State<T>`. `#[tool]`-generated code names these
//! through `__private`. Not a public API.

use std::any::TypeId;
use std::convert::Infallible;
use std::fmt;

#[cfg(feature = "__test-switches")]
use super::AskClient;
use super::{CallContext, Caller, Cancellation, ClientLog, Progress, Resources, State};

/// A parameter type filled from the call's context rather than from its arguments. `#[tool]`
/// asks the type, not its name: a parameter whose type implements this trait is a context
/// parameter (left out of the input schema), any other is a JSON argument. Adding a context
/// type is adding an impl here; the macro does not change.
///
/// Like axum's `FromRequestParts`, making the value can fail with the type's `Rejection`,
/// whose text becomes the call's error result.
#[doc(hidden)]
pub trait FromContext: Sized {
    /// Why the value could not be made for this call.
    type Rejection: fmt::Display;

    /// The value for this call.
    fn from_context(context: &CallContext) -> Result<Self, Self::Rejection>;

    /// The registered state this parameter needs: checked when the server starts, so that a
    /// server missing it does not start.
    fn state() -> Option<StateKey> {
        None
    }

    /// Whether this parameter asks the client during the call ([`Elicit`], [`Sample`]): on
    /// 2026-07-28 such a tool's run can stop for an answer.
    fn asks() -> bool {
        false
    }

    /// Whether this parameter lets a call be stopped while it runs ([`Cancellation`]): a sync
    /// tool that takes one runs on a thread of the pool, where a cancellation or a timeout can
    /// reach it, never where its call was read.
    fn cancels() -> bool {
        false
    }
}

#[cfg(feature = "__test-switches")]
impl FromContext for AskClient {
    type Rejection = std::convert::Infallible;

    fn from_context(context: &CallContext) -> Result<Self, Self::Rejection> {
        Ok(AskClient(context.asker()))
    }
}

/// A `State<T>` parameter whose type the server does not have.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingState {
    pub tool: String,
    pub type_name: &'static str,
}

impl fmt::Display for MissingState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool '{}' needs `State<{}>`, which this server does not have: register it with `.state(value)` on the server",
            self.tool, self.type_name
        )
    }
}

impl<T: Send + Sync + 'static> FromContext for State<T> {
    type Rejection = MissingState;

    fn from_context(context: &CallContext) -> Result<Self, MissingState> {
        context
            .states
            .get::<T>()
            .map(State)
            .ok_or_else(|| MissingState {
                tool: context.tool.to_string(),
                type_name: std::any::type_name::<T>(),
            })
    }

    fn state() -> Option<StateKey> {
        Some(state_key::<T>())
    }
}

impl FromContext for Progress {
    type Rejection = Infallible;

    fn from_context(context: &CallContext) -> Result<Self, Infallible> {
        let target = match &context.progress_token {
            Some(token) => context.notifier().map(|n| (token.clone(), n)),
            None => None,
        };
        Ok(Progress { target })
    }
}

impl FromContext for Cancellation {
    type Rejection = Infallible;

    fn from_context(context: &CallContext) -> Result<Self, Infallible> {
        Ok(Cancellation(context.cancel.clone()))
    }

    fn cancels() -> bool {
        true
    }
}

impl FromContext for ClientLog {
    type Rejection = Infallible;

    fn from_context(context: &CallContext) -> Result<Self, Infallible> {
        let target = context
            .notifier()
            .map(|n| (n, context.level.clone(), context.tool.clone()));
        Ok(ClientLog { target })
    }
}

impl FromContext for Resources {
    type Rejection = Infallible;

    fn from_context(context: &CallContext) -> Result<Self, Infallible> {
        Ok(Resources(context.updates.clone()))
    }
}

impl FromContext for Caller {
    type Rejection = Infallible;

    fn from_context(context: &CallContext) -> Result<Self, Infallible> {
        Ok(context.caller.clone())
    }
}

/// The state type a `State<T>` parameter needs, for the startup check.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateKey {
    pub type_id: TypeId,
    pub type_name: &'static str,
}

/// The key of `State<T>`.
fn state_key<T: 'static>() -> StateKey {
    StateKey {
        type_id: TypeId::of::<T>(),
        type_name: std::any::type_name::<T>(),
    }
}

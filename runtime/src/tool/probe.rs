//! Telling context parameters from arguments by type, at compile time, per parameter.
//!
//! `#[tool]` does not know type names. For each parameter type `T` it writes
//! `(&&Probe::<T>::NEW).role()`; method resolution (autoref specialization) picks
//! [`ContextParam`] when `T` implements [`FromContext`] (its impl is for `&Probe<T>`, one
//! reference closer to the receiver), and [`JsonParam`] otherwise (its impl is for `Probe<T>`
//! and has no bound). The role is a [`ContextRole`] or a [`Typed`]: both have `take` and
//! `kind`, so the generated code is the same for every parameter. `assert_deserialize` and
//! `assert_param_schema` are the parameter's type checks, each called once: for an argument
//! they need `Deserialize` and `JsonSchema`, and a type that is neither a context type nor
//! JSON fails there, with the message that says what to derive.

use std::marker::PhantomData;

use crate::context::{CallContext, FromContext};
use crate::tool::args::Arguments;
use crate::tool::checks::{ParamDeserialize, ParamSchema, Typed};
use crate::tool::param::ParamKind;

/// The receiver of the probe: `(&&Probe::<T>::NEW).role()`.
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    pub const NEW: Self = Probe(PhantomData);
}

/// Picked for a context type: its impl is for `&Probe<T>` and needs `T: FromContext`.
pub trait ContextParam<T> {
    fn role(&self) -> ContextRole<T>;
    /// A context type needs nothing more.
    fn assert_deserialize(&self) {}
    fn assert_param_schema(&self) {}
    /// A `confirm` message names only arguments: a context value has nothing to show.
    fn assert_shown_in_confirm(&self)
    where
        T: ShownInConfirm,
    {
    }
    /// A sync tool takes only context parameters that need no awaiting.
    fn assert_in_sync_tool(&self)
    where
        T: SyncContext,
    {
    }
}

/// The context parameters a sync (`fn`) tool may take: all but those that ask the client
/// during the call ([`Elicit`](crate::context::Elicit), [`Sample`](crate::context::Sample)), whose answer must
/// be awaited.
#[diagnostic::on_unimplemented(
    message = "`{Self}` asks the client during the call, and a sync tool cannot await the answer",
    label = "needs an `async fn` tool",
    note = "make the tool an `async fn`"
)]
pub trait SyncContext {}

impl<T: ?Sized> SyncContext for crate::State<T> {}
impl SyncContext for crate::Progress {}
impl SyncContext for crate::context::Cancellation {}
impl SyncContext for crate::context::ClientLog {}
impl SyncContext for crate::context::Caller {}
impl SyncContext for crate::context::Resources {}
impl SyncContext for crate::context::Store {}
#[cfg(feature = "signin")]
impl SyncContext for crate::signin::Issuing {}
#[cfg(feature = "__test-switches")]
impl SyncContext for crate::context::AskClient {}

/// What a `confirm = "..."` message may name: an argument. No type implements it; a context
/// parameter named in a message fails here, with this message.
#[diagnostic::on_unimplemented(
    message = "`confirm` names a context parameter (`{Self}`): a message can show only the tool's arguments",
    label = "names a parameter that is filled by the server, not by the client",
    note = "remove the placeholder, or name an argument of the tool; a question that needs the server's state is made by a function: `confirm_with = delete_question`"
)]
pub trait ShownInConfirm {}

impl<T: FromContext> ContextParam<T> for &Probe<T> {
    fn role(&self) -> ContextRole<T> {
        ContextRole(PhantomData)
    }
}

/// Picked for every other type: an argument, decoded from JSON.
pub trait JsonParam<T> {
    fn role(&self) -> Typed<T> {
        Typed::NEW
    }
    /// The checks of an argument's type. Their bounds are on the methods, not the impl, so
    /// that a type that is neither context nor JSON still lands here and fails with the
    /// message of each bound it misses.
    fn assert_deserialize(&self)
    where
        T: ParamDeserialize,
    {
    }
    fn assert_param_schema(&self)
    where
        T: ParamSchema,
    {
    }
    /// Every argument can be shown in a `confirm` message.
    fn assert_shown_in_confirm(&self) {}
    /// Every argument can be taken by a sync tool.
    fn assert_in_sync_tool(&self) {}
}

impl<T> JsonParam<T> for Probe<T> {}

/// A context parameter's way in: made from the call's context.
pub struct ContextRole<T>(PhantomData<T>);

impl<T: FromContext> ContextRole<T> {
    /// The value for this call; a rejection is recorded in `args` and ends the call.
    pub fn take(self, args: &mut Arguments<'_>, context: &CallContext, _: usize) -> Option<T> {
        match T::from_context(context) {
            Ok(value) => Some(value),
            Err(rejection) => {
                args.reject(rejection);
                None
            }
        }
    }

    pub fn kind(self) -> ParamKind {
        ParamKind::Context {
            state: T::state(),
            asks: T::asks(),
            cancels: T::cancels(),
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::JsonObject;
    use serde_json::json;
    use tokio_util::sync::CancellationToken;

    use crate::context::{CallContext, SessionLevel, StateKey, StateMap};
    use crate::tool::args::Arguments;
    use crate::tool::def::{Invocation, ParamKind, ToolDef};
    use crate::tool::info::{SchemaCache, ToolInfo};
    use crate::tool::output::{Outcome, Output};
    use crate::{Progress, State, context::Caller, tool};

    /// State no server in this test has.
    struct Missing;

    /// Needs state nobody registered.
    #[tool(read_only, closed_world)]
    fn probe_needs_missing(missing: State<Missing>, progress: Progress, n: u32) -> u32 {
        let _ = (&*missing, progress);
        n
    }

    /// Takes a context parameter between two arguments.
    #[tool(read_only, closed_world)]
    fn probe_between(a: u32, progress: Progress, b: Option<String>) -> String {
        let _ = progress;
        format!("{a} {b:?}")
    }

    fn def(name: &str) -> &'static ToolDef {
        inventory::iter::<ToolDef>
            .into_iter()
            .find(|def| def.item.name == name)
            .unwrap()
    }

    /// Runs `name` with `args` and no state, as the server would (without its timeout).
    fn call(name: &str, args: serde_json::Value) -> Outcome {
        let def = def(name);
        let tool = ToolInfo::new(def, &mut SchemaCache::default());
        let context = CallContext::new(
            def.item.name.into(),
            StateMap::default(),
            CancellationToken::new(),
            None,
            None,
            SessionLevel::default(),
            Caller::anonymous(),
        );
        let args: JsonObject = serde_json::from_value(args).unwrap();
        let arguments = Arguments::new(Some(args), def.params, tool.expected());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        match (def.invoke)(arguments, &context) {
            Invocation::Invalid(problems) => Outcome::Invalid(problems),
            Invocation::Blocking(body) => body(),
            Invocation::Async(body) => runtime.block_on(body),
        }
    }

    #[test]
    fn parameter_kinds_come_from_the_types() {
        let kinds: Vec<ParamKind> = def("probe_needs_missing")
            .params
            .iter()
            .map(|p| (p.kind)())
            .collect();
        let missing = StateKey {
            type_id: std::any::TypeId::of::<Missing>(),
            type_name: std::any::type_name::<Missing>(),
        };
        assert_eq!(
            kinds,
            [
                ParamKind::Context {
                    state: Some(missing),
                    asks: false,
                    cancels: false,
                },
                ParamKind::Context {
                    state: None,
                    asks: false,
                    cancels: false,
                },
                ParamKind::Argument,
            ]
        );
        let states: Vec<StateKey> = def("probe_needs_missing").states().collect();
        assert_eq!(states, [missing], "the startup check needs `Missing`");
        assert_eq!(def("probe_between").states().count(), 0);
    }

    #[test]
    fn a_missing_state_ends_the_call_with_a_message_naming_it() {
        let expected = format!(
            "tool 'probe_needs_missing' needs `State<{}>`, which this server does not have: register it with `.state(value)` on the server",
            std::any::type_name::<Missing>()
        );
        let outcome = call("probe_needs_missing", json!({"n": 1}));
        assert!(
            matches!(&outcome, Outcome::ToolError(message) if *message == expected),
            "{outcome:?}"
        );
        // Wrong arguments do not hide it: fixing them would not help.
        let outcome = call("probe_needs_missing", json!({"n": "x", "extra": 1}));
        assert!(
            matches!(&outcome, Outcome::ToolError(message) if *message == expected),
            "{outcome:?}"
        );
    }

    #[test]
    fn context_parameters_are_not_arguments() {
        let def = def("probe_between");
        let tool = ToolInfo::new(def, &mut SchemaCache::default());
        let schema = tool.input_schema();
        assert_eq!(
            schema["properties"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(schema["required"], json!(["a"]));
        assert_eq!(tool.expected(), ["an integer", "", "a string"]);

        let outcome = call("probe_between", json!({"a": 1, "b": "x"}));
        assert!(
            matches!(&outcome, Outcome::Ok(Output::Text(text)) if text == "1 Some(\"x\")"),
            "{outcome:?}"
        );
        let outcome = call("probe_between", json!({"a": true, "progress": 1}));
        let Outcome::Invalid(problems) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(
            problems,
            "argument `a` is invalid (expected an integer): invalid type: boolean `true`, expected u32; unknown argument `progress` (this tool takes `a`, `b`)"
        );
    }
}

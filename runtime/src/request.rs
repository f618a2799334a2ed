//! A request as one value. A tool call, once resolved and allowed ([`Call`]: the tool, its
//! arguments, who calls and how, its cancellation), travels as it is through every later step
//! of the call pipeline: the layers (which see it as [`crate::layer::Call`]), confirmation,
//! the task, the engine. [`CallSetup`] is what a way in knows of a request besides its params;
//! [`Retry`] what a 2026-07-28 retry carries. It knows no server and no transport: a way in
//! makes it, the pipeline consumes it.

use std::sync::Arc;

use rmcp::model::{
    Extensions, InputResponses, JsonObject, ProgressToken, ProtocolVersion, RequestMetaObject,
};
use tokio_util::sync::CancellationToken;

use crate::context::{ClientChannel, SessionLevel};
use crate::tool::ToolRef;
use crate::{Caller, LogLevel, ToolInfo};

/// One tool call, as a layer sees it: resolved and allowed, not yet confirmed or run.
pub struct Call {
    pub(crate) tool: ToolRef,
    pub(crate) arguments: Option<JsonObject>,
    /// What the way in knows of it besides its params: who calls, its channel, progress
    /// token and log level.
    pub(crate) setup: CallSetup,
    /// What a retry of it carries (2026-07-28), and its `_meta`.
    pub(crate) retry: Retry,
    /// The client's cancellation of it.
    pub(crate) cancel: CancellationToken,
    /// It is answered with a task's handle, and its tool runs after (`#[tool(task)]`).
    pub(crate) as_task: bool,
    /// What layers give the layers inside them.
    extensions: Extensions,
}

impl Call {
    /// The tool called: its name, hints, scopes.
    ///
    /// ```
    /// fn is_read(call: &toolsmith::layer::Call) -> bool {
    ///     call.tool().hints().read_only
    /// }
    /// ```
    pub fn tool(&self) -> &ToolInfo {
        &self.tool
    }

    /// Who calls: the token's subject and scopes over HTTP with authorization, the local
    /// user otherwise.
    ///
    /// ```
    /// fn who(call: &toolsmith::layer::Call) -> &str {
    ///     call.caller().subject().unwrap_or("local user")
    /// }
    /// ```
    pub fn caller(&self) -> &Caller {
        &self.setup.caller
    }

    /// The arguments, as the client sent them (not yet decoded).
    ///
    /// ```
    /// fn has_query(call: &toolsmith::layer::Call) -> bool {
    ///     call.arguments().is_some_and(|args| args.contains_key("query"))
    /// }
    /// ```
    pub fn arguments(&self) -> Option<&JsonObject> {
        self.arguments.as_ref()
    }

    /// Whether it is answered with a task's handle at once, its tool running after the
    /// answer (a tool that declares `task`, called by a client with the tasks extension).
    /// What a layer does around such a call is done around making the task: a
    /// [`ConcurrencyLimit`](crate::layer::ConcurrencyLimit) lets it through, and the run waits for a slot of the tool's own
    /// `max_concurrency` instead (a limit of every tool, `default_limit`, does not bound runs).
    ///
    /// ```
    /// fn quick(call: &toolsmith::layer::Call) -> bool {
    ///     call.runs_as_task()
    /// }
    /// ```
    pub fn runs_as_task(&self) -> bool {
        self.as_task
    }

    /// What a layer put on the call for the layers inside it, by type (a tenant decided
    /// from the caller, a budget): as `http::Extensions` are on an HTTP request.
    ///
    /// ```
    /// #[derive(Clone)]
    /// struct Tenant(&'static str);
    ///
    /// fn tenant(call: &toolsmith::layer::Call) -> &str {
    ///     call.extensions().get::<Tenant>().map_or("none", |t| t.0)
    /// }
    /// ```
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// [`Call::extensions`], to add to.
    ///
    /// ```
    /// #[derive(Clone)]
    /// struct Tenant(&'static str);
    ///
    /// fn tag(call: &mut toolsmith::layer::Call) {
    ///     call.extensions_mut().insert(Tenant("acme"));
    /// }
    /// ```
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        &mut self.extensions
    }
}

impl Call {
    /// The call of `tool`, resolved and allowed, as the pipeline's steps after access see it.
    pub(crate) fn new(
        tool: ToolRef,
        arguments: Option<JsonObject>,
        retry: Retry,
        cancel: CancellationToken,
        setup: CallSetup,
        as_task: bool,
    ) -> Call {
        Call {
            tool,
            arguments,
            setup,
            retry,
            cancel,
            as_task,
            extensions: Extensions::new(),
        }
    }
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the arguments: they may hold what logs must not.
        f.debug_struct("Call")
            .field("tool", &self.tool.name())
            .field("caller", &self.setup.caller.subject())
            .finish_non_exhaustive()
    }
}

/// What a call runs with besides its params, as its way in knows it.
#[derive(Default)]
pub(crate) struct CallSetup {
    /// The client's progress token.
    pub(crate) progress: Option<ProgressToken>,
    /// The log level of this call (the session's, or the call's own on 2026-07-28); none:
    /// no log message is sent.
    pub(crate) level: Option<SessionLevel>,
    /// Its channel to the client, when it has one.
    pub(crate) sink: Option<Arc<dyn ClientChannel>>,
    /// The request carried its own revision (2026-07-28).
    pub(crate) per_request: bool,
    /// Who is calling.
    pub(crate) caller: Caller,
    /// The person who runs the call confirmed it already (`call --yes`).
    pub(crate) confirmed: bool,
    /// The span of the HTTP request it came in (none: not traced): the call's span is its
    /// child, wherever the call runs (rmcp's task, a pool thread).
    #[cfg(feature = "otel")]
    pub(crate) trace: Option<crate::trace::Handoff>,
}

impl CallSetup {
    /// What the request's `_meta` sets, on every way in alike: its progress token, and, when
    /// it carries its revision (2026-07-28), its own log level (none: no log message may be
    /// sent for it).
    pub(crate) fn of_meta(meta: &RequestMetaObject) -> CallSetup {
        let version = meta.protocol_version();
        let level = version
            .as_ref()
            .map(|_| SessionLevel::fixed(meta.log_level().map(LogLevel::from_wire)));
        CallSetup {
            progress: meta.get_progress_token(),
            // A request that names an earlier revision in its `_meta` is still of a session.
            per_request: version.is_some_and(|v| v >= ProtocolVersion::V_2026_07_28),
            level,
            ..CallSetup::default()
        }
    }
}

/// What a call's retry carries besides its arguments (2026-07-28).
#[derive(Default)]
pub(crate) struct Retry {
    pub(crate) input_responses: Option<InputResponses>,
    pub(crate) request_state: Option<String>,
    pub(crate) meta: Option<RequestMetaObject>,
}

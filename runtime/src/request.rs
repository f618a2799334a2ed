//! A request as one value. A tool call, a resource read or a prompt get, once resolved and
//! allowed ([`Call`]: what it is made to, its arguments, who calls and how, its
//! cancellation), travels as it is through every later step of the pipeline: the layers
//! (which see it as [`crate::layer::Call`]), then its kind's own steps (a tool's
//! confirmation, task and engine as a `ToolCall`; a read's or a prompt's engine). [`CallSetup`] is what a way in knows of a request besides its params;
//! [`Retry`] what a 2026-07-28 retry carries. It knows no server and no transport: a way in
//! makes it, the pipeline consumes it.

use std::sync::Arc;

use rmcp::model::{
    Extensions, InputResponses, JsonObject, ProgressToken, ProtocolVersion, RequestMetaObject,
};
use tokio_util::sync::CancellationToken;

use crate::context::{ClientChannel, SessionLevel};
use crate::item::Header;
use crate::tool::ToolRef;
use crate::{
    context::Caller, context::LogLevel, prompt::PromptInfo, resource::ResourceInfo, tool::ToolInfo,
};

/// One request to a tool, a resource or a prompt, as a layer sees it: resolved and
/// allowed, not yet confirmed or run. A `tools/call`, a `resources/read` or a `prompts/get`
/// ([`Call::method`]); what it is made to ([`Call::item`]).
pub struct Call {
    pub(crate) request: Request,
    /// What layers give the layers inside them.
    extensions: Extensions,
}

/// What a [`Call`] is made to: the pipeline's own value of each kind of request.
pub(crate) enum Request {
    Tool(ToolCall),
    Read(ReadCall),
    Prompt(PromptCall),
}

/// A tool call, once resolved and allowed: what confirmation, the task and the engine run.
pub(crate) struct ToolCall {
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
}

/// A `resources/read`, once resolved and allowed.
pub(crate) struct ReadCall {
    pub(crate) resource: ResourceInfo,
    pub(crate) uri: String,
    /// The template's variables, as the function's parameters take them.
    pub(crate) arguments: JsonObject,
    pub(crate) setup: CallSetup,
    pub(crate) cancel: CancellationToken,
}

/// A `prompts/get`, once resolved and allowed.
pub(crate) struct PromptCall {
    pub(crate) prompt: PromptInfo,
    pub(crate) arguments: JsonObject,
    pub(crate) setup: CallSetup,
    pub(crate) cancel: CancellationToken,
}

/// What a [`Call`] is made to.
///
/// ```
/// use toolsmith::layer::{Call, Item};
///
/// /// Whether a call may change anything: only a tool that is not read-only can.
/// fn may_write(call: &Call) -> bool {
///     match call.item() {
///         Item::Tool(tool) => !tool.hints().read_only,
///         Item::Resource(_) | Item::Prompt(_) => false,
///         _ => true,
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Item<'a> {
    /// A `tools/call`.
    Tool(&'a ToolInfo),
    /// A `resources/read` of a resource, or of a URI a template matches.
    Resource(&'a ResourceInfo),
    /// A `prompts/get`.
    Prompt(&'a PromptInfo),
}

impl Call {
    /// What it is made to: the tool, the resource (or template) or the prompt.
    ///
    /// ```
    /// use toolsmith::layer::{Call, Item};
    ///
    /// fn is_read(call: &Call) -> bool {
    ///     matches!(call.item(), Item::Resource(_))
    /// }
    /// ```
    pub fn item(&self) -> Item<'_> {
        match &self.request {
            Request::Tool(call) => Item::Tool(&call.tool),
            Request::Read(read) => Item::Resource(&read.resource),
            Request::Prompt(get) => Item::Prompt(&get.prompt),
        }
    }

    /// The MCP method: `tools/call`, `resources/read` or `prompts/get`.
    ///
    /// ```
    /// fn method(call: &toolsmith::layer::Call) -> &'static str {
    ///     call.method()
    /// }
    /// ```
    pub fn method(&self) -> &'static str {
        match &self.request {
            Request::Tool(_) => "tools/call",
            Request::Read(_) => "resources/read",
            Request::Prompt(_) => "prompts/get",
        }
    }

    /// What the item says of itself, whatever its kind: name, title, scopes, where.
    ///
    /// ```
    /// fn name(call: &toolsmith::layer::Call) -> &str {
    ///     call.header().name()
    /// }
    /// ```
    pub fn header(&self) -> &Header {
        match self.item() {
            Item::Tool(tool) => tool.header(),
            Item::Resource(resource) => resource.header(),
            Item::Prompt(prompt) => prompt.header(),
        }
    }

    /// The tool called, when it is a `tools/call`: its name, hints, scopes.
    ///
    /// ```
    /// fn is_destructive(call: &toolsmith::layer::Call) -> bool {
    ///     call.tool().is_some_and(|tool| tool.hints().destructive)
    /// }
    /// ```
    pub fn tool(&self) -> Option<&ToolInfo> {
        match &self.request {
            Request::Tool(call) => Some(&call.tool),
            Request::Read(_) | Request::Prompt(_) => None,
        }
    }

    /// The URI read, when it is a `resources/read` (a template's matched URI as asked).
    ///
    /// ```
    /// fn uri(call: &toolsmith::layer::Call) -> &str {
    ///     call.uri().unwrap_or("-")
    /// }
    /// ```
    pub fn uri(&self) -> Option<&str> {
        match &self.request {
            Request::Read(read) => Some(&read.uri),
            Request::Tool(_) | Request::Prompt(_) => None,
        }
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
        match &self.request {
            Request::Tool(call) => &call.setup.caller,
            Request::Read(read) => &read.setup.caller,
            Request::Prompt(get) => &get.setup.caller,
        }
    }

    /// The arguments: a tool's as the client sent them (not yet decoded); the variables a
    /// template matched in a read's URI; a prompt's.
    ///
    /// ```
    /// fn has_query(call: &toolsmith::layer::Call) -> bool {
    ///     call.arguments().is_some_and(|args| args.contains_key("query"))
    /// }
    /// ```
    pub fn arguments(&self) -> Option<&JsonObject> {
        match &self.request {
            Request::Tool(call) => call.arguments.as_ref(),
            Request::Read(read) => Some(&read.arguments),
            Request::Prompt(get) => Some(&get.arguments),
        }
    }

    /// Whether it is answered with a task's handle at once, its tool running after the
    /// answer (a tool that declares `task`, called by a client with the tasks extension).
    /// What a layer does around such a call is done around making the task: a
    /// [`ConcurrencyLimit`](crate::layer::ConcurrencyLimit) lets it through, and the run
    /// waits for a slot of the tool's own `max_concurrency` instead (a limit of every tool,
    /// `default_limit`, does not bound runs).
    ///
    /// ```
    /// fn quick(call: &toolsmith::layer::Call) -> bool {
    ///     call.runs_as_task()
    /// }
    /// ```
    pub fn runs_as_task(&self) -> bool {
        matches!(&self.request, Request::Tool(call) if call.as_task)
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

impl From<Request> for Call {
    fn from(request: Request) -> Call {
        Call {
            request,
            extensions: Extensions::new(),
        }
    }
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the arguments: they may hold what logs must not.
        f.debug_struct("Call")
            .field("method", &self.method())
            .field("name", &self.header().name())
            .field("caller", &self.caller().subject())
            .finish_non_exhaustive()
    }
}

/// How a request reached the server (OpenTelemetry's `network.transport`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) enum Transport {
    /// stdio.
    Pipe,
    /// HTTP.
    Tcp,
}

impl Transport {
    /// Its name, as the conventions spell it.
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Transport::Pipe => "pipe",
            Transport::Tcp => "tcp",
        }
    }
}

/// The known revision named `text`, as its constant (cloned for free), if it is one.
#[cfg_attr(not(any(feature = "http", feature = "metrics")), allow(dead_code))]
pub(crate) fn known_version(text: &str) -> Option<ProtocolVersion> {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .find(|known| known.as_str() == text)
        .cloned()
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
    /// The session it came in (the server's number for it), when it is in one: what a
    /// confirmation remembered for the session is kept under.
    pub(crate) session: Option<u64>,
    /// How it reached the server (none: in-process, the `call` command).
    pub(crate) transport: Option<Transport>,
    /// The protocol revision it is of: its own (2026-07-28), or its session's, when known.
    pub(crate) version: Option<ProtocolVersion>,
    /// The span of the HTTP request it came in (none: not traced): the call's span is its
    /// child, wherever the call runs (rmcp's task, a pool thread).
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
        // A request that names an earlier revision in its `_meta` is still of a session.
        let per_request = version
            .as_ref()
            .is_some_and(|v| *v >= ProtocolVersion::V_2026_07_28);
        CallSetup {
            progress: meta.get_progress_token(),
            per_request,
            level,
            version,
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

/// One request as the MCP operation metric labels it: its method, where it came from, at
/// which revision, and how it ended (read by the metrics, when the feature is on).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) struct Operation<'a> {
    pub(crate) method: &'a str,
    pub(crate) transport: Transport,
    pub(crate) version: Option<&'a str>,
    pub(crate) failure: crate::outcome::Failure,
}

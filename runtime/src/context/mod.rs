//! What a call can ask for besides its JSON arguments: [`State`], [`Progress`],
//! [`Cancellation`], [`ClientLog`], the [`Caller`], a question to the user ([`Elicit`]) or to the
//! client's model ([`Sample`]), and [`Resources`] to tell subscribers a resource changed. A tool
//! names them as parameters; they are recognised by type and never part of the input schema.
//! [`CallContext`] is all of it at once, for a tool made by hand.
//!
//! ```
//! use toolsmith::context::{ClientLog, Progress};
//!
//! /// Count to `to`, telling the client how far along it is.
//! #[toolsmith::tool(read_only, closed_world)]
//! async fn count_up(to: u32, progress: Progress, log: ClientLog) -> u32 {
//!     for done in 1..=to {
//!         progress.report(f64::from(done), f64::from(to), format!("{done} of {to}"));
//!     }
//!     log.info("counted");
//!     to
//! }
//!
//! let count = toolsmith::Registry::global().get("count_up").unwrap();
//! // Progress and ClientLog are filled by the server: the client sends only `to`.
//! let properties = count.input_schema()["properties"].as_object().unwrap();
//! assert_eq!(properties.keys().collect::<Vec<_>>(), ["to"]);
//! ```

// Inside: context types implement `FromContext` (a type of yours with the same name is an
// ordinary argument); the per-call plumbing is here too. A call's notifications leave through
// a `NoticeSink` that the serving side of each session provides: this module names no
// transport. They are fenced: what a tool sends while its call runs reaches the sink at once,
// in order, and so precedes the result; what it sends after the call ended (from a clone it
// kept) is dropped.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

mod caller;
mod channel;
mod elicit;
pub(crate) mod from;
pub(crate) mod inquiry;
mod log;
mod name;
mod params;
mod resources;
mod store;
mod who;

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::{
    LoggingMessageNotification, LoggingMessageNotificationParam, ProgressNotification,
    ProgressNotificationParam, ProgressToken, ServerNotification,
};
use tokio_util::sync::CancellationToken;

pub use caller::Caller;
#[cfg(feature = "__test-switches")]
pub use channel::AskClient;
#[cfg(any(test, feature = "http"))]
pub(crate) use channel::permits;
pub(crate) use channel::{
    Asker, ChannelError, ClientChannel, Reply, declined, elicitation, withdrawal,
};
pub use elicit::{AskError, Elicit, Elicitation, Sample};
pub(crate) use from::{FromContext, StateKey};
pub(crate) use inquiry::Inquiry;
pub(crate) use log::SessionLevel;
pub use log::{ClientLog, LogLevel};
pub(crate) use name::ToolName;
pub use params::{Cancellation, Progress, State};
pub use resources::Resources;
pub(crate) use resources::{MAX_SUBSCRIBED_URI, MAX_SUBSCRIPTIONS, Updates};
pub use store::Store;
pub(crate) use who::Who;

/// A notification a tool produced.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Notice {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
}

impl Notice {
    /// The notification that carries it to the client.
    pub(crate) fn into_notification(self) -> ServerNotification {
        match self {
            Notice::Progress(param) => {
                ServerNotification::ProgressNotification(ProgressNotification::new(param))
            }
            Notice::Log(param) => ServerNotification::LoggingMessageNotification(
                LoggingMessageNotification::new(param),
            ),
        }
    }
}

/// Where a session's notifications go, provided by the side that serves it. Called from any
/// thread (a sync tool runs on its own), in the order the tool sent them; it must not block.
pub(crate) trait NoticeSink: Send + Sync {
    fn notify(&self, notice: Notice);
}

/// The notifications of one call, open until the call ends.
struct CallNotices {
    sink: Arc<dyn NoticeSink>,
    /// Held while a notice is handed to the sink, so that closing waits for it.
    open: Mutex<bool>,
}

/// The ordered channel from a call's context types to its session's sink.
#[derive(Clone)]
pub(crate) struct Notifier(Arc<CallNotices>);

impl Notifier {
    pub(crate) fn send(&self, notice: Notice) {
        let open = self.0.open.lock().unwrap_or_else(|e| e.into_inner());
        if *open {
            self.0.sink.notify(notice);
        } else {
            tracing::debug!("a notification sent after its call ended was dropped");
        }
    }

    fn close(&self) {
        *self.0.open.lock().unwrap_or_else(|e| e.into_inner()) = false;
    }
}

/// Registered state values, by type.
#[derive(Clone, Default)]
pub(crate) struct StateMap(Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(&mut self.0).insert(TypeId::of::<T>(), Arc::new(value));
    }

    pub(crate) fn contains(&self, key: TypeId) -> bool {
        self.0.contains_key(&key)
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.0.get(&TypeId::of::<T>())?.clone().downcast::<T>().ok()
    }
}

/// The context of one call: everything a call's context parameters are made from. A
/// [`Tool`](crate::Tool) made by hand takes what a `#[tool]` takes as a parameter with
/// [`CallContext::extract`].
pub struct CallContext {
    pub(crate) tool: ToolName,
    pub(crate) states: StateMap,
    pub(crate) cancel: CancellationToken,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) level: SessionLevel,
    /// Who is calling: anonymous unless the transport authenticated a token.
    pub(crate) caller: Caller,
    /// The session's channel to its client, when it has one.
    sink: Option<Arc<dyn ClientChannel>>,
    /// The request carried its own revision (2026-07-28): the server may not send requests
    /// to the client for it (it asks through an `input_required` result instead).
    pub(crate) per_request: bool,
    /// On 2026-07-28, for a tool that asks: its questions of this round.
    pub(crate) inquiry: Option<Arc<Inquiry>>,
    /// Made on first use: only calls that can report pay for it.
    notices: OnceLock<Notifier>,
    /// Where `Resources` notifications go, when the server has resources.
    pub(crate) updates: Option<Arc<dyn Updates>>,
}

impl CallContext {
    pub(crate) fn new(
        tool: ToolName,
        states: StateMap,
        cancel: CancellationToken,
        sink: Option<Arc<dyn ClientChannel>>,
        progress_token: Option<ProgressToken>,
        level: SessionLevel,
        caller: Caller,
    ) -> Self {
        CallContext {
            tool,
            states,
            cancel,
            progress_token,
            level,
            caller,
            sink,
            per_request: false,
            inquiry: None,
            notices: OnceLock::new(),
            updates: None,
        }
    }

    /// A value a `#[tool]` would take as a context parameter: [`Progress`], [`ClientLog`],
    /// [`Cancellation`], [`Caller`], [`Resources`], [`State<T>`](State), [`Elicit`],
    /// [`Sample`]. Made for this call; an error (a `State<T>` the server does not have) says
    /// why, to return as the call's error.
    ///
    /// ```
    /// use toolsmith::rmcp::model::JsonObject;
    /// use toolsmith::tool::{ToolFuture, ToolOutput};
    /// use toolsmith::{CallContext, Hints, Registry, Server, State, Tool, ToolDescription, context::Caller};
    ///
    /// struct Quota(u32);
    ///
    /// /// Says who calls, and their quota: a tool made by hand.
    /// struct MyQuota;
    ///
    /// impl Tool for MyQuota {
    ///     fn describe(&self) -> ToolDescription {
    ///         let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    ///         ToolDescription::new("my_quota", "Say who calls, and their quota.", schema, Hints::READ_ONLY)
    ///     }
    ///     fn call(&self, _: JsonObject, context: &CallContext) -> ToolFuture {
    ///         let caller = context.extract::<Caller>();
    ///         let quota = context.extract::<State<Quota>>();
    ///         Box::pin(async move {
    ///             Ok(ToolOutput::new().text(format!("{}: {}", caller?.identity(), quota?.0)))
    ///         })
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let tools = Registry::new().with_tool(MyQuota).unwrap();
    /// let server = Server::with_registry(tools.clone()).state(Quota(100));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let answer = client.call("my_quota", serde_json::json!({})).await.unwrap();
    /// assert_eq!(answer.text(), "anonymous: 100");
    ///
    /// // A server without the state: the error names the type, as the call's error.
    /// let client = toolsmith::testing::Client::connect(Server::with_registry(tools)).await.unwrap();
    /// let err = client.call("my_quota", serde_json::json!({})).await.unwrap_err();
    /// assert!(err.message().contains("Quota"), "{err}");
    /// # }
    /// ```
    pub fn extract<T: FromContext>(&self) -> Result<T, crate::ToolError> {
        T::from_context(self).map_err(|why| crate::ToolError::new(why.to_string()))
    }

    /// The name of the tool (or resource, or prompt) called.
    ///
    /// ```
    /// use toolsmith::rmcp::model::JsonObject;
    /// use toolsmith::tool::{ToolFuture, ToolOutput};
    /// use toolsmith::{CallContext, Hints, Registry, Server, Tool, ToolDescription};
    ///
    /// /// One tool made by hand, added under several names.
    /// struct Alias(&'static str);
    ///
    /// impl Tool for Alias {
    ///     fn describe(&self) -> ToolDescription {
    ///         let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    ///         ToolDescription::new(self.0, "Say which name was called.", schema, Hints::READ_ONLY)
    ///     }
    ///     fn call(&self, _: JsonObject, context: &CallContext) -> ToolFuture {
    ///         let called = format!("{} was called", context.tool());
    ///         Box::pin(async move { Ok(ToolOutput::new().text(called)) })
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let tools = Registry::new().with_tool(Alias("ping")).unwrap().with_tool(Alias("pong")).unwrap();
    /// let client = toolsmith::testing::Client::connect(Server::with_registry(tools)).await.unwrap();
    /// let answer = client.call("pong", serde_json::json!({})).await.unwrap();
    /// assert_eq!(answer.text(), "pong was called");
    /// # }
    /// ```
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The notifier of this call, when its session takes notifications.
    fn notifier(&self) -> Option<Notifier> {
        let sink = self.sink.as_ref()?;
        let notifier = self.notices.get_or_init(|| {
            Notifier(Arc::new(CallNotices {
                sink: sink.clone() as Arc<dyn NoticeSink>,
                open: Mutex::new(true),
            }))
        });
        Some(notifier.clone())
    }

    /// What this call needs to ask its client.
    pub(crate) fn asker(&self) -> Asker {
        Asker {
            channel: self.sink.clone(),
            per_request: self.per_request,
        }
    }

    /// Waits, before the call's tool starts, while its client is not reading what it was
    /// sent (see [`ClientChannel::backed_up`]); at once otherwise.
    pub(crate) async fn room(&self) {
        if let Some(wait) = self.sink.as_ref().and_then(|sink| sink.backed_up()) {
            wait.await;
        }
    }

    /// Ends the call's notifications: every one sent so far is with the sink, before the
    /// result; any sent later (by a clone a tool kept) is dropped. Never waits for the tool.
    pub(crate) fn close(&self) {
        if let Some(notifier) = self.notices.get() {
            notifier.close();
        }
    }
}

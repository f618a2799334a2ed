//! The [`Server`] builder: its settings, and the defaults they start from.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::Policy;
use crate::context::StateMap;
use crate::{Error, Registry, registry::RegistryHandle};

pub(crate) const DEFAULT_TOOLS_LIST_PAGE_SIZE: usize = 500;

/// A configurable server: policy, page size, identity. [`serve_stdio`](crate::serve_stdio), [`Server::serve_io`] and
/// [`run`](crate::run) are its defaults.
///
/// ```no_run
/// // no_run: serves stdin until it closes.
/// use toolsmith::{server::Policy, Server};
///
/// #[tokio::main]
/// async fn main() -> Result<(), toolsmith::Error> {
///     Server::new()
///         .policy(Policy::new().read_only(true))
///         .page_size(100)
///         .serve_stdio()
///         .await
/// }
/// ```
#[derive(Clone, Default)]
pub struct Server {
    /// The tool set served (unset: every `#[tool]` of the program, on first use); shared by
    /// the server's clones.
    pub(super) registry: Arc<OnceLock<RegistryHandle>>,
    /// A handle on the set was given out: it may change while serving.
    pub(super) live: Arc<AtomicBool>,
    pub(crate) policy: Policy,
    pub(super) page_size: Option<usize>,
    /// Search mode: `tools/list` gives `search_tools` and `call_tool` (`tool_search.rs`).
    pub(super) tool_search: bool,
    pub(super) list_ttl: Option<std::time::Duration>,
    pub(super) implementation: Option<(String, String)>,
    pub(super) instructions: Option<String>,
    pub(super) states: StateMap,
    pub(super) max_line: Option<usize>,
    pub(super) busy_poll: Option<Duration>,
    pub(super) max_sync_calls: Option<usize>,
    #[cfg(feature = "http")]
    pub(super) http: crate::transport::http::HttpConfig,
    #[cfg(feature = "auth")]
    pub(super) auth: Option<crate::auth::Auth>,
    #[cfg(feature = "signin")]
    pub(super) sign_in: Option<crate::signin::SignIn>,
    /// The authorization server of `sign_in`, for the tools, once it serves.
    #[cfg(feature = "signin")]
    pub(super) issuing: crate::signin::Issuing,
    /// The names of the scopes the hints imply.
    pub(crate) scope_names: crate::tool::ScopeNames,
    /// Which tools ask the user first besides those that declare `confirm`.
    pub(crate) confirm: super::Confirm,
    /// Who decides a confirmation before the user is asked, and what they remembered.
    pub(crate) approvals: crate::approve::Approvals,
    /// The key of the request states (2026-07-28), shared by replicas.
    pub(super) state_key: Option<Vec<u8>>,
    /// How long a request state may be echoed back.
    pub(super) state_ttl: Option<Duration>,
    /// `true` turns the tools fast path off (tests compare both paths; see `fast_path`).
    pub(super) no_fast_path: bool,
    /// The layers around every call, outermost first.
    pub(super) layers: Vec<super::call::layer::Wrap>,
    /// Where tasks are kept, and for how long.
    pub(super) tasks: super::call::task::TaskConfig,
    /// Where metrics are served.
    #[cfg(feature = "metrics")]
    pub(super) metrics: MetricsConfig,
    /// What `--help` adds about the flags the program reads itself (`Server::own_flags_help`).
    pub(crate) own_flags_help: Option<String>,
    /// The settings the program reads from its environment (`Server::setting`).
    pub(crate) settings: Vec<crate::Setting>,
    /// The changes its approvals page lists for review (`Server::reviews`).
    pub(crate) reviews: Option<std::sync::Arc<dyn crate::approve::Reviews>>,
}

pub(crate) const DEFAULT_BUSY_POLL: Duration = Duration::from_micros(20);

pub(crate) const DEFAULT_MAX_SYNC_CALLS: usize = 64;

impl Server {
    /// A server offering every registered tool.
    ///
    /// ```
    /// let server = toolsmith::Server::new();
    /// let served = server.registry_handle().current();
    /// assert_eq!(served.len(), toolsmith::Registry::global().len());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// A server of `registry`'s tools, resources and prompts instead of every `#[tool]` of
    /// the program: two servers in one process can serve two sets.
    ///
    /// ```
    /// use toolsmith::{Registry, Server};
    ///
    /// let everything = Server::new();
    /// let read_only = Server::with_registry(
    ///     Registry::from_inventory().unwrap().retain_tools(|t| t.hints().read_only),
    /// );
    /// let all = everything.registry_handle().current();
    /// let some = read_only.registry_handle().current();
    /// assert!(some.tools().iter().all(|t| t.hints().read_only));
    /// assert_eq!(some.len(), all.tools().iter().filter(|t| t.hints().read_only).count());
    /// ```
    pub fn with_registry(registry: Registry) -> Self {
        let server = Self::default();
        let _ = server.registry.set(RegistryHandle::new(registry));
        server
    }

    /// A handle that adds and removes tools while the server serves (see
    /// [`RegistryHandle`]). Taken before serving, it makes the server say so
    /// (`tools.listChanged`) and send `notifications/tools/list_changed` on each change.
    ///
    /// # Panics
    ///
    /// On a server of every `#[tool]` (not [`Server::with_registry`]), when two of them share
    /// a name, as [`registry`](crate::registry) does.
    ///
    /// ```
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let tools = server.registry_handle();
    /// assert!(tools.current().is_empty());
    /// ```
    pub fn registry_handle(&self) -> RegistryHandle {
        self.live.store(true, Ordering::Relaxed);
        self.registry
            .get_or_init(|| RegistryHandle::new(Registry::global().clone()))
            .clone()
    }

    /// The set served: the one given, or every `#[tool]` of the program (the error that
    /// prevents building it).
    pub(crate) fn served(&self) -> Result<RegistryHandle, Error> {
        if let Some(handle) = self.registry.get() {
            return Ok(handle.clone());
        }
        let registry = Registry::try_global()?;
        Ok(self
            .registry
            .get_or_init(|| RegistryHandle::new(registry.clone()))
            .clone())
    }

    /// Whether a handle on the set was given out.
    pub(crate) fn is_live(&self) -> bool {
        self.live.load(Ordering::Relaxed)
    }

    /// The names of the scopes the hints imply (default `tools:read`, `tools:write`,
    /// `tools:destructive`), which [`auth`](Self::auth) requires and `tools` shows.
    ///
    /// ```
    /// use toolsmith::{Registry, Server, testing::Client, tool::ScopeNames};
    ///
    /// /// Purges the drafts of every notebook.
    /// #[toolsmith::tool(destructive, closed_world)]
    /// fn purge_scoped_drafts() -> String {
    ///     "purged".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .scope_names(ScopeNames::new("notes.read", "notes.write", "notes.admin"));
    /// let client = Client::connect(server).await.unwrap();
    /// let tools = client.tools().await.unwrap();
    /// assert_eq!(tools[0].scopes, ["notes.admin"]);
    /// # }
    /// ```
    pub fn scope_names(mut self, names: crate::tool::ScopeNames) -> Self {
        self.scope_names = names;
        self
    }

    /// Adds a layer around every tool call (see [`crate::layer`]), on every way in alike:
    /// it sees the call after its tool is resolved and its access checked, and before the
    /// user is asked to confirm it. The first layer added is the outermost.
    ///
    /// ```
    /// use toolsmith::{Registry, Server, layer::RateLimit, testing::Client};
    ///
    /// /// Wipes the search cache.
    /// #[toolsmith::tool(destructive, idempotent, closed_world)]
    /// fn wipe_limited_cache() -> String {
    ///     "wiped".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .layer(RateLimit::new("destructive=1/m".parse().unwrap()));
    /// let client = Client::connect(server).await.unwrap();
    /// let args = serde_json::json!({});
    /// assert_eq!(client.call("wipe_limited_cache", args.clone()).await.unwrap().text(), "wiped");
    /// let refused = client.call("wipe_limited_cache", args).await.unwrap_err();
    /// assert!(refused.message().starts_with("Rate limit"), "{refused}");
    /// # }
    /// ```
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: tower::Layer<crate::layer::CallService> + Send + Sync + 'static,
        L::Service: tower::Service<
                crate::layer::Call,
                Response = crate::layer::CallOutcome,
                Error = std::convert::Infallible,
            > + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower::Service<crate::layer::Call>>::Future: Send + 'static,
    {
        let layer = std::sync::Arc::new(layer);
        self.layers.push(std::sync::Arc::new(move |inner| {
            crate::layer::CallService::new(layer.layer(inner))
        }));
        self
    }

    /// Offers only the tools `policy` allows; calls to the others are refused.
    ///
    /// ```
    /// use toolsmith::{Registry, Server, server::Policy, testing::Client};
    ///
    /// /// Counts the notes.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn count_policy_notes() -> u32 {
    ///     3
    /// }
    ///
    /// /// Renames a note.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn rename_policy_note(title: String) -> String {
    ///     title
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .policy(Policy::new().read_only(true));
    /// let client = Client::connect(server).await.unwrap();
    /// let offered: Vec<String> = client.tools().await.unwrap().into_iter().map(|t| t.name).collect();
    /// assert_eq!(offered, ["count_policy_notes"]);
    /// let args = serde_json::json!({"title": "Ideas"});
    /// assert!(client.call("rename_policy_note", args).await.is_err(), "hidden, and refused by name");
    /// # }
    /// ```
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// How many tools one `tools/list` page holds (default [`Server::DEFAULT_PAGE_SIZE`],
    /// at least 1); with more tools the list is paginated with `nextCursor`.
    ///
    /// ```
    /// # use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    /// # /// The answer of `server` to one 2026-07-28 request, over an in-memory stdio pair.
    /// # async fn ask(server: toolsmith::Server, method: &str) -> serde_json::Value {
    /// #     let (client, server_end) = tokio::io::duplex(1 << 16);
    /// #     let (read, write) = tokio::io::split(server_end);
    /// #     tokio::spawn(server.serve_io(read, write));
    /// #     let meta = serde_json::json!({
    /// #         "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    /// #         "io.modelcontextprotocol/clientCapabilities": {},
    /// #         "io.modelcontextprotocol/clientInfo": {"name": "doc", "version": "0"},
    /// #     });
    /// #     let request = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": meta}});
    /// #     let (answers, mut requests) = tokio::io::split(client);
    /// #     requests.write_all(format!("{request}\n").as_bytes()).await.unwrap();
    /// #     let mut line = String::new();
    /// #     tokio::io::BufReader::new(answers).read_line(&mut line).await.unwrap();
    /// #     serde_json::from_str(&line).unwrap()
    /// # }
    /// use toolsmith::{Registry, Server};
    ///
    /// /// Lists the notebooks.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn list_paged_notebooks() -> String {
    ///     String::new()
    /// }
    ///
    /// /// Lists the tags.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn list_paged_tags() -> String {
    ///     String::new()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap()).page_size(1);
    /// let page = ask(server, "tools/list").await;
    /// assert_eq!(page["result"]["tools"].as_array().unwrap().len(), 1, "{page}");
    /// assert!(page["result"]["nextCursor"].is_string(), "{page}");
    /// # }
    /// ```
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size.max(1));
        self
    }

    /// Search mode: `tools/list` gives two tools instead of every tool, `search_tools`
    /// (words, and filters by hints, category and tag; paged) and `call_tool` (a tool found,
    /// by name, with its arguments), for a client of many tools (a gateway's). The policy,
    /// the scopes, confirmation, approvals, layers and the log apply to the tool a
    /// `call_tool` call names, by its name; `search_tools` finds only the tools the caller may
    /// call, and `call_tool`'s hints are those of the most cautious of them. A tool stays
    /// callable by its own name.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use toolsmith::{Registry, Server};
    ///
    /// /// Find notes whose text holds `query`.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn find_notes(query: String) -> String {
    ///     format!("found {query}")
    /// }
    ///
    /// let registry = Registry::from_module(module_path!()).unwrap();
    /// let server = Server::with_registry(registry).tool_search(true);
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let names: Vec<String> = client.tools().await.unwrap().iter().map(|t| t.name.to_string()).collect();
    /// assert_eq!(names, ["search_tools", "call_tool"]);
    /// let found = client.call("search_tools", serde_json::json!({"query": "notes"})).await.unwrap();
    /// assert_eq!(found.structured().unwrap()["tools"][0]["name"], "find_notes");
    /// let called = client
    ///     .call("call_tool", serde_json::json!({"name": "find_notes", "arguments": {"query": "milk"}}))
    ///     .await
    ///     .unwrap();
    /// assert_eq!(called.text(), "found milk");
    /// # }
    /// ```
    pub fn tool_search(mut self, on: bool) -> Self {
        self.tool_search = on;
        self
    }

    /// How long clients may keep the tool list and `server/discover` (2026-07-28's `ttlMs`).
    /// By default, [`Server::DEFAULT_LIST_TTL`](crate::Server::DEFAULT_LIST_TTL) (5 minutes)
    /// for a tool set fixed when the server starts, and 0 (not to be kept) once a
    /// [`registry_handle`](Self::registry_handle) was taken: that set can change while
    /// serving, and a client that does not listen for `list_changed` would go on calling a
    /// removed tool.
    ///
    /// ```
    /// # use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    /// # /// The answer of `server` to one 2026-07-28 request, over an in-memory stdio pair.
    /// # async fn ask(server: toolsmith::Server, method: &str) -> serde_json::Value {
    /// #     let (client, server_end) = tokio::io::duplex(1 << 16);
    /// #     let (read, write) = tokio::io::split(server_end);
    /// #     tokio::spawn(server.serve_io(read, write));
    /// #     let meta = serde_json::json!({
    /// #         "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    /// #         "io.modelcontextprotocol/clientCapabilities": {},
    /// #         "io.modelcontextprotocol/clientInfo": {"name": "doc", "version": "0"},
    /// #     });
    /// #     let request = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": meta}});
    /// #     let (answers, mut requests) = tokio::io::split(client);
    /// #     requests.write_all(format!("{request}\n").as_bytes()).await.unwrap();
    /// #     let mut line = String::new();
    /// #     tokio::io::BufReader::new(answers).read_line(&mut line).await.unwrap();
    /// #     serde_json::from_str(&line).unwrap()
    /// # }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new())
    ///     .list_ttl(std::time::Duration::from_secs(3600));
    /// let discovered = ask(server, "server/discover").await;
    /// assert_eq!(discovered["result"]["ttlMs"], 3_600_000, "{discovered}");
    ///
    /// // A set that can change is not kept, unless `list_ttl` says otherwise.
    /// let changing = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let _tools = changing.registry_handle();
    /// let listed = ask(changing, "tools/list").await;
    /// assert_eq!(listed["result"]["ttlMs"], 0, "{listed}");
    /// # }
    /// ```
    pub fn list_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.list_ttl = Some(ttl);
        self
    }

    /// Registers shared state: tools ask for it with a [`State<T>`](crate::State) parameter.
    /// One value per type; registering a type again replaces the value.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use toolsmith::{Registry, Server, State, testing::Client};
    ///
    /// #[derive(Default)]
    /// struct Notebook { notes: Mutex<Vec<String>> }
    ///
    /// /// Adds a note; says how many there are.
    /// #[toolsmith::tool(destructive = false, closed_world)]
    /// fn add_stateful_note(notebook: State<Notebook>, text: String) -> usize {
    ///     let mut notes = notebook.notes.lock().unwrap();
    ///     notes.push(text);
    ///     notes.len()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .state(Notebook::default());
    /// let client = Client::connect(server).await.unwrap();
    /// for count in ["1", "2"] {
    ///     let added = client.call("add_stateful_note", serde_json::json!({"text": "milk"})).await;
    ///     assert_eq!(added.unwrap().text(), count, "one notebook, shared by the calls");
    /// }
    /// # }
    /// ```
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.states.insert(value);
        self
    }

    /// The longest request line accepted (default [`Server::DEFAULT_MAX_LINE_LENGTH`](crate::Server::DEFAULT_MAX_LINE_LENGTH), 4 MiB). A longer one
    /// is skipped without being buffered and answered with an error.
    ///
    /// ```
    /// use toolsmith::testing::{CallError, Client};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new()).max_line_length(64 * 1024);
    /// let client = Client::connect(server).await.unwrap();
    /// let short = client.call("no_such_tool", serde_json::json!({})).await.unwrap_err();
    /// assert!(matches!(short, CallError::Protocol { code: -32602, .. }), "read, and answered: {short}");
    /// let long = serde_json::json!({"text": "x".repeat(100 * 1024)});
    /// let skipped = client.call("no_such_tool", long).await.unwrap_err();
    /// assert!(matches!(skipped, CallError::Protocol { code: -32600, .. }), "skipped unread: {skipped}");
    /// # }
    /// ```
    pub fn max_line_length(mut self, bytes: usize) -> Self {
        self.max_line = Some(bytes.max(1));
        self
    }

    /// How long the stdio reader keeps polling stdin for the next request once it has read
    /// everything, before its thread sleeps (default [`Server::DEFAULT_BUSY_POLL`], 20 µs; zero
    /// turns it off). A request arriving in that window is read at once instead of after a
    /// wake-up of the thread, which costs tens of microseconds on a virtual machine or a CPU
    /// in a deep idle state. The price is at most this much CPU time per burst of requests;
    /// an idle server does not poll. Applies when stdin is a pipe (Linux).
    ///
    /// ```no_run
    /// // no_run: serves stdin until it closes (the setting shows only on a stdin pipe).
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .busy_poll(std::time::Duration::ZERO)
    ///     .serve_stdio()
    ///     .await
    /// # }
    /// ```
    pub fn busy_poll(mut self, window: Duration) -> Self {
        self.busy_poll = Some(window);
        self
    }

    /// How many calls of sync tools (`fn` tools) run at once on the pool (default
    /// [`Server::DEFAULT_MAX_SYNC_CALLS`], between 1 and 256): those declared
    /// `#[tool(blocking)]`, those with a `timeout` or a `Cancellation`, and the others until
    /// their calls prove quick (then they run where they were read, and need no slot). Each runs on a thread of
    /// its own, outside the runtime that serves the session, so that however many a client
    /// starts, requests and cancellations are still read; calls beyond the limit wait for a
    /// slot.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::time::Duration;
    /// use toolsmith::testing::{CallOptions, Client};
    ///
    /// static RUNNING: AtomicUsize = AtomicUsize::new(0);
    ///
    /// /// Holds its thread a moment; says how many calls of it ran then.
    /// #[toolsmith::tool(blocking, read_only, closed_world)]
    /// fn hold_sync_slot() -> usize {
    ///     let running = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
    ///     std::thread::sleep(Duration::from_millis(100));
    ///     RUNNING.fetch_sub(1, Ordering::SeqCst);
    ///     running
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let tools = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let client = Client::connect(toolsmith::Server::with_registry(tools).max_sync_calls(1)).await.unwrap();
    /// // Given up after 10 ms, the first call still holds its thread, and the one slot.
    /// let impatient = CallOptions::default().timeout(Duration::from_millis(10));
    /// assert!(client.call_with("hold_sync_slot", serde_json::json!({}), impatient).await.is_err());
    /// let next = client.call("hold_sync_slot", serde_json::json!({})).await.unwrap();
    /// assert_eq!(next.text(), "1", "it waited for the slot");
    /// # }
    /// ```
    pub fn max_sync_calls(mut self, calls: usize) -> Self {
        self.max_sync_calls = Some(calls);
        self
    }

    /// Turns the tools fast path on (the default) or off: with it off, every request goes
    /// through rmcp's service loop. For toolsmith's tests that compare the two paths
    /// (`__private::fast_path`, feature `__test-switches`), not public API.
    #[cfg(feature = "__test-switches")]
    pub(crate) fn fast_path(mut self, on: bool) -> Self {
        self.no_fast_path = !on;
        self
    }

    /// Asks the user before every call of the tools `confirm` covers by their hints
    /// (`serve --confirm destructive|write|none`), besides the tools that declare
    /// `#[tool(confirm)]`. The default, [`Confirm::None`](super::Confirm::None), adds none.
    ///
    /// ```
    /// use toolsmith::{Registry, Server, server::Confirm, testing::Client};
    ///
    /// /// Drops the search index.
    /// #[toolsmith::tool(destructive, idempotent, closed_world)]
    /// fn drop_confirmed_index() -> String {
    ///     "dropped".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let tools = Registry::from_module(module_path!()).unwrap();
    /// let asking = Server::with_registry(tools.clone()).confirm(Confirm::Destructive);
    /// // The test client's user declines every confirmation.
    /// let client = Client::connect(asking).await.unwrap();
    /// let declined = client.call("drop_confirmed_index", serde_json::json!({})).await.unwrap_err();
    /// assert!(declined.message().contains("declined"), "{declined}");
    ///
    /// let client = Client::connect(Server::with_registry(tools)).await.unwrap();
    /// assert!(client.call("drop_confirmed_index", serde_json::json!({})).await.is_ok());
    /// # }
    /// ```
    pub fn confirm(mut self, confirm: super::Confirm) -> Self {
        self.confirm = confirm;
        self
    }

    /// Puts every confirmation to `approver` before the user is asked (after the approvers
    /// added before it): the first approver that approves or denies decides, and when every
    /// one passes, the user at the client is asked (see [`approve`](crate::approve)).
    ///
    /// ```
    /// use toolsmith::approve::{Approval, Decision};
    /// use toolsmith::testing::Client;
    /// use toolsmith::{Registry, Server, server::Confirm};
    ///
    /// /// Deletes every draft.
    /// #[toolsmith::tool(destructive, closed_world)]
    /// fn purge() -> String {
    ///     "purged".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .confirm(Confirm::Destructive)
    ///     .approver(|approval: &Approval| match approval.tool() {
    ///         "purge" => Decision::deny("purging is off this week"),
    ///         _ => Decision::Pass,
    ///     });
    /// let client = Client::connect(server).await.unwrap();
    /// let refused = client.call("purge", serde_json::json!({})).await.unwrap_err();
    /// assert!(refused.to_string().contains("purging is off this week"), "{refused}");
    /// # }
    /// ```
    pub fn approver(mut self, approver: impl crate::approve::Approver) -> Self {
        self.approvals.chain.push(std::sync::Arc::new(approver));
        self
    }

    /// Offers the user "don't ask again for `ttl`" in every confirmation form: an accept
    /// with it ticked approves the same caller's calls of the same tool, without asking, for
    /// `ttl` (kept in [`grants`](Server::grants), so it can be revoked). The form says what
    /// the choice covers ("Your calls of delete_note run without asking for the next 1 h.").
    /// Not offered by default.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use toolsmith::rmcp::model::{ClientResult, ElicitResult, ElicitationAction, ServerRequest};
    /// use toolsmith::{Registry, Server, server::Confirm, testing::Client};
    ///
    /// /// Archives the notebook.
    /// #[toolsmith::tool(destructive, idempotent, closed_world)]
    /// fn archive_remembered_notebook() -> String {
    ///     "archived".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .confirm(Confirm::Destructive)
    ///     .offer_remember(std::time::Duration::from_secs(3600));
    /// let asked = Arc::new(AtomicUsize::new(0));
    /// let count = asked.clone();
    /// // The user reads the offer, ticks it and accepts.
    /// let user = Arc::new(move |request: &ServerRequest| {
    ///     count.fetch_add(1, Ordering::SeqCst);
    ///     let form = serde_json::to_string(request).unwrap();
    ///     assert!(form.contains("run without asking for the next 1 h"), "{form}");
    ///     let mut yes = ElicitResult::new(ElicitationAction::Accept);
    ///     yes.content = Some(serde_json::json!({"confirm": true, "remember": true}));
    ///     Ok(ClientResult::ElicitResult(yes))
    /// });
    /// let client = Client::connect_answering(server, user).await.unwrap();
    /// for _ in 0..2 {
    ///     client.call("archive_remembered_notebook", serde_json::json!({})).await.unwrap();
    /// }
    /// assert_eq!(asked.load(Ordering::SeqCst), 1, "the second call was not asked");
    /// # }
    /// ```
    pub fn offer_remember(mut self, ttl: Duration) -> Self {
        self.approvals.remember = Some(ttl);
        self
    }

    /// Puts a confirmation to `approver` when the client cannot ask its user (it declared no
    /// elicitation: an unattended agent, a CI job), after the user would have been asked:
    /// the approvers added so decide in order, as [`approver`](Server::approver)s do; when
    /// every one passes, the call is refused as the client could not ask
    /// (`serve --approve client,page=ADDR`: what follows `client`).
    ///
    /// ```
    /// use toolsmith::approve::{Approval, Decision};
    /// use toolsmith::{Registry, Server, server::Confirm, testing::Client};
    ///
    /// /// Empties the shared trash.
    /// #[toolsmith::tool(destructive, idempotent, closed_world)]
    /// fn empty_unattended_trash() -> String {
    ///     "emptied".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// // Interactive clients ask their user; an unattended agent's calls go to the approver.
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .confirm(Confirm::Destructive)
    ///     .approver_instead_of_client(|_: &Approval| Decision::deny("no one is there"));
    /// let user = Client::connect(server.clone()).await.unwrap();
    /// let declined = user.call("empty_unattended_trash", serde_json::json!({})).await.unwrap_err();
    /// assert!(declined.message().contains("declined"), "{declined}");
    /// let agent = Client::connect_unattended(server).await.unwrap();
    /// let denied = agent.call("empty_unattended_trash", serde_json::json!({})).await.unwrap_err();
    /// assert!(denied.message().contains("no one is there"), "{denied}");
    /// # }
    /// ```
    pub fn approver_instead_of_client(mut self, approver: impl crate::approve::Approver) -> Self {
        self.approvals.instead.push(std::sync::Arc::new(approver));
        self
    }

    /// The approvals this server remembers ([`Remember::For`](crate::approve::Remember)),
    /// shared with its clones: to grant or revoke one while it serves.
    ///
    /// ```
    /// use std::time::Duration;
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let server = toolsmith::Server::new();
    /// let alice = toolsmith::context::Caller::new("alice", ["notes:write"]);
    /// server.grants().grant(&alice, "delete_note", Duration::from_secs(60));
    /// assert!(server.grants().revoke(&alice, "delete_note").await);
    /// # });
    /// ```
    pub fn grants(&self) -> crate::approve::Grants {
        self.approvals.grants.clone()
    }

    /// Changes for an operator to review on the approvals page (`serve --approve page=ADDR`):
    /// a gateway's upstream tools that changed since their pinned snapshot. See
    /// [`Reviews`](crate::approve::Reviews).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolsmith::approve::{Review, Reviews};
    ///
    /// struct Nothing;
    /// impl Reviews for Nothing {
    ///     fn pending(&self) -> Vec<Review> {
    ///         Vec::new()
    ///     }
    ///     fn decide(&self, id: &str, _: bool, _: &str) -> Result<String, String> {
    ///         Err(format!("no change {id}"))
    ///     }
    /// }
    ///
    /// let server = toolsmith::Server::new().reviews(Arc::new(Nothing));
    /// assert!(server.reviewed().is_some());
    /// ```
    pub fn reviews(mut self, reviews: std::sync::Arc<dyn crate::approve::Reviews>) -> Self {
        self.reviews = Some(reviews);
        self
    }

    /// The changes given with [`Server::reviews`].
    pub fn reviewed(&self) -> Option<&std::sync::Arc<dyn crate::approve::Reviews>> {
        self.reviews.as_ref()
    }

    /// The key that seals the request state of a call that asks on 2026-07-28 (a
    /// confirmation, an [`Elicit`](crate::context::Elicit) question): at least 32 random bytes
    /// (`serve --state-key BASE64`). Replicas behind one load balancer need the same key, so
    /// that a retry that reaches another replica opens there. Without it, each process makes
    /// a random key of its own. A shorter key stops the server at startup.
    ///
    /// ```
    /// use toolsmith::{Registry, Server};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::new()).state_key([7u8; 32]);
    /// assert!(server.serve_io(tokio::io::empty(), tokio::io::sink()).await.is_ok());
    /// let short = Server::with_registry(Registry::new()).state_key([7u8; 16]);
    /// let err = short.serve_io(tokio::io::empty(), tokio::io::sink()).await.unwrap_err();
    /// assert!(err.to_string().contains("state key"), "{err}");
    /// # }
    /// ```
    pub fn state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.state_key = Some(key.into());
        self
    }

    /// How long a request state may be echoed back (default
    /// [`Server::DEFAULT_STATE_TTL`](crate::Server::DEFAULT_STATE_TTL), 5 minutes): a confirmation answered
    /// later is refused as expired.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::{Registry, Server};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::new()).state_ttl(Duration::from_secs(60));
    /// assert!(server.serve_io(tokio::io::empty(), tokio::io::sink()).await.is_ok());
    /// // A state that expires at once would refuse every confirmation: the server does not start.
    /// let never = Server::with_registry(Registry::new()).state_ttl(Duration::ZERO);
    /// let err = never.serve_io(tokio::io::empty(), tokio::io::sink()).await.unwrap_err();
    /// assert!(err.to_string().contains("state TTL"), "{err}");
    /// # }
    /// ```
    pub fn state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = Some(ttl);
        self
    }

    /// The name and version the server reports (default: the package defining the tools).
    ///
    /// ```
    /// # use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    /// # /// The answer of `server` to one 2026-07-28 request, over an in-memory stdio pair.
    /// # async fn ask(server: toolsmith::Server, method: &str) -> serde_json::Value {
    /// #     let (client, server_end) = tokio::io::duplex(1 << 16);
    /// #     let (read, write) = tokio::io::split(server_end);
    /// #     tokio::spawn(server.serve_io(read, write));
    /// #     let meta = serde_json::json!({
    /// #         "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    /// #         "io.modelcontextprotocol/clientCapabilities": {},
    /// #         "io.modelcontextprotocol/clientInfo": {"name": "doc", "version": "0"},
    /// #     });
    /// #     let request = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": meta}});
    /// #     let (answers, mut requests) = tokio::io::split(client);
    /// #     requests.write_all(format!("{request}\n").as_bytes()).await.unwrap();
    /// #     let mut line = String::new();
    /// #     tokio::io::BufReader::new(answers).read_line(&mut line).await.unwrap();
    /// #     serde_json::from_str(&line).unwrap()
    /// # }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new()).info("notes", "1.2.0");
    /// let discovered = ask(server, "server/discover").await;
    /// let info = &discovered["result"]["_meta"]["io.modelcontextprotocol/serverInfo"];
    /// assert_eq!(info["name"], "notes", "{discovered}");
    /// assert_eq!(info["version"], "1.2.0", "{discovered}");
    /// # }
    /// ```
    pub fn info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.implementation = Some((name.into(), version.into()));
        self
    }

    /// What the server tells a client about using it (`instructions` in the `initialize`
    /// result and in `server/discover`): how its tools fit together, what to call first.
    /// Clients may put it in the model's context; none by default.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new())
    ///     .instructions("Search notes before creating one.");
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// assert_eq!(client.instructions(), Some("Search notes before creating one."));
    /// # }
    /// ```
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }
}

/// Where metrics are served (set in `metrics.rs`).
#[cfg(feature = "metrics")]
#[derive(Clone, Debug, Default)]
pub(crate) struct MetricsConfig {
    /// A listener of their own.
    pub(super) addr: Option<String>,
    /// The scope a token needs for `/metrics` on the public endpoint.
    pub(super) scope: Option<String>,
    /// More `Host`s `/metrics` answers.
    pub(super) hosts: Vec<String>,
    /// The program's own series, rendered after the server's.
    pub(super) series: Option<crate::metrics::Series>,
}

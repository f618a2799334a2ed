//! A registry that changes while serving: every request reads the set as it is then, and a
//! change is one swap, after which the servers serving it are told which lists changed (they
//! renew their lists and send `notifications/tools/list_changed`, `resources/list_changed`,
//! `prompts/list_changed`). Knows no server: a server hears changes through a [`Listener`]
//! it registers.

use std::sync::{Arc, Mutex, Weak};

use arc_swap::ArcSwap;

use super::{Changed, Registry};
use crate::tool::{Tool, ToolRef};
use crate::{Error, prompt::Prompt, resource::Resource};

/// What hears that a live registry changed (a server, for its sessions).
pub(crate) trait Listener: Send + Sync {
    fn changed(&self, what: Changed);
}

/// A handle on the set a [`Server`](crate::Server) serves: tools, resources and prompts
/// added or removed through it are served from the next request on, and the server's
/// sessions (and 2026-07-28 listen streams that asked for it) hear
/// `notifications/tools/list_changed` (`resources/list_changed`, `prompts/list_changed`) for
/// each list that changed. Cloning it gives another handle on the same set.
///
/// A list cursor of the set before a change is refused (`invalid cursor`): a client lists
/// again from the start, as it does on `list_changed`.
///
/// ```
/// # use toolsmith::{CallContext, Hints, Tool, ToolDescription, tool::ToolFuture, tool::ToolOutput};
/// # use toolsmith::rmcp::model::JsonObject;
/// # struct Ping;
/// # impl Tool for Ping {
/// #     fn describe(&self) -> ToolDescription {
/// #         let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
/// #         ToolDescription::new("ping", "Answers pong.", schema, Hints::READ_ONLY)
/// #     }
/// #     fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
/// #         Box::pin(async { Ok(ToolOutput::new().text("pong")) })
/// #     }
/// # }
/// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
/// let tools = server.registry_handle();
/// tools.add_tool(Ping).unwrap();
/// assert!(tools.current().get("ping").is_some());
/// assert!(tools.remove_tool("ping"));
/// assert!(!tools.remove_tool("ping"));
/// ```
#[derive(Clone)]
pub struct RegistryHandle {
    shared: Arc<Shared>,
}

struct Shared {
    current: ArcSwap<Registry>,
    /// Held by a change from its read to its swap: two changes at once both count.
    writing: Mutex<()>,
    listeners: Mutex<Vec<Weak<dyn Listener>>>,
}

impl RegistryHandle {
    pub(crate) fn new(registry: Registry) -> Self {
        RegistryHandle {
            shared: Arc::new(Shared {
                current: ArcSwap::from_pointee(registry),
                writing: Mutex::new(()),
                listeners: Mutex::new(Vec::new()),
            }),
        }
    }

    /// The set as it is now (a snapshot: later changes do not reach it).
    ///
    /// ```
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// assert!(server.registry_handle().current().is_empty());
    /// ```
    pub fn current(&self) -> Arc<Registry> {
        self.shared.current.load_full()
    }

    /// The set as it is now, without counting a reference (a request's first look).
    pub(crate) fn load(&self) -> arc_swap::Guard<Arc<Registry>> {
        self.shared.current.load()
    }

    /// The tool named `name` in the set as it is now.
    #[inline]
    pub(crate) fn tool(&self, name: &str) -> Option<ToolRef> {
        self.shared.current.load().shared(name).cloned()
    }

    /// Runs `change` on a copy of the set and serves the result, or changes nothing when it
    /// fails. Listeners hear of it once, after the swap.
    ///
    /// ```
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let tools = server.registry_handle();
    /// tools
    ///     .update(|registry| {
    ///         *registry = registry.clone().merge(toolsmith::Registry::new())?;
    ///         Ok(())
    ///     })
    ///     .unwrap();
    /// ```
    pub fn update(
        &self,
        change: impl FnOnce(&mut Registry) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.change(|registry| change(registry).map(|()| true))
            .map(drop)
    }

    /// `update`, where `change` says whether it changed anything (nothing is swapped and
    /// nobody told when not). Whether it did.
    fn change(
        &self,
        change: impl FnOnce(&mut Registry) -> Result<bool, Error>,
    ) -> Result<bool, Error> {
        let changed = {
            let _writing = self
                .shared
                .writing
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let before = self.shared.current.load_full();
            let mut next = Registry::clone(&before);
            if !change(&mut next)? {
                return Ok(false);
            }
            let changed = next.changes_since(&before);
            self.shared.current.store(Arc::new(next));
            changed
        };
        if changed.any() {
            self.tell(changed);
        }
        Ok(true)
    }

    /// Adds a tool made by hand (see [`Registry::add_tool`]: refused as it refuses it, and
    /// the tools served stay as they were).
    ///
    /// ```
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// assert_eq!(server.registry_handle().current().len(), 0);
    /// ```
    pub fn add_tool(&self, tool: impl Tool) -> Result<(), Error> {
        let tool: Arc<dyn Tool> = Arc::new(tool);
        self.update(|registry| registry.add_shared(tool))
    }

    /// Removes the tool named `name`; whether there was one.
    ///
    /// ```
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// assert!(!server.registry_handle().remove_tool("nothing"));
    /// ```
    pub fn remove_tool(&self, name: &str) -> bool {
        self.change(|registry| Ok(registry.remove_tool(name).is_some()))
            .unwrap_or(false)
    }

    /// Adds a resource or template made by hand (see [`Registry::add_resource`]).
    ///
    /// ```
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// assert!(server.registry_handle().current().resources().is_empty());
    /// ```
    pub fn add_resource(&self, resource: impl Resource) -> Result<(), Error> {
        self.update(|registry| registry.add_resource(resource))
    }

    /// Removes the resource or template declared with `uri`; whether there was one.
    ///
    /// ```
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// assert!(!server.registry_handle().remove_resource("motd://today"));
    /// ```
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.change(|registry| Ok(registry.remove_resource(uri).is_some()))
            .unwrap_or(false)
    }

    /// Adds a prompt made by hand (see [`Registry::add_prompt`]).
    ///
    /// ```
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// assert!(server.registry_handle().current().prompts().is_empty());
    /// ```
    pub fn add_prompt(&self, prompt: impl Prompt) -> Result<(), Error> {
        self.update(|registry| registry.add_prompt(prompt))
    }

    /// Removes the prompt named `name`; whether there was one.
    ///
    /// ```
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// assert!(!server.registry_handle().remove_prompt("greet"));
    /// ```
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.change(|registry| Ok(registry.remove_prompt(name).is_some()))
            .unwrap_or(false)
    }

    /// Serves `registry` instead of the set now.
    ///
    /// ```
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// server.registry_handle().replace(toolsmith::Registry::new());
    /// ```
    pub fn replace(&self, registry: Registry) {
        let _ = self.update(|current| {
            *current = registry;
            Ok(())
        });
    }

    /// `listener` hears every change until it is dropped.
    pub(crate) fn listen(&self, listener: Weak<dyn Listener>) {
        self.listeners().push(listener);
    }

    /// Tells every listener still there (outside the lock: a listener may read the set).
    fn tell(&self, what: Changed) {
        let listeners: Vec<Arc<dyn Listener>> =
            self.listeners().iter().filter_map(Weak::upgrade).collect();
        for listener in listeners {
            listener.changed(what);
        }
    }

    /// The listeners, those dropped since forgotten.
    fn listeners(&self) -> std::sync::MutexGuard<'_, Vec<Weak<dyn Listener>>> {
        let mut listeners = self
            .shared
            .listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        listeners.retain(|l| l.strong_count() > 0);
        listeners
    }
}

impl std::fmt::Debug for RegistryHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryHandle")
            .field("tools", &self.current().len())
            .finish()
    }
}

//! [`Store`]: the server's store, for state a tool keeps across calls and replicas.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use super::{CallContext, FromContext};
use crate::task::TaskStore;

/// The server's store (its [task store](crate::Server::task_store): this process's memory
/// by default, Redis shared by replicas with `--task-store redis://…`): a context parameter
/// for state a tool keeps beyond one call, which every replica behind a load balancer must
/// see (a sign-in in progress, a user's tokens at another server). Its keys are shared
/// with the server's own records: prefix yours with your program's name.
///
/// ```
/// use std::time::Duration;
/// use toolsmith::context::Store;
/// use toolsmith::task::TaskStore;
/// use toolsmith::{Registry, Server, ToolError, testing::Client};
///
/// /// Counts the visits, across calls (and replicas sharing a store).
/// #[toolsmith::tool(destructive = false, closed_world)]
/// async fn count_visits(store: Store) -> Result<u64, ToolError> {
///     store
///         .count("myapp:visits", Duration::from_secs(3600))
///         .await
///         .map_err(|err| ToolError::new(err.to_string()))
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap());
/// let client = Client::connect(server).await.unwrap();
/// client.call("count_visits", serde_json::json!({})).await.unwrap();
/// let second = client.call("count_visits", serde_json::json!({})).await.unwrap();
/// assert_eq!(second.data::<u64>().unwrap(), 2);
/// # }
/// ```
#[derive(Clone)]
pub struct Store(Arc<dyn TaskStore>);

impl Store {
    pub(crate) fn new(store: Arc<dyn TaskStore>) -> Self {
        Store(store)
    }

    /// The store itself, to keep beyond the call (in a task the tool spawns, say).
    ///
    /// ```
    /// # fn f(store: toolsmith::context::Store) {
    /// let kept: std::sync::Arc<dyn toolsmith::task::TaskStore> = store.shared();
    /// # let _ = kept;
    /// # }
    /// ```
    pub fn shared(&self) -> Arc<dyn TaskStore> {
        self.0.clone()
    }
}

impl Deref for Store {
    type Target = dyn TaskStore;

    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Store")
    }
}

/// A call made outside a server (no store to give).
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub struct NoStore;

impl fmt::Display for NoStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("this call has no store: serve the tool from a toolsmith Server")
    }
}

impl FromContext for Store {
    type Rejection = NoStore;

    fn from_context(context: &CallContext) -> Result<Self, NoStore> {
        context
            .states
            .get::<Store>()
            .map(|store| (*store).clone())
            .ok_or(NoStore)
    }
}

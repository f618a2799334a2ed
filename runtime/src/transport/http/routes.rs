//! Routes of the program's own beside the MCP endpoint ([`Server::http_routes`]), made when
//! serving starts, with what the server serves with ([`Serving`]).
//!
//! [`Server::http_routes`]: crate::Server::http_routes

use std::fmt;
use std::sync::Arc;

use axum::Router;

use crate::task::TaskStore;

/// What the HTTP server serves with, for the routes a program adds beside the MCP endpoint
/// ([`Server::http_routes`](crate::Server::http_routes)): its store and the URL clients
/// reach it at.
///
/// ```
/// use toolsmith::{Server, axum::{Router, routing::get}};
///
/// let server = Server::new().http_routes(|serving| {
///     let home = serving.origin().to_owned();
///     Router::new().route("/hello", get(move || async move { format!("served from {home}") }))
/// });
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct Serving {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) public_url: String,
}

impl Serving {
    /// The server's store (the task store: replicas that share one see one another's
    /// records).
    ///
    /// ```
    /// # fn f(serving: &toolsmith::server::Serving) {
    /// let store = serving.store();
    /// # let _ = store;
    /// # }
    /// ```
    pub fn store(&self) -> Arc<dyn TaskStore> {
        self.store.clone()
    }

    /// The MCP endpoint's URL as clients reach it (`--public-url`, else the bound address
    /// and the path).
    ///
    /// ```
    /// # fn f(serving: &toolsmith::server::Serving) {
    /// assert!(serving.public_url().starts_with("http"));
    /// # }
    /// ```
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// The origin of [`public_url`](Serving::public_url) (`https://mcp.example.com`), where a
    /// route added beside the endpoint is reached.
    ///
    /// ```
    /// # fn f(serving: &toolsmith::server::Serving) {
    /// assert!(!serving.origin().ends_with('/'));
    /// # }
    /// ```
    pub fn origin(&self) -> &str {
        let url = self.public_url.as_str();
        let start = url.find("://").map_or(0, |at| at + 3);
        let end = url[start..].find('/').map_or(url.len(), |at| start + at);
        &url[..end]
    }
}

impl fmt::Debug for Serving {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Serving")
            .field("public_url", &self.public_url)
            .finish_non_exhaustive()
    }
}

/// The server's store, as the transport's settings hold it.
#[derive(Clone)]
pub(crate) struct SharedStore(pub(crate) Arc<dyn TaskStore>);

impl fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SharedStore")
    }
}

/// What makes a program's routes, once serving starts.
#[derive(Clone)]
pub(crate) struct RouteMaker(pub(crate) Arc<dyn Fn(&Serving) -> Router + Send + Sync>);

impl fmt::Debug for RouteMaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RouteMaker")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_is_the_public_urls_scheme_and_host() {
        let serving = |url: &str| Serving {
            store: Arc::new(crate::task::MemoryStore::new()),
            public_url: url.into(),
        };
        assert_eq!(
            serving("https://mcp.example.com/mcp").origin(),
            "https://mcp.example.com"
        );
        assert_eq!(
            serving("http://127.0.0.1:8080/a/b").origin(),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            serving("http://127.0.0.1:8080").origin(),
            "http://127.0.0.1:8080"
        );
    }
}

//! Where the sign-in's pages are served: `GET`/`POST /upstream/start` (`start.rs`) and
//! `GET /upstream/callback` (`callback.rs`), once for every upstream that signs its users in.

use std::sync::Arc;

use toolsmith::axum::Router;
use toolsmith::axum::routing::get;
use toolsmith::server::Serving;
use toolsmith::task::TaskStore;

use super::SignInClient;
use super::callback::{Pages, callback};
use super::start::{confirm, start};

/// The start and callback pages of every sign-in client (`clients`), their states in
/// `store`. Served once for all upstreams: the callback is one URL.
pub(crate) fn routes(clients: &[Arc<SignInClient>], store: Arc<dyn TaskStore>) -> Router {
    let pages = Arc::new(Pages {
        clients: clients
            .iter()
            .map(|c| (c.upstream.clone(), c.clone()))
            .collect(),
        store,
    });
    Router::new()
        .route("/upstream/start", get(start).post(confirm))
        .route("/upstream/callback", get(callback))
        .with_state(pages)
}

/// The pages of every sign-in client of the gateway (`clients`), served with `serving`:
/// once, for all of them (the callback is one URL).
pub(crate) fn routes_for(clients: &[Arc<SignInClient>], serving: &Serving) -> Router {
    for client in clients {
        client.serve_at(serving.origin());
    }
    routes(clients, serving.store())
}

impl SignInClient {
    /// The pages of this client alone (a gateway with one sign-in upstream; with more, serve
    /// [`routes_for`] all of them once).
    #[allow(dead_code)]
    pub(crate) fn routes(self: &Arc<Self>, serving: &Serving) -> Router {
        self.routes_at(serving.origin(), serving.store())
    }

    /// The pages of this one client, the callback at `origin` (unless configured).
    pub(crate) fn routes_at(self: &Arc<Self>, origin: &str, store: Arc<dyn TaskStore>) -> Router {
        self.serve_at(origin);
        routes(std::slice::from_ref(self), store)
    }

    /// Its callback is at `origin` + `/upstream/callback`, unless `callback_url` says.
    pub(crate) fn serve_at(&self, origin: &str) {
        let _ = self.callback.set(format!(
            "{}/upstream/callback",
            origin.trim_end_matches('/')
        ));
    }
}

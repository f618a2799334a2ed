//! An upstream that signs its users in at its own authorization server
//! ([`Upstream::sign_in`](crate::Upstream::sign_in), see `gateway/src/identity/signin/`), and
//! the sign-in's pages of all such upstreams, served beside the HTTP endpoint
//! ([`sign_in_routes`]).

use std::sync::Arc;

use toolsmith::axum::Router;
use toolsmith::server::Serving;

use crate::UpstreamSignIn;
use crate::identity::signin::{SignInClient, routes_for};

impl crate::Upstream {
    /// Calls it as each user, signed in at its own authorization server (see
    /// [`UpstreamSignIn`]): an HTTP upstream's. A user with no token of its own there is
    /// asked (URL-mode elicitation) to sign in through the gateway's start page; one whose
    /// client cannot open a URL gets a tool error carrying the link. Its tools get a
    /// `{prefix}sign_out` beside them. Needs the gateway served over HTTP (the sign-in's
    /// pages), or [`callback_url`](crate::UpstreamSignIn::callback_url) naming one that is.
    /// Its [`ca_file`](crate::Upstream::ca_file), given before, is trusted for its sign-in too.
    ///
    /// ```
    /// use toolsmith_gateway::{Upstream, UpstreamSignIn};
    ///
    /// let files = Upstream::http("files", "https://files.example/mcp")
    ///     .sign_in(UpstreamSignIn::new("${GATEWAY_TOKEN_KEY}").scopes(["files:read"]));
    /// assert_eq!(files.tool_prefix(), "files_");
    /// ```
    pub fn sign_in(mut self, sign_in: UpstreamSignIn) -> Self {
        let url = match &self.way {
            crate::upstream::Way::Http { url, .. } => url.clone(),
            _ => String::new(),
        };
        let ca_file = self.ca_file.as_deref();
        let client = Arc::new(SignInClient::trusting(&self.name, &url, sign_in, ca_file));
        self.acts_as = Some(client.clone());
        self.sign_in = Some(client);
        self
    }
}

impl crate::Upstream {
    /// Its sign-in client, when it signs its users in.
    pub(crate) fn sign_in_client(&self) -> Option<&Arc<SignInClient>> {
        self.sign_in.as_ref()
    }
}

/// The sign-in's pages (`GET /upstream/start`, `GET /upstream/callback`) of every upstream
/// among `mounted` that signs its users in ([`Upstream::sign_in`](crate::Upstream::sign_in)),
/// for [`Server::http_routes`](toolsmith::Server::http_routes): once for all of them (the
/// callback is one URL). `None` when none does.
///
/// ```
/// let none: Vec<toolsmith_gateway::Mounted> = Vec::new();
/// assert!(toolsmith_gateway::sign_in_routes(&none).is_none());
/// ```
pub fn sign_in_routes<'a>(
    mounted: impl IntoIterator<Item = &'a crate::Mounted>,
) -> Option<impl Fn(&Serving) -> Router + Send + Sync + 'static> {
    let clients: Vec<Arc<SignInClient>> = mounted
        .into_iter()
        .filter_map(|m| m.upstream().sign_in_client().cloned())
        .collect();
    (!clients.is_empty()).then_some(move |serving: &Serving| routes_for(&clients, serving))
}

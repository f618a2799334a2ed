//! The running authorization server: its settings, its store, its keys, its provider, and
//! what each scope opens (the server tells it, from the tools' hints).

use std::sync::{Arc, Weak};
use std::time::Duration;

use jsonwebtoken::jwk::Jwk;
use serde_json::{Value, json};

use super::SignIn;
use super::documents::Documents;
use super::keys::Keys;
use super::upstream::Upstream;
use crate::task::TaskStore;

/// How often the signing keys are read again (another replica may have replaced them).
const KEYS_REFRESH: Duration = Duration::from_secs(300);

/// What a scope lets a client do, by the hints of the tools that need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// The read-only tools' scope.
    Read,
    /// The scope of the tools that change things, not destructively.
    Change,
    /// The destructive tools' scope.
    Destructive,
    /// A scope tools name themselves.
    Other,
}

/// One scope, what it lets a client do, and the titles of the tools that need it.
#[derive(Debug, Clone)]
pub(crate) struct Offer {
    pub(crate) scope: String,
    pub(crate) level: Level,
    pub(crate) tools: Vec<String>,
}

/// What each scope opens now (the tool set may change while serving).
pub(crate) type Offers = Arc<dyn Fn() -> Vec<Offer> + Send + Sync>;

/// The authorization server of one resource.
pub(crate) struct AuthServer {
    pub(super) settings: SignIn,
    pub(super) store: Arc<dyn TaskStore>,
    /// Its issuer: the resource's origin.
    pub(super) issuer: String,
    /// The resource's URL (the MCP endpoint's public URL): the tokens' audience.
    pub(super) resource: String,
    /// Every scope it grants.
    pub(super) scopes: Vec<String>,
    pub(super) keys: Keys,
    pub(super) upstream: Upstream,
    pub(super) offers: Offers,
    pub(super) documents: Documents,
    /// Whether the issuer is `https` (its cookie is then `Secure`).
    pub(super) https: bool,
}

impl AuthServer {
    /// The authorization server of `resource` (the MCP endpoint's public URL), keeping its
    /// state in `store`, granting `scopes`.
    pub(crate) async fn start(
        settings: SignIn,
        store: Arc<dyn TaskStore>,
        resource: &str,
        scopes: Vec<String>,
        offers: Offers,
    ) -> Result<Arc<AuthServer>, crate::Error> {
        let issuer = super::origin(resource).ok_or_else(|| {
            crate::Error::config(
                "sign-in",
                format!("the public URL {resource} has no origin"),
            )
        })?;
        let upstream = Upstream::new(settings.provider.clone())?;
        let keys = Keys::load(store.as_ref()).await.map_err(|err| {
            crate::Error::config(
                "sign-in",
                format!("the signing keys cannot be kept in the task store: {err}"),
            )
        })?;
        let server = Arc::new(AuthServer {
            https: issuer.starts_with("https://"),
            settings,
            store,
            issuer,
            resource: resource.to_owned(),
            scopes,
            keys,
            upstream,
            offers,
            documents: Documents::default(),
        });
        refresh_keys(Arc::downgrade(&server));
        tracing::info!(
            issuer = %server.issuer,
            provider = %server.upstream.provider().issuer(),
            "sign-in: authorization server ready"
        );
        Ok(server)
    }

    /// Its issuer.
    pub(crate) fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Its public keys (the resource server's, too).
    pub(crate) fn public_keys(&self) -> Vec<Jwk> {
        self.keys.public()
    }

    /// The authorization server metadata (RFC 8414), also served as OpenID discovery.
    pub(super) fn metadata(&self) -> Value {
        let at = |path: &str| format!("{}{path}", self.issuer);
        json!({
            "issuer": self.issuer,
            "authorization_endpoint": at("/oauth/authorize"),
            "token_endpoint": at("/oauth/token"),
            "registration_endpoint": at("/oauth/register"),
            "revocation_endpoint": at("/oauth/revoke"),
            "jwks_uri": at("/oauth/jwks"),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
            "revocation_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
            "scopes_supported": self.scopes,
            "client_id_metadata_document_supported": true,
            "authorization_response_iss_parameter_supported": true,
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
        })
    }
}

/// Reads the keys again every five minutes while the server lives.
fn refresh_keys(server: Weak<AuthServer>) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(KEYS_REFRESH);
        every.tick().await;
        loop {
            every.tick().await;
            let Some(server) = server.upgrade() else {
                return;
            };
            if let Err(err) = server.keys.refresh(server.store.as_ref()).await {
                tracing::warn!("sign-in: the signing keys were not read again: {err}");
            }
        }
    });
}

//! The sign-in's pages beside the HTTP endpoint: `GET /upstream/start?s=STATE` (sets a
//! cookie bound to the state, HttpOnly, SameSite=Lax, and sends the browser to the
//! upstream's authorization request) and `GET /upstream/callback?code&state` (takes the
//! state, atomically: a replay, on this replica or another sharing the store, finds nothing;
//! requires the start page's cookie; redeems the code with the PKCE verifier; keeps the
//! tokens, sealed). Every refusal is a page that says why, and keeps nothing.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use toolsmith::axum::Router;
use toolsmith::axum::extract::{Query, State};
use toolsmith::axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use toolsmith::axum::response::{IntoResponse, Response};
use toolsmith::axum::routing::get;
use toolsmith::server::Serving;
use toolsmith::task::TaskStore;

use super::flow::{Pending, STATE_TTL, failed_key, state_key};
use super::register::clipped;
use super::vault::random_text;
use super::{SignInClient, digest, now_secs};

/// The pages' state: the sign-in clients by upstream, and the store.
struct Pages {
    clients: HashMap<String, Arc<SignInClient>>,
    store: Arc<dyn TaskStore>,
}

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
        .route("/upstream/start", get(start))
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

/// The cookie of the sign-in whose state digests to `state_digest`.
fn cookie_name(state_digest: &str) -> String {
    format!("toolsmith_upstream_{}", &state_digest[..16])
}

/// A page saying `what`, with `status`.
fn page(status: StatusCode, title: &str, what: &str) -> Response {
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{0}</title></head>\
         <body><h1>{0}</h1><p>{1}</p></body></html>",
        escape(title),
        escape(what)
    );
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'"),
    );
    response
}

/// A refusal page (400): nothing was kept.
fn refused(what: &str) -> Response {
    page(StatusCode::BAD_REQUEST, "Sign-in failed", what)
}

/// `text` for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The value of cookie `name` in `headers`.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.to_owned())
}

/// The sign-in `state` names, taken from the store (gone from it then), opened.
async fn take(
    pages: &Pages,
    state: &str,
) -> Result<(Arc<SignInClient>, String, Pending), Response> {
    const GONE: &str = "This sign-in is unknown, expired or already used: call the tool again for a new sign-in link.";
    let key = state_key(&digest(state));
    let record = match pages.store.take(&key).await {
        Ok(Some(record)) => record,
        Ok(None) => return Err(refused(GONE)),
        Err(err) => {
            return Err(page(
                StatusCode::SERVICE_UNAVAILABLE,
                "Sign-in failed",
                &format!("The gateway's store is not reachable ({err}); try again."),
            ));
        }
    };
    let record: Value = serde_json::from_str(&record).unwrap_or(Value::Null);
    let client = record["upstream"]
        .as_str()
        .and_then(|name| pages.clients.get(name))
        .ok_or_else(|| refused(GONE))?;
    let vault = client.vault().map_err(|_| refused(GONE))?;
    let pending: Pending = vault
        .open_json(&key, record["sealed"].as_str().unwrap_or(""))
        .map_err(|_| refused(GONE))?;
    if pending.expires <= now_secs() {
        return Err(refused(GONE));
    }
    Ok((client.clone(), key, pending))
}

/// `GET /upstream/start?s=STATE`.
async fn start(
    State(pages): State<Arc<Pages>>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let Some(state) = query.get("s") else {
        return refused(
            "The sign-in link names no sign-in (`s`): call the tool again for a new link.",
        );
    };
    let (client, key, mut pending) = match take(&pages, state).await {
        Ok(taken) => taken,
        Err(page) => return page,
    };
    // A new cookie for this browser (the link opened again: the last browser's).
    let Ok(nonce) = random_text() else {
        return refused("The gateway has no random bytes: try again.");
    };
    pending.cookie = Some(digest(&nonce));
    let left = Duration::from_secs(pending.expires.saturating_sub(now_secs()).max(1));
    let sealed = match client.vault().map(|v| v.seal_json(&key, &pending)) {
        Ok(Ok(sealed)) => sealed,
        _ => return refused("The sign-in could not be kept: call the tool again."),
    };
    let record = serde_json::json!({"upstream": client.upstream, "sealed": sealed});
    if pages
        .store
        .put_new(&key, &record.to_string(), left.min(STATE_TTL))
        .await
        .is_err()
    {
        return refused("The gateway's store is not reachable: call the tool again.");
    }
    let secure = if pending.redirect_uri.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    let set_cookie = format!(
        "{}={nonce}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
        cookie_name(&digest(state)),
        left.as_secs()
    );
    let mut response = StatusCode::FOUND.into_response();
    let headers = response.headers_mut();
    if let (Ok(location), Ok(cookie)) = (
        HeaderValue::from_str(&pending.authorize),
        HeaderValue::from_str(&set_cookie),
    ) {
        headers.insert(header::LOCATION, location);
        headers.insert(header::SET_COOKIE, cookie);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// `GET /upstream/callback?code&state` (or `error`).
async fn callback(
    State(pages): State<Arc<Pages>>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let Some(state) = query.get("state") else {
        return refused("The sign-in's answer names no sign-in (`state`): call the tool again.");
    };
    let (client, _, pending) = match take(&pages, state).await {
        Ok(taken) => taken,
        Err(page) => return page,
    };
    let state_digest = digest(state);
    let fail = |why: String| {
        let store = pages.store.clone();
        let key = failed_key(&state_digest);
        async move {
            let _ = store.put(&key, &why, STATE_TTL).await;
            refused(&format!("{why}. Call the tool again to sign in again."))
        }
    };
    let started_here = match (
        &pending.cookie,
        cookie(&headers, &cookie_name(&state_digest)),
    ) {
        (Some(expected), Some(sent)) => digest(&sent) == *expected,
        _ => false,
    };
    if !started_here {
        return fail("This sign-in did not start in this browser (its cookie is missing): open the sign-in link the tool gave".to_owned()).await;
    }
    let upstream = client.upstream.clone();
    if let Some(error) = query.get("error") {
        let description = query
            .get("error_description")
            .map(|d| format!(" ({})", clipped(d)))
            .unwrap_or_default();
        return fail(format!(
            "The sign-in at '{upstream}' answered {}{description}",
            clipped(error)
        ))
        .await;
    }
    let Ok(metadata) = client.metadata().await else {
        return fail(format!("The sign-in of '{upstream}' is not reachable")).await;
    };
    if let Some(iss) = query.get("iss")
        && iss.trim_end_matches('/') != metadata.issuer.trim_end_matches('/')
    {
        return fail(format!(
            "The sign-in's answer comes from another issuer than '{upstream}''s"
        ))
        .await;
    }
    let Some(code) = query.get("code").filter(|c| !c.is_empty()) else {
        return fail("The sign-in's answer has no code".to_owned()).await;
    };
    let fields = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", pending.redirect_uri.as_str()),
        ("code_verifier", pending.verifier.as_str()),
        ("resource", metadata.resource.as_str()),
    ];
    let tokens = match client
        .token_request(metadata, &pending.client, &fields, None)
        .await
    {
        Ok(tokens) => tokens,
        Err(why) => {
            tracing::warn!(upstream = %upstream, "upstream sign-in: the code was not redeemed: {why}");
            return fail(format!("The sign-in at '{upstream}' was refused: {why}")).await;
        }
    };
    if let Err(err) = client.keep(&pending.token_key, &tokens, &pages.store).await {
        return fail(err.to_string()).await;
    }
    tracing::info!(upstream = %upstream, "upstream sign-in: a user signed in");
    let mut response = page(
        StatusCode::OK,
        "Signed in",
        &format!(
            "You are signed in to '{upstream}'. You can close this page and go back to your client."
        ),
    );
    if let Ok(gone) = HeaderValue::from_str(&format!(
        "{}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0",
        cookie_name(&state_digest)
    )) {
        response.headers_mut().insert(header::SET_COOKIE, gone);
    }
    response
}

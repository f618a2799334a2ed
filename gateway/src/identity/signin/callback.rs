//! The sign-in's pages beside the HTTP endpoint: the start pages (`start.rs`) and
//! `GET /upstream/callback?code&state` (reads the state, requires the start page's cookie,
//! and only then takes the state, atomically: a replay, on this replica or another sharing
//! the store, finds nothing, and a browser without the cookie leaves it to the one that
//! started it; checks the answer's issuer, RFC 9207; redeems the code with the PKCE verifier;
//! keeps the tokens, sealed). Every refusal is a page that says why, and keeps nothing.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use toolsmith::axum::extract::{Query, State};
use toolsmith::axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use toolsmith::axum::response::Response;
pub(super) use toolsmith::html::escape;

use toolsmith::task::TaskStore;

use super::flow::{Pending, STATE_TTL, failed_key, state_key};
use super::register::clipped;
use super::{SignInClient, digest, now_secs};

/// The pages' state: the sign-in clients by upstream, and the store.
pub(super) struct Pages {
    pub(super) clients: HashMap<String, Arc<SignInClient>>,
    pub(super) store: Arc<dyn TaskStore>,
}

/// The cookie of the sign-in whose state digests to `state_digest`.
pub(super) fn cookie_name(state_digest: &str) -> String {
    format!("toolsmith_upstream_{}", &state_digest[..16])
}

/// A page saying `what`, with `status`.
pub(super) fn page(status: StatusCode, title: &str, what: &str) -> Response {
    html(status, title, &format!("<p>{}</p>", escape(what)))
}

/// A page of `body` (HTML, escaped by the caller) under `title`, with `status`: no script,
/// never framed, never cached.
pub(super) fn html(status: StatusCode, title: &str, body: &str) -> Response {
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{0}</title></head>\
         <body><h1>{0}</h1>{body}</body></html>",
        escape(title),
    );
    toolsmith::html::page(status, body)
}

/// A refusal page (400): nothing was kept.
pub(super) fn refused(what: &str) -> Response {
    page(StatusCode::BAD_REQUEST, "Sign-in failed", what)
}

/// The value of cookie `name` in `headers`.
pub(super) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.to_owned())
}

/// Why a sign-in is not found.
pub(super) const GONE: &str =
    "This sign-in is unknown, expired or already used: call the tool again for a new sign-in link.";

/// The page for a store that did not answer.
pub(super) fn unreachable(err: impl std::fmt::Display) -> Response {
    page(
        StatusCode::SERVICE_UNAVAILABLE,
        "Sign-in failed",
        &format!("The gateway's store is not reachable ({err}); try again."),
    )
}

/// The sign-in `state` names, read from the store (left there): its client, store key and
/// record, opened.
pub(super) async fn read(
    pages: &Pages,
    state: &str,
) -> Result<(Arc<SignInClient>, String, Pending), Response> {
    let key = state_key(&digest(state));
    match pages.store.read(&key).await {
        Ok(Some(record)) => opened(pages, key, &record).ok_or_else(|| refused(GONE)),
        Ok(None) => Err(refused(GONE)),
        Err(err) => Err(unreachable(err)),
    }
}

/// The sign-in record kept under `key`, opened (unexpired).
fn opened(
    pages: &Pages,
    key: String,
    record: &str,
) -> Option<(Arc<SignInClient>, String, Pending)> {
    let (client, pending) = pages.open::<Pending>(&key, record)?;
    (pending.expires > now_secs()).then_some((client, key, pending))
}

impl Pages {
    /// The value `record` (kept under `key`, as [`SignInClient::record`] made it) seals,
    /// opened by its upstream's vault, and that upstream's client.
    pub(super) fn open<T: serde::de::DeserializeOwned>(
        &self,
        key: &str,
        record: &str,
    ) -> Option<(Arc<SignInClient>, T)> {
        let record: Value = serde_json::from_str(record).ok()?;
        let client = self.clients.get(record["upstream"].as_str()?)?;
        let value = client
            .vault()
            .ok()?
            .open_json(key, record["sealed"].as_str()?)
            .ok()?;
        Some((client.clone(), value))
    }
}

/// Whether `headers` carry the cookie the start page set for the sign-in of
/// `state_digest` (whose digest `pending` keeps): its value then.
pub(super) fn started_here(
    headers: &HeaderMap,
    state_digest: &str,
    pending: &Pending,
) -> Option<String> {
    let sent = cookie(headers, &cookie_name(state_digest))?;
    (pending.cookie.as_deref() == Some(digest(&sent).as_str())).then_some(sent)
}

/// `GET /upstream/callback?code&state` (or `error`).
pub(super) async fn callback(
    State(pages): State<Arc<Pages>>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let Some(state) = query.get("state") else {
        return refused("The sign-in's answer names no sign-in (`state`): call the tool again.");
    };
    // Read, compared with this browser's cookie, and only then taken: a request without the
    // cookie leaves the sign-in to the browser that started it.
    let (client, key, pending) = match read(&pages, state).await {
        Ok(read) => read,
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
    if started_here(&headers, &state_digest, &pending).is_none() {
        return fail("This sign-in did not start in this browser (its cookie is missing): open the sign-in link the tool gave".to_owned()).await;
    }
    match pages.store.take(&key).await {
        Ok(Some(_)) => {}
        Ok(None) => return refused(GONE),
        Err(err) => return unreachable(err),
    }
    let upstream = client.upstream.clone();
    let Ok(metadata) = client.metadata().await else {
        return fail(format!("The sign-in of '{upstream}' is not reachable")).await;
    };
    // One callback serves every upstream: an answer (a code or an error) must come from the
    // authorization server this sign-in went to, else it is a mix-up (RFC 9207).
    match query.get("iss") {
        Some(iss) if *iss != metadata.issuer => {
            return fail(format!(
                "The sign-in's answer names the issuer {:?}, not {:?} where '{upstream}' signs in (a mix-up of authorization servers)",
                clipped(iss),
                metadata.issuer
            ))
            .await;
        }
        None if metadata.authorization_response_iss_parameter_supported => {
            return fail(format!(
                "The sign-in's answer names no issuer (`iss`), which {:?} where '{upstream}' signs in says it always names",
                metadata.issuer
            ))
            .await;
        }
        _ => {}
    }
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

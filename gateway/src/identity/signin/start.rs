//! The sign-in's start pages. `GET /upstream/start?s=LINK` never sends the browser on by
//! itself, and never binds the link: it answers a page saying which gateway user the upstream
//! account will be linked to, a cookie (HttpOnly, SameSite=Lax) and a form whose hidden `csrf`
//! is the cookie's value (a double submit). So a chat app's link preview that fetches the link
//! first takes nothing from the user. `POST /upstream/start` checks the form against the
//! cookie; the first browser to post it binds the link (a second one is refused, and so is its
//! `GET` from then on), and only then is sent (303) to the upstream's authorization request.
//! So a link sent to someone else (whose browser is signed in at the upstream and consented
//! already) cannot link their account to the sender silently.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use toolsmith::axum::extract::{Query, State};
use toolsmith::axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use toolsmith::axum::response::{IntoResponse, Response};

use super::callback::{
    GONE, Pages, cookie, cookie_name, escape, html, page, read, refused, started_here, unreachable,
};
use super::flow::{Pending, STATE_TTL, bound_key, link_key};
use super::vault::random_text;
use super::{SignInClient, digest, now_secs};

/// Why a second browser is refused a link.
const ELSEWHERE: &str = "This sign-in link was already continued in another browser: finish \
    the sign-in there, or call the tool again for a new link once it expires (10 minutes).";

/// The page refusing a browser the link another one continued.
fn elsewhere() -> Response {
    page(StatusCode::CONFLICT, "Sign-in link already used", ELSEWHERE)
}

/// Why a form is refused its cookie.
const NOT_HERE: &str = "This sign-in did not start in this browser (its cookie or the form's \
    value is missing or wrong): open the sign-in link the tool gave.";

/// The state of the sign-in link `id` names, opened.
async fn state_of(pages: &Pages, id: &str) -> Result<String, Response> {
    let key = link_key(&digest(id));
    let record = match pages.store.read(&key).await {
        Ok(Some(record)) => record,
        Ok(None) => return Err(refused(GONE)),
        Err(err) => return Err(unreachable(err)),
    };
    let (_, state) = pages.open(&key, &record).ok_or_else(|| refused(GONE))?;
    Ok(state)
}

/// How long `pending` has left.
fn left(pending: &Pending) -> Duration {
    Duration::from_secs(pending.expires.saturating_sub(now_secs()).max(1)).min(STATE_TTL)
}

/// `GET /upstream/start?s=LINK`: the page naming who the account is linked to.
pub(super) async fn start(
    State(pages): State<Arc<Pages>>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let Some(id) = query.get("s") else {
        return refused(
            "The sign-in link names no sign-in (`s`): call the tool again for a new link.",
        );
    };
    let state = match state_of(&pages, id).await {
        Ok(state) => state,
        Err(page) => return page,
    };
    let (client, _, pending) = match read(&pages, &state).await {
        Ok(read) => read,
        Err(page) => return page,
    };
    let state_digest = digest(&state);
    let nonce = if pending.cookie.is_some() {
        // Bound: the browser that continued it, opening it again; any other is refused.
        match started_here(&headers, &state_digest, &pending) {
            Some(nonce) => nonce,
            None => return elsewhere(),
        }
    } else {
        // Not bound yet: every opening (a link preview's too) gets a value of its own, and
        // nothing is kept until a form comes back with it.
        let Ok(nonce) = random_text() else {
            return refused("The gateway has no random bytes: try again.");
        };
        nonce
    };
    let upstream = escape(&client.upstream);
    let who = escape(&pending.who);
    let body = format!(
        "<p>You are about to sign in to '{upstream}'. The account you sign in with there will \
         be linked to the gateway user <strong>{who}</strong>: the gateway will call \
         '{upstream}' as that account whenever {who} calls its tools.</p>\
         <p>If you are not {who}, or did not ask for this sign-in yourself, close this page: \
         someone may have sent you their link.</p>\
         <form method=\"post\" action=\"start\">\
         <input type=\"hidden\" name=\"s\" value=\"{}\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{}\">\
         <button type=\"submit\">Continue to {upstream}</button></form>",
        escape(id),
        escape(&nonce),
    );
    let mut response = html(
        StatusCode::OK,
        &format!("Sign in to '{}'", client.upstream),
        &body,
    );
    let secure = if pending.redirect_uri.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    let set_cookie = format!(
        "{}={nonce}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
        cookie_name(&state_digest),
        left(&pending).as_secs()
    );
    if let Ok(cookie) = HeaderValue::from_str(&set_cookie) {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

/// Keeps `pending` (its cookie now set) under `key`, for what it has left.
async fn keep(
    pages: &Pages,
    client: &SignInClient,
    key: &str,
    pending: &Pending,
) -> Result<(), ()> {
    let record = client.record(key, pending).map_err(|_| ())?;
    pages
        .store
        .put(key, &record, left(pending))
        .await
        .map_err(|_| ())
}

/// `POST /upstream/start` (`s`, `csrf`): the form's value must be the cookie's, and the
/// link unbound (then bound to this cookie) or bound to it already; then the browser goes
/// (303) to the upstream's authorization request.
pub(super) async fn confirm(
    State(pages): State<Arc<Pages>>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let form: HashMap<String, String> = url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    let (Some(id), Some(csrf)) = (form.get("s"), form.get("csrf")) else {
        return refused(
            "The sign-in form names no sign-in (`s`, `csrf`): open the sign-in link again.",
        );
    };
    let state = match state_of(&pages, id).await {
        Ok(state) => state,
        Err(page) => return page,
    };
    let (client, key, mut pending) = match read(&pages, &state).await {
        Ok(read) => read,
        Err(page) => return page,
    };
    let sent = match cookie(&headers, &cookie_name(&digest(&state))) {
        Some(sent) if !csrf.is_empty() && sent == *csrf => sent,
        _ => return refused(NOT_HERE),
    };
    let mine = digest(&sent);
    match pending.cookie.as_deref() {
        // The browser that bound it, posting again.
        Some(bound) if bound == mine => {}
        Some(_) => return elsewhere(),
        // The first form to come back binds the link, on every replica at once.
        None => match pages
            .store
            .put_new(&bound_key(&digest(id)), &mine, left(&pending))
            .await
        {
            Ok(true) => {
                pending.cookie = Some(mine);
                if keep(&pages, &client, &key, &pending).await.is_err() {
                    return refused("The sign-in could not be kept: call the tool again.");
                }
            }
            Ok(false) => {
                let bound = pages.store.read(&bound_key(&digest(id))).await;
                if !matches!(bound, Ok(Some(bound)) if bound == mine) {
                    return elsewhere();
                }
            }
            Err(err) => return unreachable(err),
        },
    }
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    if let Ok(location) = HeaderValue::from_str(&pending.authorize) {
        headers.insert(header::LOCATION, location);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

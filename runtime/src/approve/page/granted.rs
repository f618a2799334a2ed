//! The approvals remembered, on the approvals page: who, which tool, which arguments, until
//! when, each with a Revoke button (`POST /revoke`, with the page's token and form value).

use std::sync::Arc;

use axum::extract::{Form, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::look::escape;
use super::{Shared, checked};

#[derive(Deserialize)]
pub(super) struct Revoked {
    /// The grant's id ([`Granted::id`](crate::approve::Granted::id)).
    grant: String,
    csrf: String,
}

/// The section of the page that lists the remembered approvals (none without the server's
/// grants).
pub(super) async fn section(shared: &Shared, csrf: &str) -> String {
    let Some(grants) = shared.grants.get() else {
        return String::new();
    };
    let now_ms = crate::task::now_ms();
    let mut rows = String::new();
    for granted in grants.list().await {
        let arguments = if granted.arguments.is_empty() {
            "every call".to_owned()
        } else {
            let mut text = Vec::new();
            let values = serde_json::Value::Object(granted.arguments.clone());
            crate::tool::canonical::write(&values, &mut text);
            format!("calls with {}", String::from_utf8_lossy(&text))
        };
        let session = if granted.session {
            ", in its session"
        } else {
            ""
        };
        rows.push_str(&format!(
            "<li><p><b>{tool}</b> for <i>{caller}</i>: {arguments}{session}, for {left} s more</p>\
             <form method=\"post\" action=\"/revoke\">\
             <input type=\"hidden\" name=\"grant\" value=\"{id}\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
             <button name=\"revoke\" value=\"revoke\">Revoke</button></form></li>",
            tool = escape(&granted.tool),
            caller = escape(&granted.caller),
            arguments = escape(&arguments),
            left = granted.expires_ms.saturating_sub(now_ms) / 1000,
            id = escape(&granted.id),
        ));
    }
    if rows.is_empty() {
        rows.push_str("<li>No approval is remembered.</li>");
    }
    format!("<h2>Remembered approvals</h2><ul>{rows}</ul>")
}

/// `POST /revoke`: forgets a remembered approval, on every replica that shares the store.
pub(super) async fn revoke(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Form(revoked): Form<Revoked>,
) -> Response {
    if let Some(refused) = checked(&shared, &headers, &revoked.csrf) {
        return refused;
    }
    let Some(grants) = shared.grants.get() else {
        return (
            StatusCode::NOT_FOUND,
            "this page lists no remembered approvals",
        )
            .into_response();
    };
    if !grants.revoke_id(&revoked.grant).await {
        return (StatusCode::GONE, "that approval is no longer remembered").into_response();
    }
    tracing::info!(grant = %revoked.grant, "a remembered approval was revoked on the approvals page");
    Redirect::to("/").into_response()
}

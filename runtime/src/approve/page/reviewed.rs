//! The changes to review, on the approvals page: each with what changed, field by field
//! (before and now), the operator's name, and Approve and Reject (`POST /review`, with the
//! page's token and form value); decided by the program's [`Reviews`](crate::approve::Reviews).

use std::sync::Arc;

use axum::extract::{Form, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::look::escape;
use super::{Shared, checked};

#[derive(Deserialize)]
pub(super) struct Reviewed {
    id: String,
    decision: String,
    /// Who decides: named in the log.
    by: String,
    csrf: String,
}

/// The section of the page that lists the changes to review (none without the program's
/// reviews), and whether one waits (the page then does not reload itself: the operator is
/// typing a name).
pub(super) fn section(shared: &Shared, csrf: &str) -> (String, bool) {
    let Some(reviews) = shared.reviews.get() else {
        return (String::new(), false);
    };
    let mut rows = String::new();
    for review in reviews.pending() {
        let mut changes = String::new();
        for change in &review.changes {
            changes.push_str(&format!(
                "<tr><th>{field}</th><td class=\"before\"><pre>{before}</pre></td>\
                 <td class=\"after\"><pre>{after}</pre></td></tr>",
                field = escape(&change.field),
                before = escape(&change.before),
                after = escape(&change.after),
            ));
        }
        rows.push_str(&format!(
            "<li class=\"review\"><p><b>{title}</b></p>\
             <table><tr><th></th><th>reviewed</th><th>now</th></tr>{changes}</table>\
             <form method=\"post\" action=\"/review\">\
             <input type=\"hidden\" name=\"id\" value=\"{id}\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
             <input name=\"by\" placeholder=\"your name\" required> \
             <button name=\"decision\" value=\"approve\">Approve</button> \
             <button name=\"decision\" value=\"deny\">Reject</button></form></li>",
            title = escape(&review.title),
            id = escape(&review.id),
        ));
    }
    let waiting = !rows.is_empty();
    if !waiting {
        rows.push_str("<li>No change is waiting for review.</li>");
    }
    (
        format!("<h2>Changes to review</h2><ul>{rows}</ul>"),
        waiting,
    )
}

/// `POST /review`: approves or rejects a change, in the operator's name.
pub(super) async fn review(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Form(reviewed): Form<Reviewed>,
) -> Response {
    if let Some(refused) = checked(&shared, &headers, &reviewed.csrf) {
        return refused;
    }
    let Some(reviews) = shared.reviews.get() else {
        return (
            StatusCode::NOT_FOUND,
            "this page lists no changes to review",
        )
            .into_response();
    };
    let approve = match reviewed.decision.as_str() {
        "approve" => true,
        "deny" => false,
        _ => return (StatusCode::BAD_REQUEST, "decide approve or deny").into_response(),
    };
    let by = reviewed.by.trim();
    if by.is_empty() {
        return (
            StatusCode::BAD_REQUEST,
            "give your name: the decision is logged with it",
        )
            .into_response();
    }
    match reviews.decide(&reviewed.id, approve, by) {
        Ok(done) => {
            tracing::info!(change = %reviewed.id, approved = approve, by, "{done}");
            Redirect::to("/").into_response()
        }
        Err(why) => (StatusCode::CONFLICT, why).into_response(),
    }
}

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

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    use crate::approve::{Page, Review, Reviews};

    /// One change, until it is decided.
    struct One(Mutex<bool>);

    impl Reviews for One {
        fn pending(&self) -> Vec<Review> {
            match *self.0.lock().unwrap() {
                true => Vec::new(),
                false => vec![Review::new("t@1", "t changed").change("title", "A", "B")],
            }
        }
        fn decide(&self, _: &str, _: bool, _: &str) -> Result<String, String> {
            *self.0.lock().unwrap() = true;
            Ok("decided".into())
        }
    }

    async fn shown(page: &Page) -> String {
        let request =
            Request::get("/").header("authorization", "Bearer a-long-random-operator-token");
        let response = page
            .router()
            .oneshot(request.body(Body::empty()).unwrap())
            .await
            .unwrap();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        String::from_utf8_lossy(&body).into_owned()
    }

    #[tokio::test]
    async fn the_page_does_not_reload_itself_while_a_change_waits_for_a_name() {
        let one = Arc::new(One(Mutex::new(false)));
        let page = Page::new("a-long-random-operator-token")
            .unwrap()
            .reviews(one.clone());
        let waiting = shown(&page).await;
        assert!(
            waiting.contains("t changed") && waiting.contains("name=\"by\""),
            "{waiting}"
        );
        assert!(!waiting.contains("http-equiv=\"refresh\""), "{waiting}");
        one.decide("t@1", true, "ada").unwrap();
        let after = shown(&page).await;
        assert!(after.contains("No change is waiting"), "{after}");
        assert!(after.contains("http-equiv=\"refresh\""), "{after}");
    }
}

//! An approval service to test a [`Webhook`](crate::approve::Webhook) approver against
//! (features `testing`, `webhook` and `http`).

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::approve::{Decision, Remember, SIGNATURE_HEADER, signature, unix_now, verified};

/// How the service decides a request: `Some` decision, answered signed, or `None`, never
/// answered (the approver's timeout then denies the call).
type Decide = dyn Fn(&Value) -> Option<Decision> + Send + Sync;

/// An approval service on loopback that plays the other end of a
/// [`Webhook`](crate::approve::Webhook): it verifies each request's signature with the
/// shared secret (a request it cannot verify gets 401), keeps it, and answers with the
/// decision `decide` makes of it, signed the same way. Stopped when dropped.
///
/// ```
/// use toolsmith::approve::{Decision, Webhook};
/// use toolsmith::testing::{ApprovalService, Client};
/// use toolsmith::{Registry, Server, server::Confirm, tool};
///
/// /// Delete a draft.
/// #[tool(destructive, idempotent, closed_world)]
/// fn remove_draft(draft: String) -> String {
///     format!("deleted {draft}")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let secret = [7u8; 32];
/// let service = ApprovalService::start(&secret, |request| match request["arguments"]["draft"].as_str() {
///     Some("tmp") => Some(Decision::approve()),
///     _ => Some(Decision::deny("only temporary drafts")),
/// })
/// .await
/// .unwrap();
/// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
///     .confirm(Confirm::Destructive)
///     .approver(Webhook::new(service.url(), secret).unwrap());
/// let agent = Client::connect_unattended(server).await.unwrap();
/// let ran = agent.call("remove_draft", serde_json::json!({"draft": "tmp"})).await.unwrap();
/// assert_eq!(ran.text(), "deleted tmp");
/// let err = agent.call("remove_draft", serde_json::json!({"draft": "thesis"})).await.unwrap_err();
/// assert!(err.message().contains("only temporary drafts"), "{err}");
/// assert_eq!(service.heard()[0]["tool"], "remove_draft");
/// # }
/// ```
pub struct ApprovalService {
    url: String,
    secret: Vec<u8>,
    heard: Arc<Mutex<Vec<Value>>>,
    _stop: DropGuard,
}

struct Shared {
    secret: Vec<u8>,
    /// `None`: every request is answered `202 Accepted`, its decision sent later.
    decide: Option<Box<Decide>>,
    heard: Arc<Mutex<Vec<Value>>>,
}

impl ApprovalService {
    /// Starts the service on `127.0.0.1`, verifying with `secret` and deciding with
    /// `decide`.
    pub async fn start(
        secret: &[u8],
        decide: impl Fn(&Value) -> Option<Decision> + Send + Sync + 'static,
    ) -> std::io::Result<ApprovalService> {
        Self::serve(secret, Some(Box::new(decide))).await
    }

    /// Starts a service that answers every request `202 Accepted` and decides later, when the
    /// test says so ([`decide_later`](ApprovalService::decide_later)): a webhook with
    /// [`callbacks`](crate::approve::Webhook::callbacks) then waits for the decision there.
    pub async fn deciding_later(secret: &[u8]) -> std::io::Result<ApprovalService> {
        Self::serve(secret, None).await
    }

    async fn serve(secret: &[u8], decide: Option<Box<Decide>>) -> std::io::Result<ApprovalService> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/approve", listener.local_addr()?);
        let heard = Arc::new(Mutex::new(Vec::new()));
        let shared = Arc::new(Shared {
            secret: secret.to_vec(),
            decide,
            heard: heard.clone(),
        });
        let app = axum::Router::new()
            .route("/approve", axum::routing::post(answer))
            .with_state(shared);
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        tokio::spawn(async move {
            let serving =
                axum::serve(listener, app).with_graceful_shutdown(stopped.cancelled_owned());
            if let Err(err) = serving.await {
                tracing::warn!(%err, "the test approval service stopped");
            }
        });
        Ok(ApprovalService {
            url,
            secret: secret.to_vec(),
            heard,
            _stop: stop.drop_guard(),
        })
    }

    /// Where the service takes requests: the URL to give the webhook.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends `decision` on the approval `request` asked for, signed, to `to` (or the
    /// request's own `callback`): the HTTP status the server's callback route answered
    /// (`204` taken by the replica whose call waits, `202` handed over through the store).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use toolsmith::approve::Decision;
    /// let service = toolsmith::testing::ApprovalService::deciding_later(&[7u8; 32]).await.unwrap();
    /// let request = serde_json::json!({"id": "a1", "callback": null});
    /// let sent = service.decide_later(&request, Decision::approve(), None).await;
    /// assert!(sent.unwrap_err().contains("no callback"));
    /// # }
    /// ```
    pub async fn decide_later(
        &self,
        request: &Value,
        decision: Decision,
        to: Option<&str>,
    ) -> Result<u16, String> {
        let to = match to {
            Some(to) => to.to_owned(),
            None => request["callback"]
                .as_str()
                .ok_or("the request names no callback: give one")?
                .to_owned(),
        };
        let (body, signed) = signed_reply(&self.secret, &request["id"], decision);
        crate::tls::install_crypto_provider();
        let sent = reqwest::Client::new()
            .post(to)
            .header(axum::http::header::CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, signed)
            .body(body)
            .send()
            .await
            .map_err(|err| format!("the decision could not be sent: {err}"))?;
        Ok(sent.status().as_u16())
    }

    /// Every verified request so far, in order.
    pub fn heard(&self) -> Vec<Value> {
        self.heard.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

async fn answer(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let header = headers
        .get(SIGNATURE_HEADER)
        .and_then(|value| value.to_str().ok());
    if !verified(&shared.secret, header, &body, unix_now()) {
        return (
            StatusCode::UNAUTHORIZED,
            "the request is not signed with the shared secret",
        )
            .into_response();
    }
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "the request is not JSON").into_response();
    };
    shared
        .heard
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(request.clone());
    let Some(decide) = &shared.decide else {
        return StatusCode::ACCEPTED.into_response();
    };
    let Some(decision) = decide(&request) else {
        // Never answered: the webhook's timeout decides.
        std::future::pending::<()>().await;
        unreachable!("a pending future never completes");
    };
    let (body, signed) = signed_reply(&shared.secret, &request["id"], decision);
    (
        [
            (
                axum::http::header::CONTENT_TYPE,
                "application/json".to_owned(),
            ),
            (
                axum::http::HeaderName::from_static(SIGNATURE_HEADER),
                signed,
            ),
        ],
        body,
    )
        .into_response()
}

/// The answer giving `decision` on approval `id`, and its signature header.
fn signed_reply(secret: &[u8], id: &Value, decision: Decision) -> (String, String) {
    let mut reply = json!({ "id": id });
    match decision {
        Decision::Approve(remember) => {
            reply["decision"] = json!("approve");
            match remember {
                Remember::For(ttl) => reply["remember_secs"] = json!(ttl.as_secs()),
                Remember::Session => reply["remember"] = json!("session"),
                Remember::Once => {}
            }
        }
        Decision::Deny(reason) => {
            reply["decision"] = json!("deny");
            reply["reason"] = json!(reason);
        }
        Decision::Pass => reply["decision"] = json!("pass"),
    }
    let body = reply.to_string();
    let now = unix_now();
    let signed = format!("t={now},v1={}", signature(secret, now, body.as_bytes()));
    (body, signed)
}

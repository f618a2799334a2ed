//! Decisions that come back later: an approval service that answers `202 Accepted` posts its
//! signed decision to the server's callback route when it has one (a person decided in a
//! chat, a dashboard). Any replica takes it: the replica whose call waits gets it at once; any
//! other hands it over through the shared task store, where the waiting replica finds it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::task::TaskStore;

/// How often a waiting call looks in the shared store for a decision handed over.
const POLL: Duration = Duration::from_millis(200);

/// The callbacks of one webhook (shared by its clones).
pub(super) struct Callbacks {
    /// Where the approval service posts decisions (sent in each request as `callback`).
    pub(super) url: String,
    waiting: Mutex<HashMap<String, oneshot::Sender<String>>>,
    /// The store decisions are handed over through, between replicas.
    store: OnceLock<Arc<dyn TaskStore>>,
}

/// Where a decision that came by callback went.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(super) enum Delivered {
    /// To the call that waits in this process.
    Here,
    /// Into the shared store, for the replica whose call waits.
    HandedOver,
    /// Nowhere: no call waits here for it, and there is no store to hand it over through.
    Nowhere,
}

impl Callbacks {
    pub(super) fn new(url: String) -> Callbacks {
        Callbacks {
            url,
            waiting: Mutex::default(),
            store: OnceLock::new(),
        }
    }

    /// Hands decisions over through `store` (the first store given stays).
    pub(super) fn share(&self, store: Arc<dyn TaskStore>) {
        let _ = self.store.set(store);
    }

    /// The call asking approval `id` waits for its decision from now on.
    pub(super) fn wait(self: &Arc<Self>, id: &str) -> Waiting {
        let (sender, decided) = oneshot::channel();
        self.lock().insert(id.to_owned(), sender);
        Waiting {
            callbacks: self.clone(),
            id: id.to_owned(),
            decided,
        }
    }

    /// `message`, a verified decision about approval `id`: to the call waiting here, or
    /// handed over through the store (kept for `ttl`).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(super) async fn deliver(&self, id: &str, message: String, ttl: Duration) -> Delivered {
        let waiting = self.lock().remove(id);
        if let Some(sender) = waiting
            && sender.send(message.clone()).is_ok()
        {
            return Delivered::Here;
        }
        match self.store.get() {
            Some(store) => match store.hand_over(&key(id), &message, ttl).await {
                Ok(true) => Delivered::HandedOver,
                Ok(false) => Delivered::Nowhere,
                Err(err) => {
                    tracing::warn!(%err, "a decision could not be handed over through the task store");
                    Delivered::Nowhere
                }
            },
            None => Delivered::Nowhere,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<String>>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A call waiting for the decision on its approval; no longer waiting once dropped.
pub(super) struct Waiting {
    callbacks: Arc<Callbacks>,
    id: String,
    decided: oneshot::Receiver<String>,
}

impl Waiting {
    /// The decision's message, once it came (here, or through the store), or why none came
    /// by `deadline`.
    pub(super) async fn decided(mut self, deadline: Instant) -> Result<String, String> {
        let store = self.callbacks.store.get().cloned();
        let mut poll = tokio::time::interval(POLL);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                got = &mut self.decided => {
                    return got.map_err(|_| "the approval's callback was lost".to_owned());
                }
                _ = poll.tick(), if store.is_some() => {
                    let store = store.as_ref().expect("polled only with a store");
                    match store.take_handed(&key(&self.id)).await {
                        Ok(Some(message)) => return Ok(message),
                        Ok(None) => {}
                        Err(err) => {
                            return Err(format!("the task store could not be asked for the decision ({err})"));
                        }
                    }
                }
                _ = tokio::time::sleep_until(deadline) => {
                    return Err("the approval service did not decide in time".to_owned());
                }
            }
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.callbacks.lock().remove(&self.id);
    }
}

/// The store's key of the decision on approval `id`.
fn key(id: &str) -> String {
    format!("approval:{id}")
}

#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
impl super::Webhook {
    /// The route an approval service posts decisions to (`POST /`), to serve at the URL
    /// given to [`callbacks`](super::Webhook::callbacks), on a listener of one's own or
    /// nested in a router (`serve --approve webhook=URL` with
    /// `TOOLSMITH_APPROVE_CALLBACK_ADDR`). A decision must be signed with the shared secret
    /// (else 401); it goes to the call that waits here (`204`), or through the shared store
    /// to the replica whose call waits (`202`); `404` when no call waits here and there is no
    /// store to hand it over through. Empty without `callbacks`.
    ///
    /// ```
    /// use std::time::{SystemTime, UNIX_EPOCH};
    /// use axum::{body::Body, http::Request};
    /// use toolsmith::approve::{SIGNATURE_HEADER, Webhook, signature};
    /// use toolsmith::layer::tower::ServiceExt;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let secret = [7u8; 32];
    /// let hook = Webhook::new("https://approvals.example/ask", secret)
    ///     .unwrap()
    ///     .callbacks("https://mcp.example.com/approvals/decided");
    /// let app = axum::Router::new().nest("/approvals/decided", hook.callback_router());
    ///
    /// let decision = r#"{"id":"a1","decision":"approve"}"#;
    /// let unsigned = Request::post("/approvals/decided").body(Body::from(decision)).unwrap();
    /// assert_eq!(app.clone().oneshot(unsigned).await.unwrap().status(), 401);
    /// let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    /// let signed = format!("t={now},v1={}", signature(&secret, now, decision.as_bytes()));
    /// let posted = Request::post("/approvals/decided").header(SIGNATURE_HEADER, signed);
    /// let answer = app.oneshot(posted.body(Body::from(decision)).unwrap()).await.unwrap();
    /// assert_eq!(answer.status(), 404, "no call waits for approval a1");
    /// # }
    /// ```
    pub fn callback_router(&self) -> axum::Router {
        use axum::routing::post;
        let Some(callbacks) = self.callbacks.clone() else {
            return axum::Router::new();
        };
        let taking = Arc::new(Taking {
            callbacks,
            secret: self.secret.clone(),
            ttl: self.timeout,
        });
        axum::Router::new()
            .route("/", post(decided))
            .with_state(taking)
    }

    /// Serves [`callback_router`](super::Webhook::callback_router) on `addr`
    /// (`127.0.0.1:8091`) until the future is dropped.
    pub async fn serve_callbacks(self, addr: impl Into<String>) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr.into()).await?;
        tracing::info!(addr = %listener.local_addr()?, "approval callbacks listening");
        axum::serve(listener, self.callback_router()).await
    }
}

/// What the callback route checks and delivers with.
#[cfg(feature = "http")]
struct Taking {
    callbacks: Arc<Callbacks>,
    secret: Vec<u8>,
    /// How long a decision handed over is kept: no call waits longer.
    ttl: Duration,
}

#[cfg(feature = "http")]
async fn decided(
    axum::extract::State(taking): axum::extract::State<Arc<Taking>>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> axum::response::Response {
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    let header = headers
        .get(super::SIGNATURE_HEADER)
        .and_then(|value| value.to_str().ok());
    if !super::verified(&taking.secret, header, &body, super::unix_now()) {
        return (
            StatusCode::UNAUTHORIZED,
            "the decision is not signed with the shared secret (or not now)",
        )
            .into_response();
    }
    let Ok(message) = String::from_utf8(body.to_vec()) else {
        return (StatusCode::BAD_REQUEST, "the decision is not UTF-8").into_response();
    };
    let id = serde_json::from_str::<serde_json::Value>(&message)
        .ok()
        .and_then(|decision| decision.get("id")?.as_str().map(str::to_owned));
    let Some(id) = id else {
        return (
            StatusCode::BAD_REQUEST,
            "the decision names no approval `id`",
        )
            .into_response();
    };
    match taking.callbacks.deliver(&id, message, taking.ttl).await {
        Delivered::Here => StatusCode::NO_CONTENT.into_response(),
        Delivered::HandedOver => StatusCode::ACCEPTED.into_response(),
        Delivered::Nowhere => {
            (StatusCode::NOT_FOUND, "no call waits for that approval").into_response()
        }
    }
}

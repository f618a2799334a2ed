//! An approver that asks a service over HTTP: a signed approval request POSTed to a URL, and
//! the signed decision in its answer.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Approval, Approver, Deciding, Decision, Remember};
use crate::task::TaskStore;

mod callback;
mod sign;

use callback::Callbacks;
use sign::hex;
pub use sign::signature;
pub(crate) use sign::{unix_now, verified};

/// The header that carries a signature: `t=UNIX_SECONDS,v1=HEX`.
pub const SIGNATURE_HEADER: &str = "x-toolsmith-signature";

/// How far a signed answer's time may be from this server's.
const SKEW: u64 = 300;

/// The most of an answer read.
const MAX_ANSWER: usize = 64 * 1024;

/// Asks an approval service (a chat bot, a dashboard) over HTTP, and waits for its decision.
///
/// **The request.** `POST URL` with a JSON body:
/// `{"id", "tool", "hints": {"readOnly", "destructive", "idempotent", "openWorld"}, "tags",
/// "question", "arguments", "caller": {"subject", "identity"}, "expires_at", "callback"}`
/// (`id`: this approval's, random; `expires_at`: Unix seconds after which the answer is not
/// waited for; `callback`: where a decision may be posted later, or `null`), and the header
/// `X-Toolsmith-Signature: t=UNIX_SECONDS,v1=HEX`.
///
/// **The answer**, in the response (status 200): `{"id": "<the request's>", "decision":
/// "approve" | "deny" | "pass", "reason": "…", "remember_secs": N}` (`reason` and
/// `remember_secs` optional; `"remember": "session"` instead of `remember_secs` remembers the
/// approval for the caller's session), signed the same way in the same header. `N` is a
/// whole number of seconds from 0 (this call only) to 30 days: any other `remember_secs`
/// (`-1`, `1.5`, `1e30`) or `remember` denies the call, and the server logs a warning. Or, when the
/// request names a `callback` ([`callbacks`](Webhook::callbacks)): `202 Accepted` at once, and
/// the same signed decision `POST`ed to the callback URL later, within `expires_at`.
///
/// **The signature.** `HEX` is the lowercase hex of HMAC-SHA256 with the shared secret over
/// `UNIX_SECONDS`, a `.`, and the body's bytes ([`signature`]); a signature more than 5
/// minutes from the receiver's clock is refused. An answer that is unsigned, signed with
/// another secret, late, or about another `id` denies the call, and so does a service that
/// does not answer in time (the approver's timeout, and the call's own): the call never runs
/// on a decision that cannot be trusted.
///
/// ```
/// use toolsmith::approve::{Approval, Approver, Decision, Webhook};
/// use toolsmith::testing::ApprovalService;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let secret = [7u8; 32];
/// // An approval service on loopback that denies every deletion.
/// let service = ApprovalService::start(&secret, |request| {
///     Some(match request["tool"].as_str() {
///         Some("delete_note") => Decision::deny("notes are kept this quarter"),
///         _ => Decision::approve(),
///     })
/// })
/// .await
/// .unwrap();
/// let hook = Webhook::new(service.url(), secret).unwrap();
/// let delete = Approval::new("delete_note", toolsmith::Hints::DESTRUCTIVE);
/// assert_eq!(hook.decide(&delete).await, Decision::deny("notes are kept this quarter"));
///
/// // Signed with another secret, its answers are not trusted: the call is denied.
/// let stranger = Webhook::new(service.url(), [8u8; 32]).unwrap();
/// let rename = Approval::new("rename_note", toolsmith::Hints::ADDITIVE);
/// assert!(matches!(stranger.decide(&rename).await, Decision::Deny(_)));
/// assert!(Webhook::new("https://approvals.example/toolsmith", *b"short").is_err());
/// # }
/// ```
#[derive(Clone)]
pub struct Webhook {
    url: String,
    secret: Vec<u8>,
    client: reqwest::Client,
    timeout: Duration,
    /// Decisions that come back later, by a callback (when the server takes them).
    callbacks: Option<Arc<Callbacks>>,
}

/// Its URL: never its secret.
impl std::fmt::Debug for Webhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Webhook")
            .field("url", &self.url)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Webhook {
    /// The service at `url`, sharing `secret` (at least 32 bytes) with this server. Waits at
    /// most 60 s for a decision (and never past the call's own timeout).
    pub fn new(url: impl Into<String>, secret: impl Into<Vec<u8>>) -> Result<Webhook, String> {
        let secret = secret.into();
        if secret.len() < 32 {
            return Err(format!(
                "the webhook's secret is {} bytes: give at least 32 random bytes",
                secret.len()
            ));
        }
        let url = url.into();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!("the webhook's URL {url:?} is not an http(s) URL"));
        }
        crate::tls::install_crypto_provider();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|err| format!("the webhook's HTTP client: {err}"))?;
        Ok(Webhook {
            url,
            secret,
            client,
            timeout: Duration::from_secs(60),
            callbacks: None,
        })
    }

    /// Takes decisions by callback too: each request names `url` (`"callback"`), where the
    /// approval service may post its signed decision later (`{"id", "decision", …}`, signed
    /// as an answer is) after answering `202 Accepted`, within the timeout. Serve
    /// [`callback_router`](Webhook::callback_router) at `url`; behind a load balancer, any
    /// replica may take a decision when they share a task store
    /// ([`callback_store`](Webhook::callback_store)).
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::approve::{Approval, Approver, Decision, Webhook};
    /// use toolsmith::testing::ApprovalService;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// // A service that answers 202 Accepted, to decide later.
    /// let service = ApprovalService::deciding_later(&[7u8; 32]).await.unwrap();
    /// let hook = Webhook::new(service.url(), [7u8; 32])
    ///     .unwrap()
    ///     .callbacks("https://mcp.example.com/approvals/decided")
    ///     .timeout(Duration::from_millis(200));
    /// let delete = Approval::new("delete_note", toolsmith::Hints::DESTRUCTIVE);
    /// let undecided = hook.decide(&delete).await;
    /// assert!(matches!(undecided, Decision::Deny(_)), "no decision came within the timeout");
    /// assert_eq!(service.heard()[0]["callback"], "https://mcp.example.com/approvals/decided");
    /// # }
    /// ```
    pub fn callbacks(mut self, url: impl Into<String>) -> Webhook {
        self.callbacks = Some(Arc::new(Callbacks::new(url.into())));
        self
    }

    /// Hands a decision that came by callback to another replica than the one whose call
    /// waits through `store` (a [`RedisStore`](crate::task::RedisStore) every replica
    /// shares; a store that passes nothing between replicas, as the memory store, changes
    /// nothing). Without [`callbacks`](Webhook::callbacks), nothing to hand over.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use std::time::{Duration, SystemTime, UNIX_EPOCH};
    /// use axum::{body::Body, http::Request};
    /// use toolsmith::approve::{SIGNATURE_HEADER, Webhook, signature};
    /// use toolsmith::layer::tower::ServiceExt;
    /// use toolsmith::task::{MemoryStore, StoreFuture, TaskStore};
    /// # use toolsmith::task::{TaskEnd, TaskProgress, TaskRecord};
    ///
    /// /// A store the replicas share (as they share a Redis): it keeps what is handed over.
    /// #[derive(Default)]
    /// struct Shared(MemoryStore, Mutex<Vec<String>>);
    ///
    /// impl TaskStore for Shared {
    ///     fn hand_over<'a>(&'a self, _: &'a str, message: &'a str, _: Duration) -> StoreFuture<'a, bool> {
    ///         self.1.lock().unwrap().push(message.to_owned());
    ///         Box::pin(std::future::ready(Ok(true)))
    ///     }
    /// #   fn create<'a>(&'a self, task: &'a TaskRecord, lease: Duration) -> StoreFuture<'a, ()> {
    /// #       self.0.create(task, lease)
    /// #   }
    /// #   fn get<'a>(&'a self, id: &'a str, now: u64) -> StoreFuture<'a, Option<TaskRecord>> {
    /// #       self.0.get(id, now)
    /// #   }
    /// #   fn renew<'a>(&'a self, id: &'a str, lease: Duration) -> StoreFuture<'a, bool> {
    /// #       self.0.renew(id, lease)
    /// #   }
    /// #   fn progress<'a>(&'a self, id: &'a str, p: &'a TaskProgress, now: u64) -> StoreFuture<'a, ()> {
    /// #       self.0.progress(id, p, now)
    /// #   }
    /// #   fn finish<'a>(&'a self, id: &'a str, end: &'a TaskEnd) -> StoreFuture<'a, bool> {
    /// #       self.0.finish(id, end)
    /// #   }
    ///     // ... the rest as the memory store does.
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let (store, secret) = (Arc::new(Shared::default()), [7u8; 32]);
    /// let hook = Webhook::new("https://approvals.example/ask", secret)
    ///     .unwrap()
    ///     .callbacks("https://mcp.example.com/approvals/decided")
    ///     .callback_store(store.clone());
    /// // A decision about a call that waits on another replica, not this one.
    /// let decision = r#"{"id":"a1","decision":"approve"}"#;
    /// let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    /// let signed = format!("t={now},v1={}", signature(&secret, now, decision.as_bytes()));
    /// let posted = Request::post("/").header(SIGNATURE_HEADER, signed).body(Body::from(decision));
    /// let answer = hook.callback_router().oneshot(posted.unwrap()).await.unwrap();
    /// assert_eq!(answer.status(), 202, "handed over");
    /// assert_eq!(*store.1.lock().unwrap(), [decision]);
    /// # }
    /// ```
    pub fn callback_store(self, store: Arc<dyn TaskStore>) -> Webhook {
        if let Some(callbacks) = &self.callbacks {
            callbacks.share(store);
        }
        self
    }

    /// How long a decision is waited for (default 60 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::approve::{Approval, Approver, Decision, Webhook};
    /// use toolsmith::testing::ApprovalService;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// // A service that never answers.
    /// let service = ApprovalService::start(&[7u8; 32], |_| None).await.unwrap();
    /// let hook = Webhook::new(service.url(), [7u8; 32]).unwrap().timeout(Duration::from_millis(200));
    /// let delete = Approval::new("delete_note", toolsmith::Hints::DESTRUCTIVE);
    /// let Decision::Deny(why) = hook.decide(&delete).await else { panic!("not denied") };
    /// assert!(why.contains("did not answer"), "{why}");
    /// # }
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Webhook {
        self.timeout = timeout;
        self
    }

    async fn ask(&self, approval: &Approval) -> Result<Decision, String> {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).map_err(|err| format!("no randomness for an id: {err}"))?;
        let id = hex(&nonce);
        let hints = approval.hints();
        let now = unix_now();
        let body = json!({
            "id": id,
            "tool": approval.tool(),
            "hints": {
                "readOnly": hints.read_only,
                "destructive": hints.destructive,
                "idempotent": hints.idempotent,
                "openWorld": hints.open_world,
            },
            "tags": approval.tags(),
            "question": approval.question(),
            "arguments": approval.arguments(),
            "caller": {
                "subject": approval.caller().subject(),
                "identity": approval.caller().identity(),
            },
            "expires_at": now + self.timeout.as_secs(),
            "callback": self.callbacks.as_ref().map(|callbacks| callbacks.url.as_str()),
        });
        // Waiting before the request leaves: a callback may come before its answer.
        let waiting = self.callbacks.as_ref().map(|callbacks| callbacks.wait(&id));
        let body = serde_json::to_vec(&body).map_err(|err| err.to_string())?;
        let signed = format!("t={now},v1={}", signature(&self.secret, now, &body));
        let mut answer = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header(SIGNATURE_HEADER, signed)
            .body(body)
            .timeout(self.timeout)
            .send()
            .await
            .map_err(|err| format!("the approval service did not answer ({})", said(&err)))?;
        let status = answer.status();
        if status == reqwest::StatusCode::ACCEPTED {
            let Some(waiting) = waiting else {
                return Err(
                    "the approval service will decide by callback, and this server takes none"
                        .into(),
                );
            };
            let message = waiting.decided(deadline).await?;
            let answer: Value = serde_json::from_str(&message)
                .map_err(|err| format!("the approval service's callback is not JSON ({err})"))?;
            return decision_of(&answer, &id);
        }
        if !status.is_success() {
            return Err(format!("the approval service answered HTTP {status}"));
        }
        let header = answer
            .headers()
            .get(SIGNATURE_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut bytes = Vec::new();
        while let Some(chunk) = answer
            .chunk()
            .await
            .map_err(|err| format!("the approval service's answer was cut off ({err})"))?
        {
            if bytes.len() + chunk.len() > MAX_ANSWER {
                return Err("the approval service's answer is longer than 64 KiB".into());
            }
            bytes.extend_from_slice(&chunk);
        }
        if !verified(&self.secret, header.as_deref(), &bytes, unix_now()) {
            return Err(
                "the approval service's answer is not signed with the shared secret (or not now)"
                    .into(),
            );
        }
        let answer: Value = serde_json::from_slice(&bytes)
            .map_err(|err| format!("the approval service's answer is not JSON ({err})"))?;
        decision_of(&answer, &id)
    }
}

/// The decision `answer` (a verified answer, or callback) gives on approval `id`.
fn decision_of(answer: &Value, id: &str) -> Result<Decision, String> {
    if answer.get("id").and_then(Value::as_str) != Some(id) {
        return Err("the approval service answered about another approval".into());
    }
    let reason = answer.get("reason").and_then(Value::as_str);
    match answer.get("decision").and_then(Value::as_str) {
        Some("approve") => remembered(answer).map(Decision::Approve),
        Some("deny") => Ok(Decision::deny(
            reason.unwrap_or("the approval service denied it"),
        )),
        Some("pass") => Ok(Decision::Pass),
        other => Err(format!(
            "the approval service's decision {other:?} is not approve, deny or pass"
        )),
    }
}

/// The longest an approval service's approval is remembered: 30 days.
const MAX_REMEMBER_SECS: u64 = 30 * 24 * 3600;

/// How long an approval in `answer` is remembered: `remember_secs` (a whole number of
/// seconds, 0 for this call only, at most [`MAX_REMEMBER_SECS`]), else `"remember":
/// "session"`, else this call only. Anything else (`-1`, `1.5`, `1e30`, `"forever"`) is an
/// error: the call is denied, and the server warns, rather than a malformed answer being
/// read as some other decision.
fn remembered(answer: &Value) -> Result<Remember, String> {
    let secs = match answer.get("remember_secs") {
        None | Some(Value::Null) => None,
        Some(given) => match crate::tool::canonical::normalized(given).as_u64() {
            Some(secs) if secs <= MAX_REMEMBER_SECS => Some(secs),
            _ => {
                return Err(format!(
                    "the approval service's remember_secs {given} is not a whole number of seconds from 0 to {MAX_REMEMBER_SECS}"
                ));
            }
        },
    };
    let session = match answer.get("remember") {
        None | Some(Value::Null) => false,
        Some(Value::String(said)) if said == "session" => true,
        Some(other) => {
            return Err(format!(
                "the approval service's remember {other} is not \"session\""
            ));
        }
    };
    Ok(match (secs, session) {
        (Some(secs), _) if secs > 0 => Remember::For(Duration::from_secs(secs)),
        (_, true) => Remember::Session,
        _ => Remember::Once,
    })
}

impl Approver for Webhook {
    fn decide<'a>(&'a self, approval: &'a Approval) -> Deciding<'a> {
        Box::pin(async move {
            self.ask(approval).await.unwrap_or_else(|why| {
                tracing::warn!(tool = approval.tool(), %why, "the approval webhook denied a call");
                Decision::Deny(why)
            })
        })
    }

    fn name(&self) -> &str {
        "webhook"
    }
}

/// An HTTP client's error with its causes (a refused connection, a timeout).
fn said(err: &dyn std::error::Error) -> String {
    let mut said = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        said.push_str(": ");
        said.push_str(&cause.to_string());
        source = cause.source();
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_remember_denies_the_call_saying_why() {
        let answer = |extra: Value| {
            let mut answer = json!({"id": "a", "decision": "approve"});
            answer
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            decision_of(&answer, "a")
        };
        let day = Remember::For(Duration::from_secs(86_400));
        assert_eq!(
            answer(json!({"remember_secs": 86_400})),
            Ok(Decision::Approve(day))
        );
        assert_eq!(
            answer(json!({"remember_secs": 86_400.0})),
            Ok(Decision::Approve(day))
        );
        assert_eq!(answer(json!({"remember_secs": 0})), Ok(Decision::approve()));
        assert_eq!(
            answer(json!({"remember_secs": null})),
            Ok(Decision::approve())
        );
        assert_eq!(
            answer(json!({"remember": "session"})),
            Ok(Decision::Approve(Remember::Session))
        );
        for bad in [
            json!({"remember_secs": -1}),
            json!({"remember_secs": 1e30}),
            json!({"remember_secs": 1.5}),
            json!({"remember_secs": "60"}),
            json!({"remember_secs": MAX_REMEMBER_SECS + 1}),
            json!({"remember": "forever"}),
        ] {
            let why = answer(bad.clone()).unwrap_err();
            assert!(why.contains("remember"), "{bad}: {why}");
        }
    }
}

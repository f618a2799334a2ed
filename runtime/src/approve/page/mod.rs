//! An approvals page: the confirmations waiting for a decision, served as HTML by a listener
//! of its own, approved or denied by an operator (from a phone, say); and the approvals
//! remembered, each with a Revoke button (`granted.rs`).

mod granted;
mod look;
mod reviewed;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use tokio::sync::oneshot;

use super::{Approval, Approver, Deciding, Decision, Grants, Remember};
use look::{STYLE, escape};

/// The cookie a browser keeps the page's token in, once it came with `?token=`.
const COOKIE: &str = "toolsmith_approvals";

/// The confirmations waiting for an operator, on a page of their own: each with its tool,
/// hints, question, caller and age, an Approve and a Deny button, and how long an approval
/// is remembered. Server-rendered HTML without JavaScript, refreshing itself every 5 s.
/// Given the server's [`Grants`] ([`grants`](Page::grants); `serve --approve page=ADDR` gives
/// them), it lists the approvals remembered too (caller, tool, arguments, expiry), each with
/// a Revoke button.
///
/// **Access.** Every request carries the page's token: `Authorization: Bearer TOKEN`, or,
/// for a browser, opened once as `/?token=TOKEN`, which keeps it in an HttpOnly,
/// `SameSite=Strict` cookie. The token is the page's own, never an MCP client's: the caller
/// whose call waits cannot approve it with the token that made it. Each form carries a value
/// derived from the token (checked on every decision), and the cookie is never sent by
/// another site: a page elsewhere cannot decide.
///
/// A call waits for a decision at most [`timeout`](Page::timeout) (default 5 minutes) and the
/// call's own timeout; undecided, it is denied.
///
/// ```
/// use axum::{body::Body, http::Request};
/// use toolsmith::approve::{Approval, Approver, Page};
/// use toolsmith::layer::tower::ServiceExt;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let page = Page::new("a-long-random-operator-token").unwrap();
/// // `Server::new().approver(page.clone())` puts its confirmations here; page.serve("127.0.0.1:8090")
/// // runs the page, or mount page.router() in an app.
/// let approval = Approval::new("delete_note", toolsmith::Hints::DESTRUCTIVE).with_question("Delete note 7?");
/// let _deciding = page.decide(&approval);
/// assert_eq!(page.waiting(), 1);
///
/// let operator = Request::get("/").header("authorization", "Bearer a-long-random-operator-token");
/// let shown = page.router().oneshot(operator.body(Body::empty()).unwrap()).await.unwrap();
/// let html = axum::body::to_bytes(shown.into_body(), usize::MAX).await.unwrap();
/// assert!(String::from_utf8_lossy(&html).contains("Delete note 7?"));
/// let stranger = page.router().oneshot(Request::get("/").body(Body::empty()).unwrap()).await.unwrap();
/// assert_eq!(stranger.status(), 401);
/// assert!(Page::new("short").is_err());
/// # }
/// ```
#[derive(Clone)]
pub struct Page {
    shared: Arc<Shared>,
    timeout: Duration,
}

struct Shared {
    token: String,
    /// The server's remembered approvals, listed and revoked here.
    grants: std::sync::OnceLock<Grants>,
    /// The program's changes to review (a gateway's changed tools), decided here.
    reviews: std::sync::OnceLock<Arc<dyn super::Reviews>>,
    waiting: Mutex<BTreeMap<u64, Waiting>>,
    next: Mutex<u64>,
}

struct Waiting {
    approval: Approval,
    since: Instant,
    answer: oneshot::Sender<Decision>,
}

/// Its timeout: never its token.
impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Page {
    /// A page that answers requests carrying `token` (at least 16 characters).
    pub fn new(token: impl Into<String>) -> Result<Page, String> {
        let token = token.into();
        if token.chars().count() < 16 {
            return Err(format!(
                "the approvals page's token is {} characters: give at least 16 random ones",
                token.chars().count()
            ));
        }
        Ok(Page {
            shared: Arc::new(Shared {
                token,
                grants: std::sync::OnceLock::new(),
                reviews: std::sync::OnceLock::new(),
                waiting: Mutex::default(),
                next: Mutex::new(0),
            }),
            timeout: Duration::from_secs(300),
        })
    }

    /// How long a call waits for a decision (default 5 minutes).
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::approve::{Approval, Approver, Decision, Page};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let page = Page::new("a-long-random-operator-token").unwrap().timeout(Duration::from_millis(20));
    /// // No operator decides.
    /// let decided = page.decide(&Approval::new("delete_note", toolsmith::Hints::DESTRUCTIVE)).await;
    /// assert_eq!(decided, Decision::deny("no one decided on the approvals page within 20ms"));
    /// assert_eq!(page.waiting(), 0);
    /// # }
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Page {
        self.timeout = timeout;
        self
    }

    /// Lists `grants` (the server's: [`Server::grants`](crate::Server::grants)) on the page,
    /// each with a Revoke button (the first given stays).
    ///
    /// ```
    /// use std::time::Duration;
    /// use axum::{body::Body, http::Request};
    /// use toolsmith::approve::{Grants, Page};
    /// use toolsmith::layer::tower::ServiceExt;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let grants = Grants::default();
    /// let alice = toolsmith::context::Caller::new("alice", ["notes:write"]);
    /// grants.grant(&alice, "delete_note", Duration::from_secs(3600));
    /// let page = Page::new("a-long-random-operator-token").unwrap().grants(grants);
    /// let operator = Request::get("/").header("authorization", "Bearer a-long-random-operator-token");
    /// let shown = page.router().oneshot(operator.body(Body::empty()).unwrap()).await.unwrap();
    /// let html = axum::body::to_bytes(shown.into_body(), usize::MAX).await.unwrap();
    /// let html = String::from_utf8_lossy(&html);
    /// assert!(html.contains("<b>delete_note</b> for <i>alice</i>"), "{html}");
    /// assert!(html.contains("action=\"/revoke\""), "{html}");
    /// # }
    /// ```
    pub fn grants(self, grants: Grants) -> Page {
        let _ = self.shared.grants.set(grants);
        self
    }

    /// Lists the program's changes to review (`reviews`), each decided here by a named
    /// operator (`serve --approve page=ADDR` gives it [`Server::reviews`](crate::Server::reviews)).
    pub fn reviews(self, reviews: Arc<dyn super::Reviews>) -> Page {
        let _ = self.shared.reviews.set(reviews);
        self
    }

    /// How many calls are waiting.
    ///
    /// ```
    /// let page = toolsmith::approve::Page::new("a-long-random-operator-token").unwrap();
    /// assert_eq!(page.waiting(), 0);
    /// ```
    pub fn waiting(&self) -> usize {
        lock(&self.shared.waiting).len()
    }

    /// The page's routes (`GET /`, `POST /decide`, `POST /revoke`, `POST /review`), to serve on a listener
    /// of one's own.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/", get(list))
            .route("/decide", post(decide))
            .route("/revoke", post(granted::revoke))
            .route("/review", post(reviewed::review))
            .with_state(self.shared.clone())
    }

    /// Serves the page on `addr` (`127.0.0.1:8090`) until the future is dropped.
    pub async fn serve(self, addr: impl Into<String>) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr.into()).await?;
        tracing::info!(addr = %listener.local_addr()?, "approvals page listening");
        axum::serve(listener, self.router()).await
    }
}

impl Approver for Page {
    fn decide<'a>(&'a self, approval: &'a Approval) -> Deciding<'a> {
        let (answer, decided) = oneshot::channel();
        let id = {
            let mut next = lock(&self.shared.next);
            *next += 1;
            *next
        };
        lock(&self.shared.waiting).insert(
            id,
            Waiting {
                approval: approval.clone(),
                since: Instant::now(),
                answer,
            },
        );
        let shared = self.shared.clone();
        let timeout = self.timeout;
        Box::pin(async move {
            // Gone from the page however the wait ends (a decision, the timeout, the call
            // given up).
            struct Leave(Arc<Shared>, u64);
            impl Drop for Leave {
                fn drop(&mut self) {
                    lock(&self.0.waiting).remove(&self.1);
                }
            }
            let _leave = Leave(shared, id);
            match tokio::time::timeout(timeout, decided).await {
                Ok(Ok(decision)) => decision,
                _ => Decision::deny(format!(
                    "no one decided on the approvals page within {timeout:?}"
                )),
            }
        })
    }

    fn name(&self) -> &str {
        "page"
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[derive(Deserialize)]
struct Login {
    token: Option<String>,
}

#[derive(Deserialize)]
struct Chosen {
    id: u64,
    decision: String,
    /// Seconds, or `session`.
    remember: Option<String>,
    csrf: String,
}

impl Shared {
    /// Whether the request carries the token (the header, or the cookie).
    fn admits(&self, headers: &HeaderMap) -> bool {
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let cookie = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .find_map(|c| {
                c.trim()
                    .strip_prefix(COOKIE)
                    .and_then(|c| c.strip_prefix('='))
            });
        [bearer, cookie]
            .into_iter()
            .flatten()
            .any(|given| same(given.as_bytes(), self.token.as_bytes()))
    }

    /// The value each form carries: derived from the token, so a page elsewhere cannot
    /// make it.
    fn csrf(&self) -> String {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(format!("toolsmith-approvals-form\0{}", self.token));
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Equal, compared in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn list(
    State(shared): State<Arc<Shared>>,
    Query(login): Query<Login>,
    headers: HeaderMap,
) -> Response {
    if let Some(token) = login.token {
        if !same(token.as_bytes(), shared.token.as_bytes()) {
            return denied();
        }
        let cookie = format!("{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/");
        return ([(header::SET_COOKIE, cookie)], Redirect::to("/")).into_response();
    }
    if !shared.admits(&headers) {
        return denied();
    }
    let csrf = shared.csrf();
    let remembered = granted::section(&shared, &csrf).await;
    let (reviewing, typing) = reviewed::section(&shared, &csrf);
    // It reloads itself every 5 s to show new calls, but not while a change waits for a
    // reviewer's name.
    let refresh = match typing {
        true => "",
        false => "<meta http-equiv=\"refresh\" content=\"5\">",
    };
    let mut rows = String::new();
    for (id, waiting) in lock(&shared.waiting).iter() {
        let approval = &waiting.approval;
        let hints = approval.hints();
        let class = if hints.read_only {
            "read-only"
        } else if hints.destructive {
            "destructive"
        } else {
            "additive"
        };
        rows.push_str(&format!(
            "<li><p><b>{tool}</b> ({class}{idempotent}) for <i>{caller}</i>, waiting {age} s</p>\
             <p>{question}</p>\
             <form method=\"post\" action=\"/decide\">\
             <input type=\"hidden\" name=\"id\" value=\"{id}\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
             <select name=\"remember\"><option value=\"0\">this call only</option>\
             <option value=\"session\">and its calls by this caller in this session</option>\
             <option value=\"3600\">and its calls by this caller for 1 h</option></select> \
             <button name=\"decision\" value=\"approve\">Approve</button> \
             <button name=\"decision\" value=\"deny\">Deny</button></form></li>",
            tool = escape(approval.tool()),
            idempotent = if hints.idempotent { ", idempotent" } else { "" },
            caller = escape(&super::shown(approval.caller())),
            age = waiting.since.elapsed().as_secs(),
            question = escape(approval.question()),
        ));
    }
    if rows.is_empty() {
        rows.push_str("<li>Nothing is waiting.</li>");
    }
    // Never framed: another site must not lay its own buttons over Approve.
    crate::html::page(
        StatusCode::OK,
        format!(
            "<!doctype html><html><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width\">\
             {refresh}<title>Approvals</title>{STYLE}</head>\
             <body><h1>Approvals</h1><ul>{rows}</ul>{reviewing}{remembered}</body></html>"
        ),
    )
}

async fn decide(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Form(chosen): Form<Chosen>,
) -> Response {
    if let Some(refused) = checked(&shared, &headers, &chosen.csrf) {
        return refused;
    }
    let remember = match chosen.remember.as_deref() {
        None | Some("" | "0") => Remember::Once,
        Some("session") => Remember::Session,
        Some(secs) => match secs.parse::<u64>() {
            Ok(secs) => Remember::For(Duration::from_secs(secs)),
            Err(_) => {
                return (StatusCode::BAD_REQUEST, "remember: seconds, or session").into_response();
            }
        },
    };
    let decision = match chosen.decision.as_str() {
        "approve" => Decision::Approve(remember),
        "deny" => Decision::deny("an operator denied it on the approvals page"),
        _ => return (StatusCode::BAD_REQUEST, "decide approve or deny").into_response(),
    };
    let Some(waiting) = lock(&shared.waiting).remove(&chosen.id) else {
        return (StatusCode::GONE, "that call is no longer waiting").into_response();
    };
    let _ = waiting.answer.send(decision);
    Redirect::to("/").into_response()
}

/// Whether the request carries the page's token, and its form the value derived from it: the
/// refusal that answers it otherwise.
fn checked(shared: &Shared, headers: &HeaderMap, csrf: &str) -> Option<Response> {
    if !shared.admits(headers) {
        return Some(denied());
    }
    if !same(csrf.as_bytes(), shared.csrf().as_bytes()) {
        let refused = (
            StatusCode::FORBIDDEN,
            "the form did not come from this page",
        );
        return Some(refused.into_response());
    }
    None
}

fn denied() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        "open this page as /?token=TOKEN (the approvals page's own token)",
    )
        .into_response()
}

//! Approvals beyond the client: who decides a confirmation besides the user at the client.
//!
//! A call that must be confirmed (its tool declares `confirm`, or the server's
//! [`Confirm`](crate::server::Confirm) policy covers its hints) is put to the server's [`Approver`]s
//! first, in the order they were added ([`Server::approver`](crate::Server::approver)): the
//! first that approves or denies decides; when every one passes, the user is asked at the
//! client, as without approvers. An approval may be remembered ([`Remember`]): the next
//! calls of the same tool by the same caller (with the same values of the arguments a rule
//! named, for a rule's approval) are approved without asking anyone, until the grant expires
//! or is revoked ([`Grants`]). A `deny` rule that matches a call refuses it before any
//! remembered approval is looked at.
//!
//! Built in: [`Rules`] (allow or deny by tool, tag, hint class, caller and argument patterns,
//! from a file: `serve --approve rules=FILE`), `Webhook` (feature `webhook`: a signed request
//! to an approval service, its signed decision in the answer: `serve --approve webhook=URL`),
//! `Page` (feature `http`: an approvals page for an operator, `serve --approve page=ADDR`),
//! and any function of an [`Approval`]:
//!
//! ```
//! use toolsmith::approve::{Approval, Decision};
//! use toolsmith::{Hints, context::Caller};
//!
//! /// The nightly job may delete; everyone else is asked.
//! fn nightly(approval: &Approval) -> Decision {
//!     match approval.caller().subject() {
//!         Some("nightly-job") => Decision::approve(),
//!         _ => Decision::Pass,
//!     }
//! }
//!
//! // Served as `Server::new().confirm(Confirm::Destructive).approver(nightly)`:
//! let job = Caller::new("nightly-job", ["tools:destructive"]);
//! let purge = Approval::new("purge_drafts", Hints::DESTRUCTIVE);
//! assert_eq!(nightly(&purge.clone().with_caller(job)), Decision::approve());
//! assert_eq!(nightly(&purge), Decision::Pass, "anyone else: the user is asked");
//! ```

mod approval;
mod grants;
#[cfg(feature = "http")]
mod page;
mod review;
mod rules;
#[cfg(feature = "webhook")]
mod webhook;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::JsonObject;

use crate::context::Caller;

pub use approval::Approval;
pub(crate) use grants::Scope;
pub use grants::{Granted, Grants};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use page::Page;
pub use review::{Change, Review, Reviews};
pub use rules::{Rules, RulesError};
#[cfg(feature = "webhook")]
#[cfg_attr(docsrs, doc(cfg(feature = "webhook")))]
pub use webhook::{SIGNATURE_HEADER, Webhook, signature};
/// What the test approval service (`testing::ApprovalService`) verifies and signs with.
#[cfg(all(feature = "webhook", feature = "http", feature = "testing"))]
pub(crate) use webhook::{unix_now, verified};

/// A decision being made, as an [`Approver`] awaits it.
pub type Deciding<'a> = Pin<Box<dyn Future<Output = Decision> + Send + 'a>>;

/// Decides the confirmation of a call, or passes it on to the next approver (and, after the
/// last, to the user at the client).
///
/// A function `Fn(&Approval) -> Decision` is one; an approver that waits (for a person, a
/// service) implements [`decide`](Approver::decide) with an `async` block.
///
/// ```
/// use toolsmith::approve::{Approval, Approver, Deciding, Decision};
/// use toolsmith::{Registry, Server, server::Confirm, testing::Client};
///
/// /// Denies every call while the store is being migrated.
/// struct Freeze;
///
/// impl Approver for Freeze {
///     fn decide<'a>(&'a self, _approval: &'a Approval) -> Deciding<'a> {
///         Box::pin(async { Decision::deny("the store is being migrated") })
///     }
/// }
///
/// /// Deletes every archived note.
/// #[toolsmith::tool(destructive, idempotent, closed_world)]
/// fn purge_frozen_archive() -> String {
///     "purged".into()
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
///     .confirm(Confirm::Destructive)
///     .approver(Freeze);
/// let client = Client::connect(server).await.unwrap();
/// let denied = client.call("purge_frozen_archive", serde_json::json!({})).await.unwrap_err();
/// assert!(denied.message().contains("the store is being migrated"), "{denied}");
/// # }
/// ```
pub trait Approver: Send + Sync + 'static {
    /// The decision on `approval`.
    fn decide<'a>(&'a self, approval: &'a Approval) -> Deciding<'a>;

    /// Who decided, as the log line, the call's span and the `approver` label of
    /// `toolsmith_approvals_total` name this approver: a word of the program's own, never
    /// taken from a request (`custom` unless said; the built-in ones say `rules`, `webhook`,
    /// `page`).
    ///
    /// ```
    /// use toolsmith::approve::{Approval, Approver, Deciding, Decision};
    ///
    /// struct Freeze;
    ///
    /// impl Approver for Freeze {
    ///     fn decide<'a>(&'a self, _approval: &'a Approval) -> Deciding<'a> {
    ///         Box::pin(async { Decision::deny("the store is being migrated") })
    ///     }
    ///
    ///     fn name(&self) -> &str {
    ///         "freeze"
    ///     }
    /// }
    ///
    /// assert_eq!(Freeze.name(), "freeze");
    /// let custom = |_: &Approval| Decision::Pass;
    /// assert_eq!(custom.name(), "custom");
    /// ```
    fn name(&self) -> &str {
        "custom"
    }

    /// A refusal that stands before any remembered approval: `Some(reason)` when this
    /// approver would deny `approval` whatever was remembered (a `deny` rule that matches
    /// it). Asked of every approver before a grant approves a call; `None` unless said.
    ///
    /// ```
    /// use toolsmith::approve::{Approval, Approver, Rules};
    ///
    /// let rules = Rules::from_toml("[[rule]]\ntools = [\"drop_*\"]\ndecision = \"deny\"\nreason = \"frozen\"\n").unwrap();
    /// let drop = Approval::new("drop_table", toolsmith::Hints::DESTRUCTIVE);
    /// assert_eq!(rules.vetoes(&drop).as_deref(), Some("frozen"));
    /// ```
    fn vetoes(&self, approval: &Approval) -> Option<String> {
        let _ = approval;
        None
    }

    /// The argument values an approval of `approval` this approver remembers is bound to
    /// (normalized: `1.0` is `1`): `None` (unless said) for every call of the tool by the
    /// caller. [`Rules`] bind an approval to the values of the arguments its rule names.
    ///
    /// ```
    /// use toolsmith::approve::{Approval, Approver, Decision};
    ///
    /// let anyone = |_: &Approval| Decision::approve();
    /// assert_eq!(anyone.binds(&Approval::new("t", toolsmith::Hints::DESTRUCTIVE)), None);
    /// ```
    fn binds(&self, approval: &Approval) -> Option<JsonObject> {
        let _ = approval;
        None
    }
}

/// A shared approver is one.
impl Approver for Arc<dyn Approver> {
    fn decide<'a>(&'a self, approval: &'a Approval) -> Deciding<'a> {
        (**self).decide(approval)
    }

    fn name(&self) -> &str {
        (**self).name()
    }

    fn vetoes(&self, approval: &Approval) -> Option<String> {
        (**self).vetoes(approval)
    }

    fn binds(&self, approval: &Approval) -> Option<JsonObject> {
        (**self).binds(approval)
    }
}

impl<F> Approver for F
where
    F: Fn(&Approval) -> Decision + Send + Sync + 'static,
{
    fn decide<'a>(&'a self, approval: &'a Approval) -> Deciding<'a> {
        let decision = self(approval);
        Box::pin(std::future::ready(decision))
    }
}

/// What an approver decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The call runs; remembered as [`Remember`] says.
    Approve(Remember),
    /// The call does not run; its error result gives the reason.
    Deny(String),
    /// Not this approver's to decide: the next one decides (after the last, the user).
    Pass,
}

impl Decision {
    /// Approves this call only.
    ///
    /// ```
    /// use toolsmith::approve::{Decision, Remember};
    /// assert_eq!(Decision::approve(), Decision::Approve(Remember::Once));
    /// ```
    pub fn approve() -> Decision {
        Decision::Approve(Remember::Once)
    }

    /// Denies the call, for `reason`.
    ///
    /// ```
    /// let no = toolsmith::approve::Decision::deny("outside office hours");
    /// assert_eq!(no, toolsmith::approve::Decision::Deny("outside office hours".into()));
    /// ```
    pub fn deny(reason: impl Into<String>) -> Decision {
        Decision::Deny(reason.into())
    }
}

/// How long an approval holds.
///
/// ```
/// use std::time::Duration;
/// use toolsmith::approve::{Decision, Remember};
///
/// // The same caller's calls of the same tool, for the next hour, without asking again.
/// let for_an_hour = Decision::Approve(Remember::For(Duration::from_secs(3600)));
/// assert_ne!(for_an_hour, Decision::approve());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remember {
    /// This call only (the default).
    Once,
    /// Every call of the same tool by the same caller, for this long (from the approval).
    For(Duration),
    /// Every call of the same tool by the same caller in the same session (a stdio
    /// connection, an HTTP session), until it ends (at most a day). A call outside any
    /// session (stateless HTTP, 2026-07-28 without a session) is approved once.
    Session,
}

/// The approvers of a server, in order, and the approvals they remembered: the step of the
/// call pipeline that decides a confirmation before the user is asked.
#[derive(Clone, Default)]
pub(crate) struct Approvals {
    pub(crate) chain: Vec<Arc<dyn Approver>>,
    /// The approvers that decide when the client cannot ask its user.
    pub(crate) instead: Vec<Arc<dyn Approver>>,
    pub(crate) grants: Grants,
    /// How long a user's "don't ask again" holds, when the confirmation form offers it.
    pub(crate) remember: Option<Duration>,
}

impl Approvals {
    /// Whether anything may decide besides the user: an approver, or a remembered grant.
    pub(crate) fn active(&self) -> bool {
        !self.chain.is_empty() || !self.instead.is_empty() || self.grants.may_hold()
    }

    /// The decision of the approvers that stand in for a client that cannot ask its user,
    /// and who made it.
    pub(crate) async fn decide_instead(&self, approval: &Approval) -> (Decision, &str) {
        decide_in(&self.instead, &self.grants, approval).await
    }

    /// The decision on `approval`: a live grant approves it, unless an approver vetoes it
    /// (a `deny` rule); else the first approver that does not pass decides (an approval it
    /// says to remember is granted); else `Pass`.
    pub(crate) async fn decide(&self, approval: &Approval) -> (Decision, &str) {
        let bindings: Vec<JsonObject> = self
            .chain
            .iter()
            .filter_map(|approver| approver.binds(approval))
            .collect();
        let caller = approval.caller();
        let granted = self
            .grants
            .covers(caller, approval.tool(), approval.session, &bindings)
            .await;
        if granted {
            // A deny rule stands before any remembered approval.
            for approver in &self.chain {
                if let Some(reason) = approver.vetoes(approval) {
                    return (Decision::Deny(reason), approver.name());
                }
            }
            return (Decision::approve(), GRANT);
        }
        decide_in(&self.chain, &self.grants, approval).await
    }

    /// Whether a grant held in this process may settle a call of `tool` by `caller` before
    /// anything else: no approver could veto it, and the grant covers every call.
    pub(crate) fn granted_here(&self, caller: &Caller, session: Option<u64>, tool: &str) -> bool {
        self.chain.is_empty() && self.grants.held_here(caller, session, tool)
    }
}

/// `caller` as a person reads it: `local user` (no token), the token's subject, else its
/// client (`azp`, `client_id`) and issuer, else the issuer alone.
pub(crate) fn shown(caller: &Caller) -> String {
    if caller.is_anonymous() {
        return "local user".to_owned();
    }
    let claim = |name| {
        caller
            .claim(name)
            .and_then(serde_json::Value::as_str)
            .filter(|v| !v.is_empty())
    };
    let issuer = claim("iss")
        .map(|iss| format!(" of {iss}"))
        .unwrap_or_default();
    if let Some(subject) = caller.subject().filter(|s| !s.is_empty()) {
        return subject.to_owned();
    }
    match claim("azp").or_else(|| claim("client_id")) {
        Some(client) => format!("client {client}{issuer}"),
        None => format!("a token without subject or client{issuer}"),
    }
}

/// What a panic said.
fn said(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no reason given".to_owned())
}

/// Who decided when a remembered grant approved a call.
pub(crate) const GRANT: &str = "grant";

/// The first decision of `chain` on `approval` (an approval it says to remember is granted)
/// and the name of the approver that made it, else `Pass`.
async fn decide_in<'a>(
    chain: &'a [Arc<dyn Approver>],
    grants: &Grants,
    approval: &Approval,
) -> (Decision, &'a str) {
    for approver in chain {
        let by = approver.name();
        // An approver that panics (making its decision, or in it) refuses the call, and
        // the server serves on.
        use std::panic::AssertUnwindSafe;
        let deciding = std::panic::catch_unwind(AssertUnwindSafe(|| approver.decide(approval)));
        let decided = match deciding {
            Ok(deciding) => futures::FutureExt::catch_unwind(AssertUnwindSafe(deciding)).await,
            Err(panic) => Err(panic),
        };
        let decided = match decided {
            Ok(decided) => decided,
            Err(panic) => {
                let reason = format!("the approver failed ({})", said(&*panic));
                return (Decision::Deny(reason), by);
            }
        };
        match decided {
            Decision::Pass => continue,
            Decision::Approve(Remember::For(ttl)) => {
                let bound = approver.binds(approval);
                let scope = grants::Scope {
                    caller: approval.caller(),
                    tool: approval.tool(),
                    bound: bound.as_ref(),
                    session: None,
                };
                if let Some(writing) = grants.remember(&scope, ttl) {
                    writing.await;
                }
                return (Decision::Approve(Remember::For(ttl)), by);
            }
            Decision::Approve(Remember::Session) => {
                if let Some(session) = approval.session {
                    let bound = approver.binds(approval);
                    let writing = grants.grant_session(
                        session,
                        approval.caller(),
                        approval.tool(),
                        bound.as_ref(),
                    );
                    if let Some(writing) = writing {
                        writing.await;
                    }
                }
                return (Decision::Approve(Remember::Session), by);
            }
            decided => return (decided, by),
        }
    }
    (Decision::Pass, "")
}

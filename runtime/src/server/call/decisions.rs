//! What a confirmation leaves behind: counted (asked, answered, decided), and each decision
//! told with who made it and how, in the log, the metrics and the call's span. Never the
//! arguments.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::Pipeline;
use crate::approve::GRANT;
use crate::tool::ToolName;

/// Where the confirmations of one call are counted and their decisions told.
#[derive(Clone)]
pub(super) struct Decisions {
    tool: ToolName,
    /// The call's span (`Span::none()` when it is not traced).
    span: tracing::Span,
    /// Set when the client turned out unable to ask its user (the approvers that stand in
    /// for it then decide).
    unasked: Arc<AtomicBool>,
    metrics: Option<crate::metrics::Metrics>,
}

/// Who decided when the user at the client answered.
pub(super) const CLIENT: &str = "client";

impl Pipeline {
    /// Where the confirmations of a call of `tool`, whose span is `span`, are counted.
    pub(super) fn decisions(&self, tool: ToolName, span: tracing::Span) -> Decisions {
        Decisions {
            tool,
            span,
            unasked: Arc::new(AtomicBool::new(false)),
            metrics: self.metrics.clone(),
        }
    }

    /// A grant this process holds approved a call of `tool` (whose span is `span`): told as
    /// [`Decisions::decided`] tells it, without making one (this is every call's cost while
    /// a grant holds).
    pub(super) fn granted(&self, tool: &str, span: &tracing::Span) {
        let told = Told {
            tool,
            span,
            metrics: self.metrics.as_ref(),
        };
        told.decided(GRANT, APPROVED, None);
    }

    /// A confirmation was asked of the user at the client (in a round's answer).
    pub(super) fn confirmation_asked(&self) {
        if let Some(metrics) = &self.metrics {
            metrics.confirmation_asked();
        }
    }
}

impl Decisions {
    /// The user at the client was asked.
    pub(super) fn asked(&self) {
        if let Some(metrics) = &self.metrics {
            metrics.confirmation_asked();
        }
    }

    /// Counts the user's answer, whose `verdict` is `None` for a yes; returns it.
    pub(super) fn answered<T>(&self, verdict: Option<T>) -> Option<T> {
        if let Some(metrics) = &self.metrics {
            metrics.confirmation_answered(verdict.is_none());
        }
        self.decided(CLIENT, verdict.is_none(), None);
        verdict
    }

    /// The client cannot ask its user: an approver that stands in for it may decide.
    pub(super) fn unable(&self) {
        self.unasked.store(true, Ordering::Relaxed);
    }

    /// Whether the client turned out unable to ask its user.
    pub(super) fn client_could_not_ask(&self) -> bool {
        self.unasked.load(Ordering::Relaxed)
    }

    /// `approver` (an approver's name, `grant`, `client`) approved the call or denied it
    /// (for `reason`): one log line, one count, the call's span.
    pub(super) fn decided(&self, approver: &str, approved: bool, reason: Option<&str>) {
        let decision = if approved { APPROVED } else { DENIED };
        self.told().decided(approver, decision, reason);
    }

    /// The user's answer came in a request state used already (a replay): refused, and told
    /// as `replayed`, never as the approval it once was.
    pub(super) fn replayed(&self) {
        let reason = Some("its request state was used already");
        self.told().decided(CLIENT, REPLAYED, reason);
    }

    fn told(&self) -> Told<'_> {
        Told {
            tool: &self.tool,
            span: &self.span,
            metrics: self.metrics.as_ref(),
        }
    }
}

/// The decisions told: the call runs, it does not, or it does not because its answer was
/// replayed.
const APPROVED: &str = "approved";
const DENIED: &str = "denied";
const REPLAYED: &str = "replayed";

/// Where a decision on a call of `tool` is told: the log, the metrics, the call's span.
struct Told<'a> {
    tool: &'a str,
    span: &'a tracing::Span,
    metrics: Option<&'a crate::metrics::Metrics>,
}

impl Told<'_> {
    /// One `info` line (every decision, a remembered grant's too), one count, the span.
    fn decided(&self, approver: &str, decision: &'static str, reason: Option<&str>) {
        tracing::info!(
            tool = %self.tool,
            approver,
            decision,
            reason,
            "confirmation decided"
        );
        if let Some(metrics) = self.metrics {
            metrics.approval_decided(approver, decision);
        }
        if !self.span.is_disabled() {
            self.span.record("toolsmith.approval.approver", approver);
            self.span.record("toolsmith.approval.decision", decision);
        }
    }
}

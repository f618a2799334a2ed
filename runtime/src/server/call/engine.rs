//! The engine every invocation runs on, whatever it invokes: the invocation is made (its
//! arguments decoded) with panics caught, then run under its timeout and the client's
//! cancellation. An async one runs in place; a sync one on the [`CallPool`], or in place once
//! its tool's calls proved quick (`tool/place.rs`) and where the thread may be held (a call's
//! first step, a pool thread: `inline.rs`); a tool declared `#[tool(blocking)]` on the pool,
//! always. It starts once its session's channel lets it (a stdio client that stops reading
//! holds up calls that have not started, see `CallContext::room`). Between the arguments and
//! the run stands the call's [`Clearance`] (its confirmation, `ask.rs`), under the same
//! timeout and cancellation. Keyed on an invocation and a name, not on a tool, so that what is
//! not a tool can run on it too.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures::FutureExt;
use tokio_util::sync::CancellationToken;

use super::ask::Clearance;
use super::inline::{Holder, holder};
use super::outcome::panic_message;
use super::pool::CallPool;
use crate::context::CallContext;
use crate::tool::ToolInfo;
use crate::tool::output::Outcome;
use crate::tool::param::{Invocation, Timeout};
use crate::tool::place::Place;

/// What runs: its kind and name, for the messages that name it (`tool 'search_notes' timed
/// out after 30s`), and, for a tool, where its sync invocations may run.
#[derive(Clone, Copy)]
pub(crate) struct Callee<'a> {
    /// What kind of thing it is (`tool`).
    pub(crate) kind: &'static str,
    pub(crate) name: &'a str,
    /// A tool's place (`tool/place.rs`); `None`: a sync invocation always runs on the pool.
    pub(crate) place: Option<&'a Arc<Place>>,
}

impl<'a> Callee<'a> {
    /// A call of `tool` (named `name`: its task's, or its own).
    pub(crate) fn tool(tool: &'a ToolInfo, name: &'a str) -> Callee<'a> {
        Callee {
            kind: "tool",
            name,
            place: Some(tool.place()),
        }
    }
}

impl std::fmt::Display for Callee<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} '{}'", self.kind, self.name)
    }
}

/// Makes the invocation with `invoke` and runs it to its outcome; `None` when `cancelled`
/// fired first (the invocation is then stopped, or told through its `Cancellation`, and
/// nothing is answered).
pub(crate) async fn run(
    callee: Callee<'_>,
    invoke: impl FnOnce(&CallContext) -> Invocation,
    timeout: Option<Timeout>,
    context: CallContext,
    cancelled: CancellationToken,
    pool: &CallPool,
    clearance: Clearance,
) -> Option<Outcome> {
    let outcome = tokio::select! {
        biased;
        outcome = execute(callee, invoke, timeout, &context, pool, clearance) => outcome,
        () = cancelled.cancelled() => {
            context.cancel.cancel();
            context.close();
            tracing::debug!(target = %callee, "cancelled by the client");
            return None;
        }
    };
    // Notifications sent so far precede the answer; later ones are dropped.
    context.close();
    Some(outcome)
}

async fn execute(
    callee: Callee<'_>,
    invoke: impl FnOnce(&CallContext) -> Invocation,
    timeout: Option<Timeout>,
    context: &CallContext,
    pool: &CallPool,
    clearance: Clearance,
) -> Outcome {
    let invocation = match invocation(invoke, context) {
        Ok(invocation) => invocation,
        Err(outcome) => return outcome,
    };
    // The arguments are valid: the call may now be confirmed (under the timeout), and a run
    // that asks on 2026-07-28 stops at its first question without an answer (and is told to
    // stop: a sync tool blocked on its question gets an error, and its thread comes back).
    // One async block for all of it: a future that awaits another keeps its own copy of it.
    let confirmed = AtomicBool::new(!matches!(clearance, Clearance::Asking(_)));
    let body = async {
        match clearance {
            Clearance::Open => {}
            Clearance::Shut(outcome) => return *outcome,
            Clearance::Asking(asking) => {
                if let Some(outcome) = asking.await {
                    return outcome;
                }
                confirmed.store(true, Ordering::Relaxed);
            }
        }
        match invocation {
            Invocation::Invalid(problems) => Outcome::Invalid(problems),
            // A call starts only while its client reads what it was sent (at once, mostly).
            Invocation::Blocking(body) => {
                // In place, once its runs proved quick (and no timeout needs its thread free
                // to answer on time), where the thread may be held; else on the pool.
                let place = callee
                    .place
                    .filter(|place| place.proven() && timeout.is_none());
                if let Some(place) = place {
                    context.room().await;
                    if holder() != Holder::Nobody {
                        return in_place(body, callee, place);
                    }
                }
                let run = match callee.place.filter(|place| place.on_trial()) {
                    None => pool.run(body, context.room()),
                    Some(place) => pool.run(timed(body, place.clone()), context.room()),
                };
                match &context.inquiry {
                    None => run.await,
                    Some(inquiry) => Box::pin(until_stopped(run, inquiry)).await,
                }
            }
            // An async tool declared blocking: on a thread of the pool from the first call.
            Invocation::Async(body)
                if callee.place.is_some_and(|place| place.declared_blocking())
                    && holder() != Holder::Pool =>
            {
                context.room().await;
                // Stopped at its next `.await` by the call's token (a cancellation, its
                // timeout), on its pool thread as anywhere: its slot is then free.
                let stop = context.cancel.clone();
                let body = async move {
                    tokio::select! {
                        biased;
                        () = stop.cancelled() => None,
                        outcome = AssertUnwindSafe(body).catch_unwind() => Some(outcome),
                    }
                };
                let run = async {
                    match pool.block_on(body).await {
                        Ok(Some(Ok(outcome))) => outcome,
                        Ok(Some(Err(panic))) => Outcome::Failed(panic_message(&*panic)),
                        Ok(None) => Outcome::Failed("stopped".into()),
                        Err(err) => Outcome::Failed(err.to_string()),
                    }
                };
                match &context.inquiry {
                    None => run.await,
                    Some(inquiry) => Box::pin(until_stopped(run, inquiry)).await,
                }
            }
            Invocation::Async(body) => {
                context.room().await;
                let run = async {
                    match AssertUnwindSafe(body).catch_unwind().await {
                        Ok(outcome) => outcome,
                        Err(panic) => Outcome::Failed(panic_message(&*panic)),
                    }
                };
                match &context.inquiry {
                    None => run.await,
                    Some(inquiry) => Box::pin(until_stopped(run, inquiry)).await,
                }
            }
        }
    };
    let Some(timeout) = timeout else {
        return body.await;
    };
    match tokio::time::timeout(Duration::from_millis(timeout.millis), body).await {
        Ok(outcome) => outcome,
        Err(_) if !confirmed.load(Ordering::Relaxed) => unanswered(callee, timeout),
        Err(_) => {
            // Tell a sync invocation still running in its thread to stop.
            context.cancel.cancel();
            Outcome::TimedOut(format!("{callee} timed out after {}", timeout.text))
        }
    }
}

/// Runs a sync invocation here, its panic caught; a tool that panics here runs on the pool
/// from then on (where it ran before it was proven quick).
fn in_place(
    body: Box<dyn FnOnce() -> Outcome + Send>,
    callee: Callee<'_>,
    place: &Place,
) -> Outcome {
    match std::panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(outcome) => outcome,
        Err(panic) => {
            if place.send_back() {
                tracing::warn!(
                    target = %callee,
                    "a sync tool panicked where its call was read; its calls run on a pool thread \
                     from now on. A tool that starts a runtime of its own (Handle::block_on) or waits \
                     on another request must be declared #[tool(blocking)]"
                );
            }
            Outcome::Failed(panic_message(&*panic))
        }
    }
}

/// A sync invocation on trial: how long it ran on its pool thread counts for its tool's
/// proof (`tool/place.rs`).
fn timed(
    body: Box<dyn FnOnce() -> Outcome + Send>,
    place: Arc<Place>,
) -> Box<dyn FnOnce() -> Outcome + Send> {
    Box::new(move || {
        let began = Instant::now();
        let outcome = body();
        place.ran(began.elapsed());
        outcome
    })
}

/// Makes the invocation with `invoke`, panics caught: the outcome instead when its
/// arguments are invalid or making it panicked.
#[inline]
pub(crate) fn invocation(
    invoke: impl FnOnce(&CallContext) -> Invocation,
    context: &CallContext,
) -> Result<Invocation, Outcome> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| invoke(context))) {
        Ok(Invocation::Invalid(problems)) => Err(Outcome::Invalid(problems)),
        Ok(invocation) => Ok(invocation),
        Err(panic) => Err(Outcome::Failed(panic_message(&*panic))),
    }
}

/// The refusal of a call whose confirmation was not answered within its `timeout`.
pub(crate) fn unanswered(callee: Callee<'_>, timeout: Timeout) -> Outcome {
    Outcome::Refused(format!(
        "The user did not answer the confirmation of {callee} within {}: it did not run.",
        timeout.text
    ))
}

/// `run`, until it stops at a question of its round that has no answer (2026-07-28): then
/// the round tells the run it stopped, and the outcome is the questions waiting. (Boxed
/// by the caller, so that an ordinary call's future does not hold this one's state.)
async fn until_stopped(
    run: impl std::future::Future<Output = Outcome>,
    inquiry: &crate::context::Inquiry,
) -> Outcome {
    tokio::select! {
        biased;
        outcome = run => outcome,
        () = inquiry.stopped() => {
            inquiry.halt();
            Outcome::InputRequired(inquiry.take_waiting())
        }
    }
}

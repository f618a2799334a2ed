//! Where a `#[tool]`'s calls run: a tool declared `#[tool(blocking)]` on a thread of the
//! server's pool, always, and a sync `fn` that takes a `Cancellation` too (a cancellation or
//! a timeout reaches only a run off the reading thread); any other sync `fn` there until its
//! runs prove quick, then where its request was read, like an `async fn`'s first step (and
//! under the same watch: a call that holds that thread past the budget sends the tool's next
//! calls back to the pool). What is kept here is what the tool's own runs showed, the same
//! for every server that serves it.

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

/// How many quick runs in a row on the pool prove a sync tool quick.
pub(crate) const PROOF: u8 = 3;

/// The longest run that counts as quick: a run this short costs less than the two thread
/// hand-offs of the pool would add, give or take; one longer is better off a thread of its
/// own, where it holds up nothing else.
pub(crate) const QUICK_RUN: Duration = Duration::from_millis(1);

/// Declared `#[tool(blocking)]`: never in place.
const DECLARED: u8 = u8::MAX;

/// Never in place, not declared: a sync tool that takes a `Cancellation` (which only a run
/// off the reading thread can hear), or one whose run panicked in place.
const POOL_ONLY: u8 = u8::MAX - 1;

/// Where one tool's calls run (see the module's doc).
#[derive(Debug)]
pub(crate) struct Place {
    /// Quick runs in a row so far (`PROOF`: proven), or `DECLARED`.
    state: AtomicU8,
}

impl Place {
    /// The place of a tool declared blocking (`blocking`), of one that takes a
    /// `Cancellation` (`cancellable`: on the pool too), or of one still to prove quick.
    pub(crate) fn of(blocking: bool, cancellable: bool) -> Place {
        let state = match (blocking, cancellable) {
            (true, _) => DECLARED,
            (false, true) => POOL_ONLY,
            (false, false) => 0,
        };
        Place {
            state: AtomicU8::new(state),
        }
    }

    /// The tool is declared `#[tool(blocking)]`.
    pub(crate) fn declared_blocking(&self) -> bool {
        self.state.load(Ordering::Relaxed) == DECLARED
    }

    /// A sync call of the tool may run where its request was read: its runs proved quick.
    #[inline]
    pub(crate) fn proven(&self) -> bool {
        self.state.load(Ordering::Relaxed) == PROOF
    }

    /// Whether a run on the pool is timed for the proof (not once proven, nor declared).
    pub(crate) fn on_trial(&self) -> bool {
        self.state.load(Ordering::Relaxed) < PROOF
    }

    /// A run in place panicked (a sync tool that starts a runtime of its own, such as
    /// `Handle::block_on`, cannot run on a runtime's thread): its calls run on the pool from now
    /// on. Whether it was sent back now (not before).
    pub(crate) fn send_back(&self) -> bool {
        self.state
            .compare_exchange(PROOF, POOL_ONLY, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// A run on the pool took `took`: a quick one counts toward the proof, a slow one starts
    /// it over. (Racing runs may lose a count: the proof then takes a run longer.)
    pub(crate) fn ran(&self, took: Duration) {
        let state = self.state.load(Ordering::Relaxed);
        if state >= PROOF {
            return;
        }
        let next = if took <= QUICK_RUN { state + 1 } else { 0 };
        // Only from the state read: never over a proof, or a tool sent back meanwhile.
        let _ = self
            .state
            .compare_exchange(state, next, Ordering::Relaxed, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{PROOF, Place, QUICK_RUN};

    #[test]
    fn quick_runs_in_a_row_prove_a_tool_and_a_slow_one_starts_over() {
        let place = Place::of(false, false);
        for _ in 1..PROOF {
            place.ran(Duration::from_micros(5));
            assert!(place.on_trial() && !place.proven());
        }
        place.ran(QUICK_RUN * 2);
        for _ in 1..PROOF {
            place.ran(Duration::from_micros(5));
        }
        assert!(!place.proven(), "the slow run started the proof over");
        place.ran(QUICK_RUN);
        assert!(place.proven() && !place.on_trial());
        place.ran(QUICK_RUN * 100);
        assert!(
            place.proven(),
            "a proven tool is watched where it runs, not here"
        );
    }

    #[test]
    fn a_tool_sent_back_stays_on_the_pool() {
        let place = Place::of(false, false);
        assert!(!place.send_back(), "only a proven tool is sent back");
        for _ in 0..PROOF {
            place.ran(Duration::ZERO);
        }
        assert!(place.send_back() && !place.send_back());
        for _ in 0..PROOF * 2 {
            place.ran(Duration::ZERO);
        }
        assert!(!place.proven() && !place.on_trial() && !place.declared_blocking());
    }

    #[test]
    fn a_tool_that_takes_a_cancellation_stays_on_the_pool_undeclared() {
        let place = Place::of(false, true);
        for _ in 0..PROOF * 2 {
            place.ran(Duration::ZERO);
        }
        assert!(!place.proven() && !place.on_trial() && !place.declared_blocking());
    }

    #[test]
    fn a_tool_declared_blocking_is_never_proven() {
        let place = Place::of(true, false);
        assert!(place.declared_blocking() && !place.on_trial());
        for _ in 0..PROOF * 2 {
            place.ran(Duration::ZERO);
        }
        assert!(!place.proven());
    }
}

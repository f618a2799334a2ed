//! The tasks running on this process: how many each caller may have, and the one keeper
//! that renews all their leases.
//!
//! A task waiting on its tool costs one tokio task and its entry here: no timer of its own.
//! One keeper, running while any task runs here, renews every lease, writes every task's
//! last progress and sees every cancel made on another replica, once per renewal period.

use std::collections::HashMap;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::Tasks;
use super::start::TaskChannel;

/// The runs of this process.
#[derive(Default)]
pub(super) struct Runs {
    by_id: HashMap<String, Run>,
    /// How many tasks each caller has running here, by owner.
    per_owner: HashMap<String, usize>,
    /// Whether the keeper runs.
    keeping: bool,
}

/// One run: whose it is, how to stop it, and its last progress.
struct Run {
    owner: String,
    token: CancellationToken,
    progress: Arc<TaskChannel>,
}

/// Why a task was not started: the caps of this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Full {
    /// `max_tasks` tasks are running here.
    Server(usize),
    /// This caller has `max_tasks_per_caller` running here.
    Caller(usize),
}

impl Full {
    /// What the client is told.
    pub(super) fn message(self, tool: &str) -> String {
        match self {
            Full::Server(max) => format!(
                "tool '{tool}' was not started as a task: the server has {max} tasks working, the most it runs at once (max_tasks); try again once some have ended"
            ),
            Full::Caller(max) => format!(
                "tool '{tool}' was not started as a task: this caller has {max} tasks working, the most one caller may have (max_tasks_per_caller); wait for one to end, or cancel one with tasks/cancel"
            ),
        }
    }
}

/// A run admitted: taken off the runs when dropped, however it ends.
pub(super) struct Admitted {
    tasks: Arc<Tasks>,
    id: String,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut runs = self.tasks.running();
        if let Some(run) = runs.by_id.remove(&self.id)
            && let Some(count) = runs.per_owner.get_mut(&run.owner)
        {
            *count -= 1;
            if *count == 0 {
                runs.per_owner.remove(&run.owner);
            }
        }
    }
}

impl Tasks {
    /// Admits the run of task `id` for `owner`, unless this process runs `max` tasks or
    /// `owner` has `max_per_caller`; starts the keeper if it was idle.
    pub(super) fn admit(
        self: &Arc<Self>,
        id: &str,
        owner: &str,
        token: CancellationToken,
        progress: Arc<TaskChannel>,
    ) -> Result<Admitted, Full> {
        let mut runs = self.running();
        if runs.by_id.len() >= self.max {
            return Err(Full::Server(self.max));
        }
        let count = runs.per_owner.get(owner).copied().unwrap_or(0);
        if count >= self.max_per_caller {
            return Err(Full::Caller(self.max_per_caller));
        }
        *runs.per_owner.entry(owner.to_owned()).or_default() += 1;
        let run = Run {
            owner: owner.to_owned(),
            token,
            progress,
        };
        runs.by_id.insert(id.to_owned(), run);
        if !runs.keeping {
            runs.keeping = true;
            tokio::spawn(self.clone().keep());
        }
        Ok(Admitted {
            tasks: self.clone(),
            id: id.to_owned(),
        })
    }

    /// Stops the run of task `id` here, if it runs here.
    pub(super) fn stop_run(&self, id: &str) {
        if let Some(run) = self.running().by_id.get(id) {
            run.token.cancel();
        }
    }

    /// The keeper: every renewal period, each run's last progress written and its lease
    /// renewed (a run whose task is no longer working, cancelled on any replica or failed
    /// after its lease, is stopped). It ends when no task runs here, or serving stops.
    async fn keep(self: Arc<Self>) {
        let mut renew = tokio::time::interval(self.renew_every());
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        renew.tick().await;
        loop {
            tokio::select! {
                () = self.stopping.cancelled() => break,
                _ = renew.tick() => {}
            }
            let runs: Vec<(String, CancellationToken, Arc<TaskChannel>)> = {
                let mut runs = self.running();
                if runs.by_id.is_empty() {
                    runs.keeping = false;
                    return;
                }
                runs.by_id
                    .iter()
                    .map(|(id, run)| (id.clone(), run.token.clone(), run.progress.clone()))
                    .collect()
            };
            for (id, token, progress) in runs {
                if token.is_cancelled() {
                    continue;
                }
                self.write_progress(&id, &progress).await;
                match self.store.renew(&id, self.lease).await {
                    // Cancelled (here or on another replica), or failed after its lease.
                    Ok(false) => token.cancel(),
                    Ok(true) => {}
                    Err(err) => tracing::warn!(task = %id, %err, "a task's lease was not renewed"),
                }
            }
        }
        self.running().keeping = false;
    }
}

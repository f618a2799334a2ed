//! How a way in schedules a call, the same for every one: its first step runs where the
//! request was read (`call/inline.rs`: most calls finish there, answered without a task or a
//! thread hop); the rest of a call that waits runs in a task of the server's tracker, and a
//! call of a tool known to block runs on a pool thread. The ways in differ only in how they
//! read the request and write the answer: stdio queues a first step's answer for the reader
//! and writes a later one itself, HTTP awaits it in the request's future, and rmcp's handler
//! awaits it in the task rmcp gave the request (`call_scheduled`).

use std::future::Future;
use std::sync::Arc;

use rmcp::model::CallToolRequestParams;
use tokio_util::sync::CancellationToken;

use super::adapter::ToolServer;
use super::call::inline::{Started, Verdict};
use super::call::{CallReply, lost};
use super::call::{CallSetup, Way};

/// A call after its first step. (Not boxed: most calls end in their first step, and their
/// answer is written from here, without an allocation.)
#[allow(clippy::large_enum_variant)]
pub(crate) enum FirstStep<F> {
    /// It finished: the answer.
    Done(CallReply),
    /// It goes on: [`FirstStep::Rest`]'s future gives the answer.
    Rest(F),
}

impl ToolServer {
    /// A call of `params` scheduled as [`ToolServer::start_call`] says, its rest tracked by
    /// the server (a stop waits for it), for a way in that awaits the answer where it asked
    /// (rmcp's handler, which runs each request in a task of its own).
    pub(crate) async fn call_scheduled(
        self: Arc<Self>,
        params: CallToolRequestParams,
        cancel: CancellationToken,
        setup: CallSetup,
        way: Way,
    ) -> CallReply {
        match self.start_call(params, cancel, setup, way) {
            FirstStep::Done(answer) => answer,
            FirstStep::Rest(rest) => self.pipeline.tracker.track_future(rest).await,
        }
    }

    /// Runs the first step of a call of `params` here, and returns its answer or the rest
    /// of it (run on a pool thread when its tool blocks), which the way in runs in a task of
    /// the server's tracker (a stop waits for it), with what it does with the answer.
    pub(crate) fn start_call(
        self: &Arc<Self>,
        params: CallToolRequestParams,
        cancel: CancellationToken,
        setup: CallSetup,
        way: Way,
    ) -> FirstStep<impl Future<Output = CallReply> + Send + 'static> {
        let blocking = &self.pipeline.blocking;
        let verdict = blocking.verdict(&params.name);
        let reviewed = (verdict == Verdict::Review).then(|| params.name.to_string());
        let server = self.clone();
        let work = async move { server.call(params, cancel, setup, way).await };
        let rest = match blocking.start(verdict, work) {
            Started::Done(answer) => return FirstStep::Done(answer),
            Started::Waiting(work) => Ok(work),
            Started::Blocks(work) => Err(work),
        };
        let (pool, blocking) = (self.pipeline.pool.clone(), blocking.clone());
        FirstStep::Rest(async move {
            match (rest, reviewed) {
                (Ok(work), _) => work.await,
                // It blocks its thread: on a pool thread, not on a runtime worker (where it
                // could also hold up the reader).
                (Err(work), None) => pool.block_on(work).await.unwrap_or_else(lost),
                (Err(work), Some(tool)) => {
                    let work = async move { blocking.review(&tool, work).await };
                    pool.block_on(work).await.unwrap_or_else(lost)
                }
            }
        })
    }
}

//! `completion/complete`: resolves the prompt or resource template the reference names and
//! checks access as a read does (`read.rs`), then runs the completion fn in place (it is meant
//! to answer at each keystroke), its panic caught, under a timeout and the client's
//! cancellation; at most [`MAX_COMPLETIONS`](crate::complete::MAX_COMPLETIONS) values go back.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures::FutureExt;
use rmcp::ErrorData;
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, ErrorCode, Reference};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::Pipeline;
use super::read::clip;
use crate::complete::{Candidates, Completion, capped};
use crate::{context::Caller, error::ErrorKind, error::META_ERROR};

/// How long a completion fn may take.
pub(crate) const COMPLETION_TIMEOUT: Duration = Duration::from_secs(5);

impl Pipeline {
    /// `completion/complete`: the candidates of the fn that completes the argument of the
    /// prompt or resource template the reference names; none when no fn does.
    pub(crate) async fn complete(
        &self,
        params: CompleteRequestParams,
        caller: Caller,
        cancel: CancellationToken,
    ) -> Result<CompleteResult, ErrorData> {
        let registry = self.registry.current();
        let completion = Completion {
            arguments: params
                .context
                .clone()
                .and_then(|c| c.arguments)
                .unwrap_or_default(),
            states: self.states.clone(),
            caller: caller.clone(),
        };
        let (argument, value) = (&params.argument.name, &params.argument.value);
        let started = match &params.r#ref {
            Reference::Prompt(reference) => {
                let Some(prompt) = registry.prompt(&reference.name) else {
                    return Err(ErrorData::invalid_params(
                        format!("unknown prompt '{}'", clip(&reference.name)),
                        None,
                    ));
                };
                let scopes = prompt.header().scopes();
                self.may_read(scopes, "get prompt", &reference.name, &caller)?;
                self.candidates(argument, cancel, || {
                    prompt.complete(argument, value, &completion)
                })
                .await?
            }
            Reference::Resource(reference) => {
                // The template as declared, or a URI it matches.
                let declared = registry.resource_declared(&reference.uri);
                let Some(resource) = declared
                    .or_else(|| registry.resource_for(&reference.uri))
                    .filter(|r| r.is_template())
                else {
                    return Err(ErrorData::invalid_params(
                        format!("unknown resource template '{}'", clip(&reference.uri)),
                        None,
                    ));
                };
                let scopes = resource.header().scopes();
                self.may_read(scopes, "read resource", &reference.uri, &caller)?;
                self.candidates(argument, cancel, || {
                    resource.complete(argument, value, &completion)
                })
                .await?
            }
            _ => {
                return Err(ErrorData::invalid_params(
                    "completion/complete completes a prompt's argument (ref/prompt) or a resource template's variable (ref/resource)",
                    None,
                ));
            }
        };
        // Nothing completes that argument: an empty answer, as ever (no total).
        let Some(values) = started else {
            return Ok(CompleteResult::new(CompletionInfo::default()));
        };
        let (values, total, has_more) = capped(values);
        let info = CompletionInfo::with_pagination(values, Some(total), has_more)
            .map_err(|why| ErrorData::internal_error(why, None))?;
        Ok(CompleteResult::new(info))
    }

    /// The candidates `start` gives for `argument` (`None` when nothing completes it): a
    /// panic is a masked error, it has [`COMPLETION_TIMEOUT`], and the client's cancellation
    /// stops it. (It runs in place: a completion is meant to answer at each keystroke; a slow
    /// one should be `async`.)
    async fn candidates<'a>(
        &self,
        argument: &str,
        cancel: CancellationToken,
        start: impl FnOnce() -> Option<Candidates<'a>>,
    ) -> Result<Option<Vec<String>>, ErrorData> {
        let failed = |why: String| {
            tracing::error!(argument, error = why, "a completion failed");
            ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                format!("Error completing '{argument}'"),
                Some(json!({ META_ERROR: ErrorKind::Failed.as_str() })),
            )
        };
        let future = match std::panic::catch_unwind(AssertUnwindSafe(start)) {
            Ok(Some(future)) => future,
            Ok(None) => return Ok(None),
            Err(panic) => return Err(failed(super::outcome::panic_message(&*panic))),
        };
        let run = tokio::time::timeout(COMPLETION_TIMEOUT, AssertUnwindSafe(future).catch_unwind());
        tokio::select! {
            biased;
            done = run => match done {
                Ok(Ok(values)) => Ok(Some(values)),
                Ok(Err(panic)) => Err(failed(super::outcome::panic_message(&*panic))),
                Err(_) => Err(ErrorData::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!(
                        "completing '{argument}' took longer than {}s",
                        COMPLETION_TIMEOUT.as_secs()
                    ),
                    Some(json!({ META_ERROR: ErrorKind::TimedOut.as_str() })),
                )),
            },
            () = cancel.cancelled() => Err(ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                "the completion was cancelled",
                None,
            )),
        }
    }
}

//! `completion/complete`: resolves the prompt or resource template the reference names and
//! checks access as a read does (`read.rs`), then runs the completion fn in place (it is meant
//! to answer at each keystroke), its panic caught, under a timeout and the client's
//! cancellation; at most [`MAX_COMPLETIONS`](crate::MAX_COMPLETIONS) values go back.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures::FutureExt;
use rmcp::ErrorData;
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, ErrorCode, Reference};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::Pipeline;
use super::read::clip;
use crate::complete::{CompleteDef, Completion, capped};
use crate::{Caller, ErrorKind, META_ERROR};

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
        let (completions, scopes, what, name): (&'static [CompleteDef], _, _, String) =
            match &params.r#ref {
                Reference::Prompt(reference) => {
                    let Some(prompt) = registry.prompt(&reference.name) else {
                        return Err(ErrorData::invalid_params(
                            format!("unknown prompt '{}'", clip(&reference.name)),
                            None,
                        ));
                    };
                    (
                        prompt.completions(),
                        prompt.header().scopes(),
                        "get prompt",
                        reference.name.clone(),
                    )
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
                    (
                        resource.completions(),
                        resource.header().scopes(),
                        "read resource",
                        reference.uri.clone(),
                    )
                }
                _ => {
                    return Err(ErrorData::invalid_params(
                        "completion/complete completes a prompt's argument (ref/prompt) or a resource template's variable (ref/resource)",
                        None,
                    ));
                }
            };
        self.may_read(scopes, what, &name, &caller)?;
        let Some(complete) = completions
            .iter()
            .find(|c| c.argument == params.argument.name)
        else {
            return Ok(CompleteResult::new(CompletionInfo::default()));
        };
        let completion = Completion {
            arguments: params.context.and_then(|c| c.arguments).unwrap_or_default(),
            states: self.states.clone(),
            caller,
        };
        let values = self
            .candidates(complete, &params.argument.value, &completion, cancel)
            .await?;
        let (values, total, has_more) = capped(values);
        let info = CompletionInfo::with_pagination(values, Some(total), has_more)
            .map_err(|why| ErrorData::internal_error(why, None))?;
        Ok(CompleteResult::new(info))
    }

    /// A completion fn's candidates: its panic is a masked error, it has
    /// [`COMPLETION_TIMEOUT`], and the client's cancellation stops it. (It runs in place: a
    /// completion fn is meant to answer at each keystroke; a slow one should be `async`.)
    async fn candidates(
        &self,
        complete: &'static CompleteDef,
        value: &str,
        completion: &Completion,
        cancel: CancellationToken,
    ) -> Result<Vec<String>, ErrorData> {
        let failed = |why: String| {
            tracing::error!(
                argument = complete.argument,
                error = why,
                "a completion failed"
            );
            ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                format!("Error completing '{}'", complete.argument),
                Some(json!({ META_ERROR: ErrorKind::Failed.as_str() })),
            )
        };
        let started =
            std::panic::catch_unwind(AssertUnwindSafe(|| (complete.complete)(value, completion)));
        let future = match started {
            Ok(future) => future,
            Err(panic) => return Err(failed(super::outcome::panic_message(&*panic))),
        };
        let run = tokio::time::timeout(COMPLETION_TIMEOUT, AssertUnwindSafe(future).catch_unwind());
        tokio::select! {
            biased;
            done = run => match done {
                Ok(Ok(values)) => Ok(values),
                Ok(Err(panic)) => Err(failed(super::outcome::panic_message(&*panic))),
                Err(_) => Err(ErrorData::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!(
                        "completing '{}' took longer than {}s",
                        complete.argument,
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

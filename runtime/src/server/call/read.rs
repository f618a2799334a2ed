//! The pipeline for what is not a tool call: `resources/read` and `prompts/get` (and the
//! access check `completion/complete` shares, `complete.rs`). A read or a prompt runs the
//! steps a call runs: **resolve** (the resource by URI, the prompt by name), **access** (with
//! authorization, the read scope or the item's own `scopes`), the server's **layers** (as a
//! [`Call`](crate::layer::Call) of its kind), **dispatch** on the same engine (its arguments
//! decoded, its timeout, panics caught, sync work on the pool, the client's cancellation),
//! its outcome as the method's result, and the **log** line and span of a call (`log.rs`).
//! Resources and prompts are read-only: the serving policy, which is about what tools may do,
//! never withholds them, and nothing confirms them.

use futures::FutureExt;
use futures::future::Either;
use rmcp::ErrorData;
use rmcp::model::{ErrorCode, GetPromptRequestParams, GetPromptResult, ReadResourceResult};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::ask::Clearance;
use super::engine::{self, Callee};
use super::log::CallLog;
use super::{CallSetup, Pipeline, Way};
use crate::context::CallContext;
use crate::request::{PromptCall, ReadCall, Request};
use crate::resource::contents::{Unreadable, contents};
use crate::tool::ToolName;
use crate::tool::output::{Outcome, Output};
use crate::tool::param::{Invocation, Timeout};
use crate::{context::Caller, error::ErrorKind, error::META_ERROR};

/// The protocol error for a URI no resource has (-32002, as the specification names it).
pub(crate) fn resource_not_found(uri: &str) -> ErrorData {
    ErrorData::resource_not_found(
        format!("Resource not found: {}", clip(uri)),
        Some(json!({ "uri": clip(uri) })),
    )
}

impl Pipeline {
    /// `resources/read` of `uri`, come in `way`.
    pub(crate) fn read(
        &self,
        uri: String,
        cancel: CancellationToken,
        setup: CallSetup,
        way: Way,
    ) -> impl Future<Output = Result<ReadResourceResult, ErrorData>> + Send + '_ {
        // 1. resolve
        let registry = self.registry.load();
        let Some((resource, arguments)) = registry.resolve(&uri) else {
            return Either::Right(std::future::ready(Err(resource_not_found(&uri))));
        };
        // 2. access
        if let Err(refused) = self.may_read(
            resource.header().scopes(),
            "read resource",
            &uri,
            &setup.caller,
        ) {
            return Either::Right(std::future::ready(Err(refused)));
        }
        let resource = resource.clone();
        drop(registry);
        let name = resource.header().shared_name().clone();
        let log = self.item_log("resources/read", &name, &setup, way);
        crate::trace::read_of(log.span(), &uri);
        let read = ReadCall {
            resource,
            uri,
            arguments,
            setup,
            cancel,
        };
        // 3. the layers, then 4 and 5.
        let answer = if self.layers.is_empty() {
            Either::Left(self.read_now(read))
        } else {
            let layered = self.through_layers(Request::Read(read));
            let name = name.clone();
            Either::Right(Box::pin(layered.map(move |reply| reply.into_read(&name))))
        };
        // 6. the log
        Either::Left(answer.map(move |answer| {
            log.finish(&name, &answer);
            answer
        }))
    }

    /// Steps 4 and 5 of a read: the resource's function on the engine, its contents.
    pub(super) fn read_now(
        &self,
        read: ReadCall,
    ) -> impl Future<Output = Result<ReadResourceResult, ErrorData>> + Send + '_ {
        let ReadCall {
            resource,
            uri,
            arguments,
            setup,
            cancel,
        } = read;
        let name = resource.header().shared_name().clone();
        let invoked = resource.clone();
        let at = uri.clone();
        let invoke = move |context: &CallContext| invoked.invoke(&at, arguments, context);
        let run = self.run(
            "resource",
            name.clone(),
            resource.timeout(),
            invoke,
            cancel,
            setup,
        );
        run.map(move |outcome| match outcome {
            Some(Outcome::Ok(output)) => match contents(output, &uri, resource.mime_type()) {
                Ok(contents) => Ok(ReadResourceResult::new(contents)),
                Err(Unreadable::Absent) => Err(resource_not_found(&uri)),
                Err(Unreadable::Other(why)) => {
                    tracing::error!(resource = &*name, why, "a resource returned no contents");
                    Err(failed("resource", &name, ErrorKind::Failed, None))
                }
            },
            Some(Outcome::Invalid(problems)) => Err(ErrorData::invalid_params(
                format!("Invalid URI for resource '{}': {problems}", &*name),
                Some(json!({ "uri": clip(&uri) })),
            )),
            other => Err(not_ok("resource", &name, other)),
        })
    }

    /// `prompts/get`, come in `way`.
    pub(crate) fn prompt(
        &self,
        params: GetPromptRequestParams,
        cancel: CancellationToken,
        setup: CallSetup,
        way: Way,
    ) -> impl Future<Output = Result<GetPromptResult, ErrorData>> + Send + '_ {
        // 1. resolve
        let registry = self.registry.load();
        let Some(prompt) = registry.prompt(&params.name) else {
            return Either::Right(std::future::ready(Err(ErrorData::invalid_params(
                format!("unknown prompt '{}'", clip(&params.name)),
                Some(json!({ "prompt": clip(&params.name) })),
            ))));
        };
        // 2. access
        if let Err(refused) = self.may_read(
            prompt.header().scopes(),
            "get prompt",
            prompt.name(),
            &setup.caller,
        ) {
            return Either::Right(std::future::ready(Err(refused)));
        }
        let arguments = prompt.arguments_of(params.arguments.as_ref());
        let prompt = prompt.clone();
        drop(registry);
        let name = prompt.header().shared_name().clone();
        let log = self.item_log("prompts/get", &name, &setup, way);
        let get = PromptCall {
            prompt,
            arguments,
            setup,
            cancel,
        };
        // 3. the layers, then 4 and 5.
        let answer = if self.layers.is_empty() {
            Either::Left(self.prompt_now(get))
        } else {
            let layered = self.through_layers(Request::Prompt(get));
            let name = name.clone();
            Either::Right(Box::pin(layered.map(move |reply| reply.into_prompt(&name))))
        };
        // 6. the log
        Either::Left(answer.map(move |answer| {
            log.finish(&name, &answer);
            answer
        }))
    }

    /// Steps 4 and 5 of a prompt: its function on the engine, its messages.
    pub(super) fn prompt_now(
        &self,
        get: PromptCall,
    ) -> impl Future<Output = Result<GetPromptResult, ErrorData>> + Send + '_ {
        let PromptCall {
            prompt,
            arguments,
            setup,
            cancel,
        } = get;
        let name = prompt.header().shared_name().clone();
        let invoked = prompt.clone();
        let invoke = move |context: &CallContext| invoked.invoke(arguments, context);
        let run = self.run(
            "prompt",
            name.clone(),
            prompt.timeout(),
            invoke,
            cancel,
            setup,
        );
        run.map(move |outcome| match outcome {
            Some(Outcome::Ok(Output::Messages(messages))) => {
                let mut result = GetPromptResult::new(messages);
                let description = prompt.header().description();
                if !description.is_empty() {
                    result = result.with_description(description);
                }
                Ok(result)
            }
            Some(Outcome::Invalid(problems)) => Err(ErrorData::invalid_params(
                format!("Invalid arguments for prompt '{}': {problems}", &*name),
                Some(json!({ "prompt": &*name })),
            )),
            other => Err(not_ok("prompt", &name, other)),
        })
    }

    /// Step 6's log of a read or a prompt of `name`, with its span.
    fn item_log(&self, method: &'static str, name: &str, setup: &CallSetup, way: Way) -> CallLog {
        let span = crate::trace::call_span(method, name, None, setup.trace.as_ref(), way.as_str());
        if let Some(subject) = setup.caller.subject()
            && !span.is_disabled()
        {
            span.record("enduser.id", subject);
        }
        CallLog::start(way, method, self, span.into()).of(self, setup)
    }

    /// Steps 4 and 5 of a read or a prompt: the engine, with the item's context.
    async fn run(
        &self,
        kind: &'static str,
        name: ToolName,
        timeout: Option<Timeout>,
        invoke: impl FnOnce(&CallContext) -> Invocation + Send,
        cancel: CancellationToken,
        setup: CallSetup,
    ) -> Option<Outcome> {
        let context = self.context(name.clone(), &cancel, setup);
        let callee = Callee {
            kind,
            name: &name,
            place: None,
        };
        engine::run(
            callee,
            invoke,
            timeout,
            context,
            cancel,
            &self.pool,
            Clearance::Open,
        )
        .await
    }

    /// Whether `caller` may read what `scopes` guard: with authorization, its token grants
    /// `scopes` (all of them), or the read scope when there are none; always without.
    pub(crate) fn can_read(&self, scopes: &'static [&'static str], caller: &Caller) -> bool {
        #[cfg(feature = "auth")]
        if let Some(names) = &self.scopes {
            return names.required_for(scopes).granted_by(caller.scopes());
        }
        let _ = (scopes, caller);
        true
    }

    /// Step 2 for what is read-only: [`Pipeline::can_read`], or the error (-32003) that says
    /// which scope is missing.
    pub(crate) fn may_read(
        &self,
        scopes: &'static [&'static str],
        what: &str,
        name: &str,
        caller: &Caller,
    ) -> Result<(), ErrorData> {
        #[cfg(feature = "auth")]
        if let Some(names) = &self.scopes
            && !self.can_read(scopes, caller)
        {
            let needed = names.required_for(scopes);
            return Err(ErrorData::new(
                ErrorCode(-32003),
                format!(
                    "Forbidden: to {what} {} needs scope \"{needed}\", which the access token does not grant",
                    clip(name)
                ),
                None,
            ));
        }
        let _ = (scopes, what, name, caller);
        Ok(())
    }
}

/// The protocol error of a read or prompt that did not succeed; a failure is masked, as a
/// tool's is (stderr has why).
fn not_ok(kind: &'static str, name: &str, outcome: Option<Outcome>) -> ErrorData {
    match outcome {
        Some(Outcome::ToolError(message)) => failed(kind, name, ErrorKind::Tool, Some(message)),
        Some(Outcome::TimedOut(message)) => failed(kind, name, ErrorKind::TimedOut, Some(message)),
        Some(Outcome::Refused(message)) => failed(kind, name, ErrorKind::Refused, Some(message)),
        Some(Outcome::Failed(error)) => {
            tracing::error!(kind, name, error, "failed");
            failed(kind, name, ErrorKind::Failed, None)
        }
        // Nothing is sent for a cancelled request.
        None => failed(
            kind,
            name,
            ErrorKind::Failed,
            Some(format!("{kind} '{name}' was cancelled")),
        ),
        Some(_) => failed(kind, name, ErrorKind::Failed, None),
    }
}

/// An internal error (-32603) whose data names the [`ErrorKind`], with `message` shown or a
/// masked one.
pub(super) fn failed(
    kind: &str,
    name: &str,
    error: ErrorKind,
    message: Option<String>,
) -> ErrorData {
    let message = message.unwrap_or_else(|| format!("Error in {kind} '{name}'"));
    ErrorData::new(
        ErrorCode::INTERNAL_ERROR,
        message,
        Some(json!({ META_ERROR: error.as_str() })),
    )
}

/// A name or URI from the request, cut for a message.
pub(super) fn clip(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_owned(),
    }
}

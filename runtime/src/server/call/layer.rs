//! Step 3's first hook: the layers around every call ([`crate::layer`]). Without any, a call
//! goes straight to dispatch and pays nothing. With some, the server's layers wrap the rest
//! of the pipeline (dispatch: confirmation, the engine, the answer) once, on first use, and
//! each call passes through them; what the pipeline needs to dispatch rides in the
//! [`Call`] unseen.

use std::convert::Infallible;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use futures::future::BoxFuture;

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, GetPromptResult, ReadResourceResult};

use super::{CallLog, CallReply, Pipeline};
use crate::layer::{Call, CallOutcome, CallService, Reply};
use crate::request::Request;
use crate::{error::ErrorKind, error::META_ERROR};

/// One layer, as the server keeps it: wraps a service in itself.
pub(crate) type Wrap = Arc<dyn Fn(CallService) -> CallService + Send + Sync>;

/// The server's layers, and the service they make, built once.
#[derive(Default)]
pub(crate) struct Layers {
    wraps: Vec<Wrap>,
    built: OnceLock<CallService>,
}

impl Layers {
    pub(crate) fn new(wraps: Vec<Wrap>) -> Self {
        Layers {
            wraps,
            built: OnceLock::new(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.wraps.is_empty()
    }
}

impl Pipeline {
    /// The layered service around dispatch (made on first use, from this pipeline as it is
    /// then: every setting is in place once a call arrives).
    fn layered(&self) -> CallService {
        self.layers
            .built
            .get_or_init(|| {
                let inner = Pipeline {
                    layers: Arc::default(),
                    ..self.clone()
                };
                let mut service = CallService::new(Dispatch(Arc::new(inner)));
                // The first layer given is the outermost.
                for wrap in self.layers.wraps.iter().rev() {
                    service = wrap(service);
                }
                service
            })
            .clone()
    }

    /// Step 3's layers around the rest of a request's steps (`request`: a tool call, a read,
    /// a prompt), whose reply the way in's step turns into its own answer and logs.
    pub(super) fn through_layers(
        &self,
        request: Request,
    ) -> impl Future<Output = Reply> + Send + 'static {
        let service = self.layered();
        async move {
            use tower::ServiceExt;
            match service.oneshot(Call::from(request)).await {
                Ok(result) => result.0,
                Err(never) => match never {},
            }
        }
    }
}

/// The rest of the pipeline as a service: what the innermost layer calls. Shared: the
/// layered service is cloned for every call, and with it this.
#[derive(Clone)]
struct Dispatch(Arc<Pipeline>);

impl tower::Service<Call> for Dispatch {
    type Response = CallOutcome;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<CallOutcome, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let pipeline = self.0.clone();
        Box::pin(async move {
            // The outer step writes the request's log line.
            let reply = match call.request {
                Request::Tool(call) => {
                    Reply::Tool(pipeline.dispatch(call, CallLog::silent()).await)
                }
                Request::Read(read) => Reply::Read(pipeline.read_now(read).await),
                Request::Prompt(get) => Reply::Prompt(pipeline.prompt_now(get).await),
            };
            Ok(CallOutcome(reply))
        })
    }
}

/// What the layers' reply is as each request's own answer. A layer answers any request
/// with a tool's error result (`CallOutcome::refused`); for a read or a prompt, that is the
/// protocol error of its kind (-32603, its data naming the kind) with the result's text.
impl Reply {
    pub(super) fn into_tool(self) -> CallReply {
        match self {
            Reply::Tool(answer) => answer,
            Reply::Read(_) | Reply::Prompt(_) => Err(mismatched("tools/call")),
        }
    }

    pub(super) fn into_read(self, name: &str) -> Result<ReadResourceResult, ErrorData> {
        match self {
            Reply::Read(answer) => answer,
            other => Err(other.into_error("resource", name)),
        }
    }

    pub(super) fn into_prompt(self, name: &str) -> Result<GetPromptResult, ErrorData> {
        match self {
            Reply::Prompt(answer) => answer,
            other => Err(other.into_error("prompt", name)),
        }
    }

    /// A layer's tool-shaped answer to a read or a prompt, as its protocol error.
    fn into_error(self, kind: &'static str, name: &str) -> ErrorData {
        let result = match self {
            Reply::Tool(Err(error)) => return error,
            Reply::Tool(Ok(CallToolResponse::Complete(result)))
                if result.is_error == Some(true) =>
            {
                result
            }
            _ => return mismatched(kind),
        };
        let error = result
            .meta
            .as_ref()
            .and_then(|meta| meta.get(META_ERROR))
            .and_then(|kind| kind.as_str())
            .and_then(ErrorKind::parse)
            .unwrap_or(ErrorKind::Refused);
        let text = result
            .content
            .iter()
            .find_map(|content| content.as_text().map(|text| text.text.clone()));
        super::read::failed(kind, name, error, text)
    }
}

/// A reply of another kind than the request's: a layer answered with what it got for
/// another request.
fn mismatched(what: &str) -> ErrorData {
    ErrorData::internal_error(
        format!("a layer answered a {what} request with the answer of another kind"),
        None,
    )
}

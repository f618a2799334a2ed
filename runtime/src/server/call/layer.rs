//! Step 3's first hook: the layers around every call ([`crate::layer`]). Without any, a call
//! goes straight to dispatch and pays nothing. With some, the server's layers wrap the rest
//! of the pipeline (dispatch: confirmation, the engine, the answer) once, on first use, and
//! each call passes through them; what the pipeline needs to dispatch rides in the
//! [`Call`] unseen.

use std::convert::Infallible;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use futures::future::BoxFuture;

use super::{Answer, CallLog, Pipeline};
use crate::layer::{Call, CallResult, CallService};

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
                let mut service = CallService::new(Dispatch(inner));
                // The first layer given is the outermost.
                for wrap in self.layers.wraps.iter().rev() {
                    service = wrap(service);
                }
                service
            })
            .clone()
    }

    /// Steps 3 to 6 through the layers.
    pub(super) fn through_layers(
        &self,
        call: Call,
        log: CallLog,
    ) -> impl Future<Output = Answer> + Send + 'static {
        let name = call.tool.shared_name().clone();
        let service = self.layered();
        async move {
            use tower::ServiceExt;
            let answer = match service.oneshot(call).await {
                Ok(result) => result.0,
                Err(never) => match never {},
            };
            log.finish(&name, &answer);
            answer
        }
    }
}

/// The rest of the pipeline as a service: what the innermost layer calls.
#[derive(Clone)]
struct Dispatch(Pipeline);

impl tower::Service<Call> for Dispatch {
    type Response = CallResult;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<CallResult, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let pipeline = self.0.clone();
        Box::pin(async move {
            // The outer step writes the call's log line.
            let answer = pipeline.dispatch(call, CallLog::silent()).await;
            Ok(CallResult(answer))
        })
    }
}

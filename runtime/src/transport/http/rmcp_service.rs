//! rmcp's service behind the endpoint, shared. axum's layers clone the service of a route
//! for every request they pass on (the edge's among them), and rmcp's clone copies its whole
//! configuration (its allowed hosts and origins, a cancellation token); most requests never
//! reach it (the fast path answers them). Here a clone is a reference count, and a request
//! that does reach rmcp is handled by the one service, without a copy.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{Request, Response};
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::SessionManager;

/// The response rmcp makes.
type RmcpResponse = Response<http_body_util::combinators::BoxBody<axum::body::Bytes, Infallible>>;

/// rmcp's `StreamableHttpService`, cloned as a reference.
pub(super) struct RmcpService<S, M>(Arc<StreamableHttpService<S, M>>);

impl<S, M> RmcpService<S, M> {
    pub(super) fn new(service: StreamableHttpService<S, M>) -> Self {
        RmcpService(Arc::new(service))
    }
}

impl<S, M> Clone for RmcpService<S, M> {
    fn clone(&self) -> Self {
        RmcpService(self.0.clone())
    }
}

impl<S, M> tower_service::Service<Request<Body>> for RmcpService<S, M>
where
    S: ServerHandler + Send + 'static,
    M: SessionManager,
{
    type Response = RmcpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<RmcpResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let service = self.0.clone();
        Box::pin(async move { Ok(service.handle(request).await) })
    }
}

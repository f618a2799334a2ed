//! A call's notifications on its own response: the server hands them to [`CallEvents`]
//! (found in the request's extensions), and [`deliver`] writes them as server-sent events
//! before the call's answer.
//!
//! - An answer that is an event stream already (sessions, `--sse-responses`, a request with
//!   a progress token) gets the call's notifications between its own events.
//! - A JSON answer stays JSON when the call sent nothing; when a notification comes first,
//!   the response becomes an event stream at once: the notifications as they come, then the
//!   answer as the last event.
//!
//! Only a request whose `Accept` names `text/event-stream` is given events (the
//! specification requires it of every POST).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use axum::body::{Body, BodyDataStream, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use futures::StreamExt;
use tokio::sync::mpsc;

/// Notifications waiting to be written past this many are dropped: a client that stops
/// reading cannot grow the server's memory.
const QUEUE: usize = 1024;

/// Where a call's notifications go: to its request's response, as events.
#[derive(Clone, Debug)]
pub(crate) struct CallEvents(Arc<Slot>);

/// A call's channel of events, made when the first is sent or the response waits for one:
/// most calls send none, and are answered without one.
#[derive(Debug, Default)]
struct Slot {
    channel: OnceLock<Channel>,
    /// The response no longer reads events (answered without them, or gone): what is sent
    /// now is dropped, not kept.
    closed: AtomicBool,
}

/// The channel: its sending end, and its receiving end until the response takes it.
#[derive(Debug)]
struct Channel {
    sender: mpsc::Sender<Vec<u8>>,
    receiver: Mutex<Option<mpsc::Receiver<Vec<u8>>>>,
}

impl Slot {
    fn made(&self) -> &Channel {
        self.channel.get_or_init(|| {
            let (sender, receiver) = mpsc::channel(QUEUE);
            Channel {
                sender,
                receiver: Mutex::new(Some(receiver)),
            }
        })
    }

    /// The receiving end, if the response has not taken it (a lock poisoned by a panic
    /// elsewhere holds nothing inconsistent: an `Option`).
    fn take_receiver(&self) -> Option<mpsc::Receiver<Vec<u8>>> {
        let channel = self.channel.get()?;
        channel
            .receiver
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl CallEvents {
    /// Queues `message` (a whole JSON-RPC notification); dropped when the client is not
    /// reading or the response is gone (or was answered without events).
    pub(crate) fn send(&self, message: Vec<u8>) {
        let slot = &self.0;
        if slot.closed.load(Ordering::Acquire) && slot.channel.get().is_none() {
            tracing::debug!("a notification came after its call's response was made");
            return;
        }
        let channel = slot.made();
        // Closed while the channel was being made: nothing will read it.
        if slot.closed.load(Ordering::Acquire) {
            drop(slot.take_receiver());
        }
        if channel.sender.try_send(message).is_err() {
            tracing::debug!("a notification could not be queued for its call's response");
        }
    }
}

/// Where a call's events are read, for its response. Dropped (the response made without
/// them, or gone), it closes the call's channel: later events are dropped, not kept.
pub(super) struct Events(Arc<Slot>);

impl Events {
    /// Whether an event was sent (or the channel made) yet.
    pub(super) fn any(&self) -> bool {
        self.0.channel.get().is_some()
    }

    /// The receiving end, the channel made now if it was not. (`Events` is not `Clone`, and
    /// this takes it: the receiver is there.)
    fn receiver(self) -> mpsc::Receiver<Vec<u8>> {
        self.0.made();
        self.0.take_receiver().unwrap_or_else(|| mpsc::channel(1).1)
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        self.0.closed.store(true, Ordering::Release);
        // A receiver the response never took: later sends fail instead of queueing.
        drop(self.0.take_receiver());
    }
}

/// A new call's events, and where they are read.
pub(super) fn channel() -> (CallEvents, Events) {
    let slot = Arc::new(Slot::default());
    (CallEvents(slot.clone()), Events(slot))
}

type Answer = Pin<Box<dyn Future<Output = Response> + Send>>;

/// The response to a call whose notifications come on `events`, answered by `answer`.
pub(super) async fn deliver(
    events: Events,
    answer: impl Future<Output = Response> + Send + 'static,
) -> Response {
    let mut answer: Answer = Box::pin(answer);
    let mut events = events.receiver();
    let first = tokio::select! {
        biased;
        Some(event) = events.recv() => Err(event),
        response = &mut answer => Ok(response),
    };
    let mut merged = Merged {
        events,
        answer: None,
        body: None,
        last: None,
    };
    let first = match first {
        Ok(response) if is_stream(&response) => {
            // Already an event stream: the notifications go between its events.
            let (parts, body) = response.into_parts();
            merged.body = Some(body.into_data_stream());
            return Response::from_parts(parts, Body::from_stream(merged.stream(None)));
        }
        Ok(response) => match merged.events.try_recv() {
            Ok(event) => {
                merged.answer = Some(Box::pin(std::future::ready(response)));
                event
            }
            Err(_) => return response,
        },
        Err(event) => {
            merged.answer = Some(answer);
            event
        }
    };
    let mut response = Response::new(Body::from_stream(merged.stream(Some(first))));
    event_stream_headers(response.headers_mut());
    response
}

/// The headers of an event-stream response, as rmcp sends them (and no proxy buffering).
pub(super) fn event_stream_headers(headers: &mut HeaderMap) {
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
}

fn is_stream(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|t| t.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"))
}

/// The events of one response: the call's notifications, then its answer.
struct Merged {
    events: mpsc::Receiver<Vec<u8>>,
    /// The answer, not in yet.
    answer: Option<Answer>,
    /// The answer's own event stream, being passed on.
    body: Option<BodyDataStream>,
    /// The answer as the last event.
    last: Option<Bytes>,
}

impl Merged {
    fn stream(
        self,
        first: Option<Vec<u8>>,
    ) -> impl futures::Stream<Item = Result<Bytes, axum::Error>> + Send {
        let first = futures::stream::iter(first.map(|event| Ok(framed(&event))));
        first.chain(futures::stream::unfold(self, |mut merged| async move {
            let next = merged.next().await?;
            Some((Ok(next), merged))
        }))
    }

    /// The next bytes to write, or `None` at the end.
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if let Some(answer) = &mut self.answer {
                let response = tokio::select! {
                    biased;
                    Some(event) = self.events.recv() => return Some(framed(&event)),
                    response = answer => response,
                };
                self.answer = None;
                if is_stream(&response) {
                    self.body = Some(response.into_body().into_data_stream());
                } else {
                    self.last = last_event(response).await;
                }
            } else if let Some(body) = &mut self.body {
                let data = tokio::select! {
                    biased;
                    Some(event) = self.events.recv() => return Some(framed(&event)),
                    data = body.next() => data,
                };
                match data {
                    Some(Ok(data)) => return Some(data),
                    Some(Err(err)) => {
                        tracing::debug!(%err, "a call's event stream failed");
                        self.body = None;
                    }
                    None => self.body = None,
                }
            } else {
                if let Ok(event) = self.events.try_recv() {
                    return Some(framed(&event));
                }
                return self.last.take();
            }
        }
    }
}

/// A JSON answer as an event; `None` for an HTTP error (it has no JSON-RPC to send once the
/// stream started; the client sees the stream end without an answer, as if cut).
async fn last_event(response: Response) -> Option<Bytes> {
    if response.status() != StatusCode::OK {
        tracing::debug!(status = %response.status(), "a call's answer came as an HTTP error after its notifications");
        return None;
    }
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .ok()?;
    Some(framed(&body))
}

/// `message` as one server-sent event.
fn framed(message: &[u8]) -> Bytes {
    let mut event = Vec::with_capacity(message.len() + 8);
    event.extend_from_slice(b"data: ");
    event.extend_from_slice(message);
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn json(text: &'static str) -> Response {
        let mut response = Response::new(Body::from(text));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response
    }

    async fn text(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn a_call_that_sends_nothing_stays_json() {
        let (events, rx) = channel();
        let response = deliver(rx, async move {
            drop(events);
            json(r#"{"id":1}"#)
        })
        .await;
        assert!(!is_stream(&response));
        assert_eq!(text(response).await, r#"{"id":1}"#);
    }

    #[tokio::test]
    async fn the_channel_is_made_by_the_first_event_and_keeps_what_came_before_the_wait() {
        let (events, read) = channel();
        assert!(!read.any(), "no event, no channel");
        // Sent during a first step, before the response waits for anything.
        events.send(b"{\"n\":1}".to_vec());
        assert!(read.any());
        let response = deliver(read, std::future::ready(json(r#"{"id":1}"#))).await;
        assert!(is_stream(&response));
        assert_eq!(
            text(response).await,
            "data: {\"n\":1}\n\ndata: {\"id\":1}\n\n"
        );
    }

    #[test]
    fn an_event_after_a_response_made_without_events_is_dropped_not_kept() {
        let (events, read) = channel();
        drop(read);
        events.send(b"{\"n\":1}".to_vec());
        assert!(
            events.0.channel.get().is_none(),
            "no channel made for nobody"
        );
        // Made before the response went (a race with a send): closed with it.
        let (events, read) = channel();
        events.0.made();
        drop(read);
        events.send(b"{\"n\":2}".to_vec());
        let channel = events.0.channel.get().unwrap();
        assert!(channel.sender.is_closed(), "nothing reads the channel");
    }

    #[tokio::test]
    async fn notifications_come_first_as_events_then_the_answer() {
        let (events, rx) = channel();
        let (go, wait) = tokio::sync::oneshot::channel::<()>();
        let response = deliver(rx, async move {
            events.send(b"{\"n\":1}".to_vec());
            let _ = wait.await;
            events.send(b"{\"n\":2}".to_vec());
            json(r#"{"id":1}"#)
        });
        // The response starts (as a stream) before the answer is in.
        let response = response.await;
        assert!(is_stream(&response));
        go.send(()).unwrap();
        assert_eq!(
            text(response).await,
            "data: {\"n\":1}\n\ndata: {\"n\":2}\n\ndata: {\"id\":1}\n\n"
        );
    }

    #[tokio::test]
    async fn an_answer_stream_gets_the_notifications_between_its_events() {
        let (events, rx) = channel();
        let answer = async move {
            let events = events.clone();
            let stream = futures::stream::once(async move {
                events.send(b"{\"n\":1}".to_vec());
                tokio::task::yield_now().await;
                Ok::<_, axum::Error>(Bytes::from_static(b"data: {\"id\":1}\n\n"))
            });
            let mut response = Response::new(Body::from_stream(stream));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            );
            response
        };
        let response = deliver(rx, answer).await;
        let text = text(response).await;
        assert!(text.contains("data: {\"n\":1}\n\n"), "{text}");
        assert!(text.ends_with("data: {\"id\":1}\n\n"), "{text}");
    }
}

//! The one function that answers every request a fast path reads ([`Front::answer`]), for
//! every way in: the stdio session, the HTTP fast path and rmcp's handler call it with the
//! request they decoded (`transport/message/request.rs`) and what came with it, and get an
//! answer ready now or, for a call that waits, a future of it. They differ only in how they
//! read the request and write the answer (`encode.rs`).
//!
//! A call is scheduled the same for every way in: its first step runs here, where the
//! request was read, and most calls finish in it, answered without a task or a thread hop;
//! the rest of a call that waits is the future the way in runs in a task of the server's
//! tracker (a stop waits for it), on a pool thread when its tool is known to block
//! (`call/inline.rs`).

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Waker};

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, Implementation, InitializeRequestParams,
    ProtocolVersion, ServerResult,
};
use tokio_util::sync::CancellationToken;

use super::Front;
use crate::server::call::inline::Verdict;
use crate::server::call::{CallReply, CallSetup, Way, lost};
use crate::transport::message::FastRequest;

/// A request's answer: ready now, or (a call that waits) a future of it.
// Not boxed: most calls end in their first step, and their answer is written from here,
// without an allocation.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Answer<F> {
    Now(Reply),
    /// The rest of a call: run it in a task of the server's tracker.
    Later(F),
}

/// An answer ready to write.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Reply {
    /// A result serialized once and kept (a first page of tools, `server/discover`).
    Kept(Arc<String>),
    /// `initialize`'s result, serialized once per revision asked for, and the revision
    /// agreed.
    Handshake {
        result: Arc<String>,
        #[cfg_attr(not(feature = "http"), allow(dead_code))]
        agreed: ProtocolVersion,
    },
    /// `ping`'s empty result.
    Pong,
    /// A call's outcome.
    Call(CallReply),
}

/// What comes with a request besides itself.
pub(crate) struct Asked {
    /// Which way in read it.
    pub(crate) way: Way,
    /// Who asks and how: the caller, the channel to the client, the trace, the transport,
    /// and the revision (for the metrics).
    pub(crate) setup: CallSetup,
    /// Stops a call: the client's cancellation, its session's end.
    pub(crate) cancel: CancellationToken,
}

impl Asked {
    /// A request read by `way`, with `setup`, that nothing cancels but the server's stop.
    #[inline]
    pub(crate) fn by(way: Way, setup: CallSetup) -> Asked {
        Asked {
            way,
            setup,
            cancel: CancellationToken::new(),
        }
    }
}

impl Front {
    /// The answer to `request`, or `None` for rmcp's service to answer it: a list that does
    /// not fit on one page, an `initialize` the server refuses (rmcp answers with its
    /// error). Each answer but a call's (which its log counts) is measured here.
    #[inline]
    pub(crate) fn answer(
        self: &Arc<Self>,
        request: FastRequest,
        asked: Asked,
    ) -> Option<Answer<impl Future<Output = CallReply> + Send + 'static>> {
        match request {
            // The common case first; its log measures it.
            FastRequest::Call { params, .. } => Some(match self.call(params, asked) {
                FirstStep::Done(answer) => Answer::Now(Reply::Call(answer)),
                FirstStep::Rest(rest) => Answer::Later(rest),
            }),
            other => self.answer_now(other, &asked).map(Answer::Now),
        }
    }

    /// The answer to a request that is not a call, measured: its result made once and kept.
    fn answer_now(&self, request: FastRequest, asked: &Asked) -> Option<Reply> {
        let began = self.clock();
        let method = request.method();
        let mut version = match request.revision().per_request() {
            true => Some(ProtocolVersion::V_2026_07_28),
            false => asked.setup.version.clone(),
        };
        let reply = match request {
            FastRequest::Call { .. } => return None, // `answer` runs it
            FastRequest::List { revision, .. } => {
                let list = self.first_page(&asked.setup.caller, revision.per_request())?;
                Reply::Kept(list)
            }
            FastRequest::Discover { .. } => Reply::Kept(self.cached_discover()),
            FastRequest::Ping { .. } => Reply::Pong,
            FastRequest::Initialize { params, .. } => {
                let (result, agreed) = self.handshake(params.protocol_version)?;
                version = Some(agreed.clone());
                Reply::Handshake { result, agreed }
            }
        };
        let transport = asked.setup.transport.unwrap_or(self.transport);
        self.answered(began, method, transport, version.as_ref());
        Some(reply)
    }

    /// Runs the first step of a call of `params` here, and returns its answer or the rest
    /// of it (run on a pool thread when its tool blocks). [`Front::answer`] answers a call
    /// with it; a way in that reads nothing else (rmcp's handler, the `call` command) calls
    /// it directly.
    #[inline]
    pub(crate) fn call(
        self: &Arc<Self>,
        mut params: CallToolRequestParams,
        asked: Asked,
    ) -> FirstStep<impl Future<Output = CallReply> + Send + 'static> {
        // In search mode, a `call_tool` call is the call of the tool it names from here on.
        if self.pipeline.tool_search.is_some() {
            crate::server::tool_search::ToolSearch::unwrap(&mut params);
        }
        let Asked { way, setup, cancel } = asked;
        let setup = self.with_session(setup);
        let blocking = &self.pipeline.blocking;
        let verdict = blocking.verdict(&params.name);
        let reviewed = (verdict == Verdict::Review).then(|| params.name.to_string());
        let front = self.clone();
        let work = async move { front.pipeline.call(params, cancel, setup, way).await };
        let mut work = Box::pin(work);
        // Its first step here, unless the tool is known to block. A waker that does nothing
        // is enough for a first poll: a future that is not ready registers the waker of its
        // next poll, which the task that takes it over makes.
        let inline = verdict == Verdict::Inline;
        if inline {
            let step = blocking.begin();
            let polled = work.as_mut().poll(&mut Context::from_waker(Waker::noop()));
            blocking.end(step);
            if let Poll::Ready(answer) = polled {
                return FirstStep::Done(answer);
            }
        }
        let rest = if inline { Ok(work) } else { Err(work) };
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

    /// `setup` with this session's channel and log level where the way in gave it none.
    pub(crate) fn with_session(&self, mut setup: CallSetup) -> CallSetup {
        if setup.sink.is_none() {
            setup.sink = self.notices.clone();
        }
        if setup.level.is_none() {
            setup.level = Some(self.level.clone());
        }
        if self.keeps_sessions {
            setup.session = Some(self.ends.id);
        }
        setup.transport = Some(self.transport);
        setup
    }

    /// The revision an `initialize` asking for `asked` agrees on (`None`: refused).
    #[cfg(feature = "http")]
    pub(crate) fn agreed(&self, asked: ProtocolVersion) -> Option<ProtocolVersion> {
        self.handshake(asked).map(|(_, agreed)| agreed)
    }

    /// The answer to an `initialize` asking for `asked`, as the server's handler negotiates it
    /// (`None` where it refuses: rmcp then answers with its error): its result and the
    /// revision agreed. Negotiation reads only the revision asked for, so each is made once.
    fn handshake(&self, asked: ProtocolVersion) -> Option<(Arc<String>, ProtocolVersion)> {
        let slot = ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .position(|known| *known == asked)
            .unwrap_or(ProtocolVersion::KNOWN_VERSIONS.len());
        let made = self.handshakes[slot].get_or_init(|| {
            let params = InitializeRequestParams::new(
                ClientCapabilities::default(),
                Implementation::new("client", "0"),
            )
            .with_protocol_version(asked);
            let result = self.negotiate_initialize(&params).ok()?;
            let agreed = result.protocol_version.clone();
            let result = serde_json::to_string(&ServerResult::InitializeResult(result)).ok()?;
            Some((Arc::new(result), agreed))
        });
        made.clone()
    }
}

/// `initialize`'s answers, by the revision asked for (each of rmcp's known revisions, then
/// any other), made on first use.
pub(super) type Handshakes = Box<[OnceLock<Option<(Arc<String>, ProtocolVersion)>>]>;

/// No handshake made yet.
pub(super) fn handshakes() -> Handshakes {
    let revisions = ProtocolVersion::KNOWN_VERSIONS.len() + 1;
    (0..revisions).map(|_| OnceLock::new()).collect()
}

/// A call after its first step. (Not boxed: most calls end in their first step, and their
/// answer is written from here, without an allocation.)
#[allow(clippy::large_enum_variant)]
pub(crate) enum FirstStep<F> {
    /// It finished: the answer.
    Done(CallReply),
    /// It goes on: the future gives the answer.
    Rest(F),
}

impl<F: Future<Output = CallReply> + Send + 'static> FirstStep<F> {
    /// The answer, the rest of the call awaited here (tracked by the server: a stop waits
    /// for it), for a way in that awaits it where it asked (rmcp's handler, which runs each
    /// request in a task of its own; the `call` command).
    pub(crate) async fn settled(self, front: &Front) -> CallReply {
        match self {
            FirstStep::Done(answer) => answer,
            FirstStep::Rest(rest) => front.pipeline.tracker.track_future(rest).await,
        }
    }
}

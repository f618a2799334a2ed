//! rmcp's `ServerHandler` on the [`Front`]: how rmcp's service (any transport) reaches the
//! server, one more caller of the front. Every method of the protocol is answered here
//! (`handler.rs`): a call through the front's [`Front::call`], `tools/list` and
//! `server/discover` from the front's lists, the lists of resources, templates and prompts,
//! reads, prompts, completions and subscriptions (`items.rs`), each timed (`measure.rs`).
//! Over HTTP, a call on rmcp's path talks to its client through its request's peer
//! (`peer.rs`).

// rmcp marks MCP logging deprecated (SEP-2577); protocol 2025-11-25 still has it, and
// `ClientLog` honours it.
#![allow(deprecated)]

mod handler;
mod items;
mod measure;
#[cfg(feature = "http")]
mod peer;

#[cfg(feature = "http")]
use std::sync::Arc;

use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use crate::context::Caller;
#[cfg(feature = "http")]
use crate::context::ClientChannel;
use crate::server::front::{CallSetup, Front};

impl Front {
    /// A method about resources is not found on a server without them (as rmcp answers).
    fn has_resources<M: rmcp::model::ConstString>(&self) -> Result<(), ErrorData> {
        match self.info.capabilities.resources {
            Some(_) => Ok(()),
            None => Err(ErrorData::method_not_found::<M>()),
        }
    }

    /// A method about prompts is not found on a server without them.
    fn has_prompts<M: rmcp::model::ConstString>(&self) -> Result<(), ErrorData> {
        match self.info.capabilities.prompts {
            Some(_) => Ok(()),
            None => Err(ErrorData::method_not_found::<M>()),
        }
    }

    /// What a request on rmcp's path runs with (a call, a read, a prompt): its `_meta`, its
    /// caller, and its channel to the client. Over HTTP that is its request's peer, whose
    /// notifications must leave before the answer: await the [`Flush`] once it is made.
    fn setup_of(&self, context: &RequestContext<RoleServer>) -> (CallSetup, Flush) {
        // Over HTTP, the request's notifications go through its peer.
        #[cfg(feature = "http")]
        let peer = peer::PeerNotices::for_call(self, context);
        #[cfg(feature = "http")]
        let sink = peer.clone().map(|peer| peer as Arc<dyn ClientChannel>);
        #[cfg(not(feature = "http"))]
        let sink = None;
        let mut setup = CallSetup {
            sink,
            caller: caller_of(context),
            #[cfg(feature = "http")]
            trace: crate::trace::active()
                .then(|| context.extensions.get::<axum::http::request::Parts>())
                .flatten()
                .and_then(|parts| parts.extensions.get::<crate::trace::Handoff>())
                .cloned(),
            ..CallSetup::of_meta(&context.meta)
        };
        // Its session's revision, when measured (a request of 2026-07-28 carries its own).
        if setup.version.is_none() {
            setup.version = self.version_for(context);
        }
        #[cfg(feature = "http")]
        let flush = Flush(peer);
        #[cfg(not(feature = "http"))]
        let flush = Flush;
        (self.with_session(setup), flush)
    }
}

/// The notifications of a request on rmcp's path, to let leave before its answer.
#[cfg(feature = "http")]
struct Flush(Option<Arc<peer::PeerNotices>>);
#[cfg(not(feature = "http"))]
struct Flush;

impl Flush {
    /// Waits for the request's notifications to leave (over HTTP; at once otherwise).
    async fn done(self) {
        #[cfg(feature = "http")]
        if let Some(peer) = self.0 {
            peer.flush().await;
        }
    }
}

/// Who sent the request: the caller the HTTP transport authenticated, else the local user.
fn caller_of(context: &RequestContext<RoleServer>) -> Caller {
    #[cfg(feature = "http")]
    if let Some(caller) = context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Caller>())
    {
        return caller.clone();
    }
    let _ = context;
    Caller::anonymous()
}

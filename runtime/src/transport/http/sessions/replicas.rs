//! What a replica does for the sessions replicas share (`shared.rs`): serving a session
//! another replica opened, handing a client's answer to the replica that asked, and acting on
//! what the others tell.

use std::sync::{Arc, Weak};

use rmcp::transport::streamable_http_server::session::SessionManager;

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::super::headers::LAST_EVENT_ID;
use super::questions::{self, Asker, Resumed};
use super::shared::{News, Record, Shared};
use super::{Admission, SessionRoute, Sessions};
use crate::task::Messages;

impl Sessions {
    /// Serves here session `id`, which another replica opened: its owner is known from now
    /// on, and (with the fast path) the server's state of it is made from its record. `None`
    /// leaves it to rmcp, which restores it from the record (`opened.rs`).
    pub(super) fn adopt(&self, id: &str, record: Record) -> Option<SessionRoute> {
        if let Some(owner) = &record.owner {
            self.owners().insert(id.to_owned(), owner.clone());
        }
        let core = self
            .adopter
            .as_ref()?
            .adopt(&record.handshake, record.level.as_deref())?;
        tracing::debug!(
            session = id,
            "a session another replica opened is served here"
        );
        Some(self.opened.adopt(id, core, record.handshake))
    }

    /// A client's answer (`frame`) in session `id`, to a question the server asked, with
    /// replicas sharing sessions: one this replica asked goes on to rmcp under the id rmcp
    /// gave it; one another replica asked is told to them all and accepted here (202), or
    /// refused (503) when the store failed, since the call that asked would wait in vain; one
    /// whose id names no replica goes on to rmcp here only (told to the others, it could be
    /// taken by a question of theirs with the same number).
    pub(in crate::transport::http) async fn answered(
        &self,
        id: &str,
        frame: &[u8],
        route: Option<&SessionRoute>,
    ) -> Answer {
        let Some(shared) = &self.shared else {
            return Answer::Onward(None);
        };
        let Ok(frame) = serde_json::from_slice::<serde_json::Value>(frame) else {
            return Answer::Onward(None);
        };
        match questions::asker(&frame["id"], shared.tag()) {
            Asker::Here(own) => {
                let frame = questions::restored(frame, &own);
                Answer::Onward(frame.and_then(|frame| serde_json::to_vec(&frame).ok()))
            }
            Asker::Elsewhere => match shared.tell(id, News::Answer(frame)).await {
                Ok(()) => Answer::Accepted,
                Err(_) => Answer::Lost,
            },
            Asker::Untagged => match route {
                // No question of this replica waits for it: nothing to hand it to.
                Some(SessionRoute::Fast(..)) => Answer::Accepted,
                _ => Answer::Onward(None),
            },
        }
    }

    /// A `GET` that resumes a stream (`Last-Event-ID`), with replicas sharing sessions: one
    /// this replica served resumes here under the event id rmcp gave; the session's `GET`
    /// stream another replica served starts afresh here (what was sent meanwhile is
    /// missed); a call's stream another replica served cannot be resumed here: 503 (if that
    /// replica still runs, a retry may reach it; if it is gone, so is the call, and the
    /// client's retries end with an error instead of waiting forever).
    /// Returns the refusal, if it is refused.
    pub(in crate::transport::http) fn resuming(&self, headers: &mut HeaderMap) -> Option<Response> {
        let (Some(shared), Some(last)) = (&self.shared, headers.get(&LAST_EVENT_ID)) else {
            return None;
        };
        let last = last.to_str().unwrap_or_default();
        match questions::resumed(last, shared.tag()) {
            Resumed::Here(own) => {
                if let Ok(own) = HeaderValue::from_str(&own) {
                    headers.insert(LAST_EVENT_ID.clone(), own);
                }
            }
            Resumed::Elsewhere { call: false } => {
                headers.remove(&LAST_EVENT_ID);
            }
            Resumed::Elsewhere { call: true } => return Some(elsewhere()),
            Resumed::Untagged => {}
        }
        None
    }

    /// `admission`'s session (`id`) subscribes to `uri` (`on`) or unsubscribes, once rmcp
    /// answered.
    pub(in crate::transport::http) fn subscribing(
        &self,
        admission: &mut Admission,
        id: &str,
        uri: String,
        on: bool,
        caller: Option<&crate::context::Caller>,
    ) {
        if self.shared.is_some() {
            let caller = caller.cloned().unwrap_or_default();
            admission.subscription = Some((id.to_owned(), uri, on, caller));
        }
    }

    /// `admission`'s session (`id`) is set to log at `level`, once rmcp answered.
    pub(in crate::transport::http) fn setting_level(
        &self,
        admission: &mut Admission,
        id: &str,
        level: String,
    ) {
        if self.shared.is_some() {
            admission.level = Some((id.to_owned(), level));
        }
    }

    /// What other replicas tell of sessions, acted on while the sessions are served.
    pub(super) fn listening(sessions: &Arc<Sessions>, mut messages: Messages) {
        let sessions: Weak<Sessions> = Arc::downgrade(sessions);
        tokio::spawn(async move {
            while let Some(text) = messages.recv().await {
                let Some(sessions) = sessions.upgrade() else {
                    return;
                };
                let heard = sessions
                    .shared
                    .as_ref()
                    .and_then(|shared| shared.hear(&text));
                // Each on its own: one session's slow channel holds up no other's.
                if let Some((id, news)) = heard {
                    tokio::spawn(async move { sessions.heard(&id, news).await });
                }
            }
        });
    }

    /// Another replica tells `news` of session `id`: an answer to a question of this
    /// replica goes to rmcp's session here, under the id rmcp gave it, a log level to the server's state of the session,
    /// an end ends it here too.
    async fn heard(&self, id: &str, news: News) {
        let session: rmcp::transport::common::server_side_http::SessionId = id.into();
        match news {
            News::Answer(frame) => {
                let frame = match questions::asker(&frame["id"], shared_tag(&self.shared)) {
                    Asker::Here(own) => questions::restored(frame, &own),
                    Asker::Elsewhere | Asker::Untagged => None,
                };
                let Some(frame) = frame else {
                    return;
                };
                if !self.manager.sessions.read().await.contains_key(id) {
                    return;
                }
                match serde_json::from_value(frame) {
                    Ok(message) => {
                        if let Err(err) = self.manager.accept_message(&session, message).await {
                            tracing::debug!(%err, session = id, "an answer from another replica");
                        }
                    }
                    Err(err) => tracing::debug!(%err, "an answer that does not read"),
                }
            }
            News::Subscribed { .. } => self.subscribed_elsewhere(id),
            News::Level(level) => {
                if let Some(core) = self.opened.core(id) {
                    core.set_level(&level);
                }
            }
            News::Ended => {
                let here = self.opened.end(id);
                let rmcp = self.manager.sessions.read().await.contains_key(id);
                if rmcp && let Err(err) = self.manager.close_session(&session).await {
                    tracing::debug!(%err, session = id, "an ended session");
                }
                self.owners().remove(id);
                if here || rmcp {
                    tracing::debug!(session = id, "a session another replica ended");
                }
            }
        }
    }
}

/// What becomes of a client's answer to a question ([`Sessions::answered`]).
#[derive(Debug, PartialEq)]
pub(in crate::transport::http) enum Answer {
    /// Taken here: 202.
    Accepted,
    /// On to rmcp, with this body instead of the one that came when given.
    Onward(Option<Vec<u8>>),
    /// For another replica, which could not be told (the store failed): 503.
    Lost,
}

/// The tag of this replica's questions (none without a shared store).
fn shared_tag(shared: &Option<Arc<Shared>>) -> &str {
    shared.as_ref().map_or("", |shared| shared.tag())
}

/// A call's stream another replica served, which a client would resume here.
fn elsewhere() -> Response {
    super::super::body::json_error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        -32000,
        "this stream was served by another replica, and can be resumed there only: if it \
         still runs, try again; if it stopped, the call was lost with it",
    )
}

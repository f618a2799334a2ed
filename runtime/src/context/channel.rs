//! The two-way channel from a call to its client: notifications (through [`NoticeSink`]), and
//! requests such as `elicitation/create`, whose answers come back on the same session. Each
//! serving side provides its own: this module names no transport. A way in that cannot carry
//! a request to the client (stateless HTTP, a request on the 2026-07-28 revision, where a
//! server asks through an `input_required` result instead) declines it, and says why.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ClientCapabilities, ClientResult, ErrorData, ServerRequest};

use super::NoticeSink;

/// The client's answer to a request.
pub(crate) type Reply = Pin<Box<dyn Future<Output = Result<ClientResult, ChannelError>> + Send>>;

/// Why a request to the client got no result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ChannelError {
    /// This way in cannot carry a request to the client; the text says why and what to do.
    Unsupported(&'static str),
    /// The client did not declare the capability the request needs (named).
    NotDeclared(&'static str),
    /// The client answered with an error.
    Client(ErrorData),
    /// The session ended before the client answered.
    Closed,
}

impl std::fmt::Display for ChannelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChannelError::Unsupported(why) => f.write_str(why),
            ChannelError::NotDeclared(capability) => {
                write!(
                    f,
                    "the client did not declare the `{capability}` capability"
                )
            }
            ChannelError::Client(error) => {
                write!(f, "the client answered with an error: {}", error.message)
            }
            ChannelError::Closed => f.write_str("the session ended before the client answered"),
        }
    }
}

/// A session's channel to its client, provided by the side that serves it.
pub(crate) trait ClientChannel: NoticeSink {
    /// The capabilities the client declared, once known.
    fn capabilities(&self) -> Option<Arc<ClientCapabilities>>;

    /// Sends `request` to the client; its answer arrives through the returned future.
    fn request(&self, request: ServerRequest) -> Reply;

    /// While the client is not reading what it was sent (its session's backlog is over its
    /// limit), what a call that has not started yet waits for before it starts; `None` when
    /// it need not wait.
    fn backed_up(&self) -> Option<Pin<Box<dyn Future<Output = ()> + Send + '_>>> {
        None
    }
}

/// What a channel sends the client for request `id` that the call gave up (its timeout, its
/// cancellation) before the answer: the client stops asking its user.
pub(crate) fn withdrawal(id: rmcp::model::RequestId) -> rmcp::model::ServerNotification {
    let param = rmcp::model::CancelledNotificationParam::new(
        Some(id),
        Some("the call that asked ended before the answer".into()),
    );
    rmcp::model::ServerNotification::CancelledNotification(rmcp::model::CancelledNotification::new(
        param,
    ))
}

/// The reply of a channel that cannot ask: `why`, at once.
pub(crate) fn declined(why: ChannelError) -> Reply {
    Box::pin(std::future::ready(Err(why)))
}

/// Whether `capabilities` (when known) allow `request`: an elicitation needs `elicitation`,
/// sampling needs `sampling`, listing roots needs `roots`.
pub(crate) fn permits(
    capabilities: Option<&ClientCapabilities>,
    request: &ServerRequest,
) -> Result<(), ChannelError> {
    let Some(capabilities) = capabilities else {
        return Ok(());
    };
    let (needed, declared) = match request {
        ServerRequest::ElicitRequest(elicit) => {
            let url = matches!(
                elicit.params,
                rmcp::model::ElicitRequestParams::UrlElicitationParams { .. }
            );
            elicitation(capabilities, url)
        }
        ServerRequest::CreateMessageRequest(_) => ("sampling", capabilities.sampling.is_some()),
        ServerRequest::ListRootsRequest(_) => ("roots", capabilities.roots.is_some()),
        _ => return Ok(()),
    };
    if declared {
        Ok(())
    } else {
        Err(ChannelError::NotDeclared(needed))
    }
}

/// Whether `capabilities` allow a form (or, with `url`, a URL-mode) elicitation, and the
/// capability's name for the message. An `elicitation` capability that names neither mode
/// means forms (as revisions before URL mode wrote it).
pub(crate) fn elicitation(capabilities: &ClientCapabilities, url: bool) -> (&'static str, bool) {
    let declared = capabilities.elicitation.as_ref();
    if url {
        ("elicitation.url", declared.is_some_and(|e| e.url.is_some()))
    } else {
        (
            "elicitation",
            declared.is_some_and(|e| e.form.is_some() || e.url.is_none()),
        )
    }
}

/// What a call needs to ask its client: the session's channel (when it has one), and whether
/// the request carried its own revision.
#[derive(Clone)]
pub(crate) struct Asker {
    pub(crate) channel: Option<Arc<dyn ClientChannel>>,
    pub(crate) per_request: bool,
}

impl Asker {
    /// Sends `request` to the client, when the way the call came in can carry it and the
    /// client declared what it needs; else declines, saying why.
    pub(crate) fn ask(&self, request: ServerRequest) -> Reply {
        if self.per_request {
            return declined(ChannelError::Unsupported(
                "on the 2026-07-28 revision a server cannot send a request to the client \
                 during a call; it answers with an input_required result instead",
            ));
        }
        let Some(channel) = &self.channel else {
            return declined(ChannelError::Unsupported(
                "this call has no client to ask (it was run in-process, by the `call` command)",
            ));
        };
        if let Err(why) = permits(channel.capabilities().as_deref(), &request) {
            return declined(why);
        }
        channel.request(request)
    }
}

/// A tool parameter that asks the call's client (test switch, feature `__test-switches`;
/// not public API): the tests of the two-way channel use it until confirmation and
/// elicitation give tools a typed way to ask.
///
/// ```
/// # #[cfg(all(feature = "__test-switches", feature = "testing"))]
/// # {
/// use toolsmith::rmcp::model::{ClientResult, ServerRequest};
///
/// /// Ping the user's client.
/// #[toolsmith::tool(read_only)]
/// async fn ask_user(client: toolsmith::__private::AskClient) -> String {
///     let ping: ServerRequest = serde_json::from_value(serde_json::json!({"method": "ping"})).unwrap();
///     match client.ask(ping).await {
///         Ok(ClientResult::EmptyResult(_)) => "answered".into(),
///         Ok(other) => format!("another answer: {other:?}"),
///         Err(why) => why,
///     }
/// }
///
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "ask_user"));
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let asked = client.call("ask_user", serde_json::json!({})).await.unwrap();
/// assert_eq!(asked.text(), "answered");
/// # });
/// # }
/// ```
#[cfg(feature = "__test-switches")]
#[doc(hidden)]
pub struct AskClient(pub(crate) Asker);

#[cfg(feature = "__test-switches")]
impl AskClient {
    /// Sends `request` to the client and waits for its answer; the error says why none came.
    pub async fn ask(&self, request: ServerRequest) -> Result<ClientResult, String> {
        self.0.ask(request).await.map_err(|err| err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ClientCapabilities;
    use serde_json::json;

    use super::elicitation;

    fn declared(capabilities: serde_json::Value) -> ClientCapabilities {
        serde_json::from_value(capabilities).unwrap()
    }

    #[test]
    fn forms_and_urls_need_their_own_mode() {
        let empty = declared(json!({"elicitation": {}}));
        assert!(elicitation(&empty, false).1, "no mode named: forms");
        assert!(!elicitation(&empty, true).1);
        let url_only = declared(json!({"elicitation": {"url": {}}}));
        assert!(!elicitation(&url_only, false).1);
        assert_eq!(elicitation(&url_only, true), ("elicitation.url", true));
        let both = declared(json!({"elicitation": {"form": {}, "url": {}}}));
        assert!(elicitation(&both, false).1 && elicitation(&both, true).1);
        assert!(!elicitation(&declared(json!({})), false).1);
    }
}

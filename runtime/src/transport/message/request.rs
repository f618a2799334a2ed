//! A client's message read once, for every way in: its [`Envelope`] (method, id, params as
//! raw JSON, whether it is a response), read in one pass over the bytes, and the one
//! allow-list ([`Envelope::request`]) that decides what the server answers on a fast path
//! and what it leaves to rmcp's service, its params decoded as rmcp's own types. The HTTP
//! edge reads the envelope for what it screens (sessions, authorization, traces) and hands
//! it on; the stdio session reads it from its line.

use std::borrow::Cow;
use std::fmt;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, InitializeRequestParams, PaginatedRequestParams,
    ProtocolVersion, RequestId, RequestMetaObject,
};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// A JSON-RPC message's members, read in one pass without decoding its params.
#[derive(Default)]
pub(crate) struct Envelope<'a> {
    /// `jsonrpc` is `"2.0"`, and the message has no member JSON-RPC does not define (nor
    /// one twice): only such a message is answered on a fast path.
    plain: bool,
    pub(crate) method: Option<Cow<'a, str>>,
    /// The id as it came (a string, a number, `null`).
    pub(crate) id: Option<&'a RawValue>,
    pub(crate) params: Option<&'a RawValue>,
    /// It has a `result` or an `error`: a response.
    pub(crate) reply: bool,
}

impl<'a> Envelope<'a> {
    /// The envelope of `message`, or `None` when it is not a JSON object whose `method` is
    /// a string.
    pub(crate) fn read(message: &'a [u8]) -> Option<Envelope<'a>> {
        serde_json::from_slice(message).ok()
    }

    /// The method, when there is one.
    pub(crate) fn method(&self) -> Option<&str> {
        self.method.as_deref()
    }

    /// A response (no method; a result or an error).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_reply(&self) -> bool {
        self.method.is_none() && self.reply
    }

    /// The request a fast path answers, or `None` for rmcp's service to answer it. The rules,
    /// the same on every way in:
    /// - the envelope is exactly a JSON-RPC 2.0 request (`jsonrpc`, `id`, `method`, and
    ///   `params` when it is an object; an unknown member or anything odd goes to rmcp, which
    ///   validates it in full);
    /// - the method is `tools/call`, `tools/list` or `server/discover`, or with
    ///   `admit.handshakes` `initialize` or `ping`; its params decode as rmcp's own types;
    /// - a request that carries its own revision carries 2026-07-28 and every `_meta` key
    ///   that revision requires (rmcp answers anything else with its own error);
    ///   `server/discover` must; `initialize` and `ping` carry no `_meta`;
    /// - a call asking for progress needs a way in that can send notifications before the
    ///   answer (`admit.notices`);
    /// - a list asks for the first page (a cursor is rmcp's).
    ///
    /// Everything a call carries, `inputResponses` and `requestState` included, reaches the
    /// call pipeline as it came: no way in drops a field.
    #[inline]
    pub(crate) fn request(&self, admit: Admit) -> Option<FastRequest> {
        let params = self.plain_params()?;
        let id = || request_id(self.id?);
        match self.method()? {
            "tools/call" => {
                let params = serde_json::from_str::<CallToolRequestParams>(params).ok()?;
                let revision = Revision::of(params.meta.as_ref())?;
                if !admit.notices
                    && let Some(meta) = &params.meta
                    && meta.get_progress_token().is_some()
                {
                    return None;
                }
                Some(FastRequest::Call {
                    id: id()?,
                    params,
                    revision,
                })
            }
            "tools/list" => {
                let params = serde_json::from_str::<PaginatedRequestParams>(params).ok()?;
                let revision = Revision::of(params.meta.as_ref())?;
                if params.cursor.is_some() {
                    return None;
                }
                Some(FastRequest::List {
                    id: id()?,
                    revision,
                })
            }
            "server/discover" => {
                let params = serde_json::from_str::<PaginatedRequestParams>(params).ok()?;
                match Revision::of(params.meta.as_ref())? {
                    Revision::PerRequest => Some(FastRequest::Discover { id: id()? }),
                    Revision::Negotiated => None,
                }
            }
            "initialize" if admit.handshakes => {
                let params = serde_json::from_str::<InitializeRequestParams>(params).ok()?;
                let id = id()?;
                params.meta.is_none().then(|| FastRequest::Initialize {
                    id,
                    params: Box::new(params),
                })
            }
            "ping" if admit.handshakes && params == "{}" => Some(FastRequest::Ping { id: id()? }),
            _ => None,
        }
    }

    /// A notification a server without state may take (no `_meta`): its method and params
    /// (an object, as raw JSON).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn notification(&self) -> Option<(&str, &str)> {
        let params = self.plain_params()?;
        let method = self.method()?;
        let no_id = self.id.is_none_or(|id| id.get() == "null");
        (no_id && method.starts_with("notifications/") && !params.contains("\"_meta\""))
            .then_some((method, params))
    }

    /// The params of a plain message (an object, as raw JSON; `{}` when absent).
    fn plain_params(&self) -> Option<&str> {
        let params = self.params.map_or("{}", RawValue::get);
        (self.plain && params.starts_with('{')).then_some(params)
    }
}

/// A request's id from its raw JSON: an integer, or a string without escapes, read in place;
/// anything else (`1.0`, an escape, `null`: none) as rmcp reads it.
#[inline]
fn request_id(raw: &RawValue) -> Option<RequestId> {
    let text = raw.get();
    if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'))
        && !inner.contains('\\')
    {
        return Some(RequestId::String(inner.into()));
    }
    match text.parse::<i64>() {
        Ok(number) => Some(RequestId::Number(number)),
        Err(_) => serde_json::from_str::<Option<RequestId>>(text).ok()?,
    }
}

/// What a way in can answer on its fast path besides tool requests.
#[derive(Clone, Copy)]
pub(crate) struct Admit {
    /// It can send a call's notifications before its answer (a call asking for progress).
    pub(crate) notices: bool,
    /// It answers `initialize` and `ping` (HTTP; a stdio session leaves its lifecycle to
    /// rmcp).
    pub(crate) handshakes: bool,
}

/// A request a fast path answers.
// Moved once, from the decoder to the way in: boxing the call would cost an allocation per
// call for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum FastRequest {
    Call {
        id: RequestId,
        params: CallToolRequestParams,
        revision: Revision,
    },
    /// A `tools/list` of the first page.
    List { id: RequestId, revision: Revision },
    /// `server/discover` (2026-07-28 only).
    Discover { id: RequestId },
    /// A well-formed `initialize` (as rmcp reads it), without `_meta`.
    Initialize {
        id: RequestId,
        params: Box<InitializeRequestParams>,
    },
    /// `ping`, without params.
    Ping { id: RequestId },
}

impl FastRequest {
    /// The request's id.
    pub(crate) fn id(&self) -> &RequestId {
        match self {
            FastRequest::Call { id, .. }
            | FastRequest::List { id, .. }
            | FastRequest::Discover { id }
            | FastRequest::Initialize { id, .. }
            | FastRequest::Ping { id } => id,
        }
    }

    /// The revision the request speaks in: its own (2026-07-28), or its session's.
    pub(crate) fn revision(&self) -> Revision {
        match self {
            FastRequest::Call { revision, .. } | FastRequest::List { revision, .. } => *revision,
            FastRequest::Discover { .. } => Revision::PerRequest,
            FastRequest::Initialize { .. } | FastRequest::Ping { .. } => Revision::Negotiated,
        }
    }

    /// Its method, as the metrics name it.
    pub(crate) fn method(&self) -> &'static str {
        match self {
            FastRequest::Call { .. } => "tools/call",
            FastRequest::List { .. } => "tools/list",
            FastRequest::Discover { .. } => "server/discover",
            FastRequest::Initialize { .. } => "initialize",
            FastRequest::Ping { .. } => "ping",
        }
    }
}

/// The `_meta` keys of a request that carries its revision (2026-07-28).
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// How a request says which revision it speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Revision {
    /// It does not: its session negotiated one (`initialize`, or an HTTP header naming a
    /// revision before 2026-07-28).
    Negotiated,
    /// It carries 2026-07-28 in its `_meta`, with everything that revision requires there.
    PerRequest,
}

impl Revision {
    /// The revision has `resultType` and caching hints.
    pub(crate) fn per_request(self) -> bool {
        self == Revision::PerRequest
    }

    /// The revision `meta` declares: `None` for one a fast path does not answer (another
    /// revision, or required keys missing: rmcp answers with its exact error).
    fn of(meta: Option<&RequestMetaObject>) -> Option<Revision> {
        // Read in place: this runs for every request.
        let Some(meta) = meta else {
            return Some(Revision::Negotiated);
        };
        let Some(version) = meta.get(VERSION_KEY) else {
            return Some(Revision::Negotiated);
        };
        let current = ProtocolVersion::V_2026_07_28;
        let complete = meta
            .get(CAPABILITIES_KEY)
            .is_some_and(|caps| ClientCapabilities::deserialize(caps).is_ok());
        (version.as_str() == Some(current.as_str()) && complete).then_some(Revision::PerRequest)
    }
}

impl<'de> Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope<'de>, A::Error> {
        let mut envelope = Envelope::default();
        // `jsonrpc` is "2.0", and no member came twice or unknown.
        let (mut version, mut plain) = (false, true);
        let mut seen = [false; 6];
        let mut first = |slot: usize| std::mem::replace(&mut seen[slot], true);
        // Keys and strings borrowed from the message (serde's own `Cow` would copy each).
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            let again = match &*key {
                "jsonrpc" => {
                    let Text(value) = map.next_value::<Text<'de>>()?;
                    version = value == "2.0";
                    first(0)
                }
                "method" => {
                    envelope.method = map.next_value::<Option<Text<'de>>>()?.map(|t| t.0);
                    first(1) || envelope.method.is_none()
                }
                "id" => {
                    envelope.id = Some(map.next_value()?);
                    first(2)
                }
                "params" => {
                    envelope.params = Some(map.next_value()?);
                    first(3)
                }
                "result" | "error" => {
                    map.next_value::<IgnoredAny>()?;
                    envelope.reply = true;
                    plain = false;
                    first(if &*key == "result" { 4 } else { 5 })
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    true
                }
            };
            plain &= !again;
        }
        envelope.plain = plain && version;
        Ok(envelope)
    }
}

/// A JSON string borrowed from the message where it has no escape, else unescaped.
struct Text<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Borrowed(text)))
    }

    fn visit_str<E>(self, text: &str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(text.to_owned())))
    }
}

impl fmt::Debug for Envelope<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Envelope")
            .field("method", &self.method)
            .field("id", &self.id.map(RawValue::get))
            .field("reply", &self.reply)
            .field("plain", &self.plain)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;

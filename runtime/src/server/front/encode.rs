//! Writing an answer on a fast path, in exactly the shape rmcp's handler gives it for the
//! revision in use: the one encoder of every [`Reply`] the front gives ([`frame`]): any
//! outcome of a call (complete, input required, task) or a protocol error, and a result
//! serialized once (a list, `server/discover`, a handshake), written around its id without
//! a copy.

use std::sync::{Arc, LazyLock};

use rmcp::RoleServer;
use rmcp::model::{CallToolResponse, ErrorData, RequestId, ServerResult};
use rmcp::service::TxJsonRpcMessage;

use super::Reply;
use crate::transport::message::Revision;

/// A response ready to write.
#[allow(clippy::large_enum_variant)] // written at once; a box would cost an allocation
pub(crate) enum Frame {
    /// A message to serialize (a call's outcome, an error).
    Message(TxJsonRpcMessage<RoleServer>),
    /// A result serialized once, around the id ([`ResultFrame`]): the stdio outbox writes
    /// it without a copy.
    Kept(ResultFrame, Arc<String>),
}

/// `ping`'s result.
static EMPTY: LazyLock<Arc<String>> = LazyLock::new(|| Arc::new("{}".to_owned()));

/// The response to request `id` carrying `reply`, for a request of `revision`.
#[inline]
pub(crate) fn frame(id: RequestId, reply: Reply, revision: Revision) -> Frame {
    match reply {
        Reply::Call(answer) => Frame::Message(response(id, answer, revision.per_request())),
        Reply::Kept(result) | Reply::Handshake { result, .. } => {
            Frame::Kept(ResultFrame::to(&id), result)
        }
        Reply::Pong => Frame::Kept(ResultFrame::to(&id), EMPTY.clone()),
    }
}

impl Frame {
    /// The whole response as bytes: what HTTP sends.
    #[cfg(feature = "http")]
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        match self {
            Frame::Message(message) => to_bytes(&message),
            Frame::Kept(frame, result) => frame.around(result.as_bytes()),
        }
    }
}

/// What the call pipeline answers (`call::CallReply`): an outcome of the call, or a protocol
/// error.
type CallReply = Result<CallToolResponse, ErrorData>;

/// The response to request `id` carrying `answer`. `per_request` is a revision of 2026-07-28 or
/// later, which has `resultType` and caching hints; earlier revisions get the shape they
/// know, and an answer that needs input from the client becomes an error, as rmcp does.
#[inline]
pub(crate) fn response(
    id: RequestId,
    answer: CallReply,
    per_request: bool,
) -> TxJsonRpcMessage<RoleServer> {
    // The common case first, without the general pass: a complete result for an earlier
    // revision, whose structured content (if any) is an object, loses only `resultType`.
    let answer = match answer {
        Ok(CallToolResponse::Complete(mut result))
            if !per_request
                && result
                    .structured_content
                    .as_ref()
                    .is_none_or(|v| v.is_object()) =>
        {
            result.result_type = None;
            let result = ServerResult::CallToolResult(result);
            return TxJsonRpcMessage::<RoleServer>::response(result, id);
        }
        other => other,
    };
    let result = answer.and_then(|response| {
        let mut result = ServerResult::from(response);
        if per_request {
            result.fill_missing_cache_hints();
        } else if matches!(result, ServerResult::InputRequiredResult(_)) {
            return Err(ErrorData::invalid_request(
                "InputRequiredResult requires negotiated protocol version 2026-07-28 or newer",
                None,
            ));
        } else {
            result.strip_result_type_for_legacy_peer();
            result.strip_non_object_output_for_legacy_peer();
        }
        Ok(result)
    });
    match result {
        Ok(result) => TxJsonRpcMessage::<RoleServer>::response(result, id),
        Err(error) => TxJsonRpcMessage::<RoleServer>::error(error, Some(id)),
    }
}

/// `frame` as bytes (an HTTP body). Never empty: were it to fail to serialize, the answer is an internal
/// error to the same request.
#[cfg(feature = "http")]
pub(crate) fn to_bytes(frame: &TxJsonRpcMessage<RoleServer>) -> Vec<u8> {
    match serde_json::to_vec(frame) {
        Ok(bytes) => bytes,
        Err(err) => {
            tracing::error!(%err, "an answer could not be serialized");
            let id = match frame {
                rmcp::model::JsonRpcMessage::Response(response) => Some(response.id.clone()),
                rmcp::model::JsonRpcMessage::Error(error) => error.id.clone(),
                _ => None,
            };
            let error = ErrorData::internal_error("the answer could not be serialized", None);
            serde_json::to_vec(&TxJsonRpcMessage::<RoleServer>::error(error, id)).unwrap_or_else(
                |_| br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}"#.to_vec(),
            )
        }
    }
}

/// The one frame of a response around a result serialized once (a cached list, the
/// handshake): `{"jsonrpc":"2.0","id":<id>,"result":` RESULT `}`. Whole, or its two ends for
/// a result written without a copy (stdio's outbox).
pub(crate) struct ResultFrame {
    start: Vec<u8>,
}

impl ResultFrame {
    /// The bytes after the result.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) const END: &'static [u8] = b"}";
    /// The bytes after the result, and the newline that ends a stdio frame.
    pub(crate) const END_LINE: &'static [u8] = b"}\n";

    /// The frame of the response to `id`.
    pub(crate) fn to(id: &RequestId) -> ResultFrame {
        let mut start = Vec::with_capacity(40);
        start.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        match id {
            RequestId::Number(n) => start.extend_from_slice(n.to_string().as_bytes()),
            RequestId::String(_) => {
                // A string id serializes as its JSON string; that cannot fail.
                let _ = serde_json::to_writer(&mut start, id);
            }
        }
        start.extend_from_slice(b",\"result\":");
        ResultFrame { start }
    }

    /// The bytes before the result.
    pub(crate) fn start(&self) -> &[u8] {
        &self.start
    }

    /// The whole frame around `result` (JSON): what HTTP sends.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn around(self, result: &[u8]) -> Vec<u8> {
        let mut frame = self.start;
        frame.reserve(result.len() + Self::END.len());
        frame.extend_from_slice(result);
        frame.extend_from_slice(Self::END);
        frame
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{
        CallToolResponse, CallToolResult, ContentBlock, InputRequiredResult, NumberOrString,
    };
    use serde_json::{Value, json};

    use super::{ResultFrame, response};

    fn json_of(answer: super::CallReply, per_request: bool) -> Value {
        serde_json::to_value(response(NumberOrString::Number(7), answer, per_request)).unwrap()
    }

    #[test]
    fn each_revision_gets_its_own_shape() {
        let done = || {
            Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text("hi"),
            ])))
        };
        let legacy = json_of(done(), false);
        assert_eq!(legacy["id"], 7);
        assert!(legacy["result"].get("resultType").is_none(), "{legacy}");
        let per_request = json_of(done(), true);
        assert_eq!(
            per_request["result"]["resultType"], "complete",
            "{per_request}"
        );
        let asks = || {
            let input = InputRequiredResult::new(None, Some("s".into()));
            Ok(CallToolResponse::InputRequired(input))
        };
        let refused = json_of(asks(), false);
        assert_eq!(refused["error"]["code"], -32600, "{refused}");
        let asked = json_of(asks(), true);
        assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    }

    #[test]
    fn structured_content_that_is_not_an_object_takes_the_general_pass() {
        // Earlier revisions require an object: rmcp moves the value into the text content.
        let mut result = CallToolResult::success(vec![ContentBlock::text("two items")]);
        result.structured_content = Some(json!(["a", "b"]));
        let legacy = json_of(Ok(CallToolResponse::Complete(result.clone())), false);
        assert!(
            legacy["result"].get("structuredContent").is_none(),
            "{legacy}"
        );
        assert_eq!(legacy["result"]["content"][0]["text"], r#"["a","b"]"#);
        let per_request = json_of(Ok(CallToolResponse::Complete(result)), true);
        assert_eq!(
            per_request["result"]["structuredContent"],
            json!(["a", "b"])
        );
        // An object stays where it is, on the common path.
        let mut result = CallToolResult::success(vec![]);
        result.structured_content = Some(json!({"n": 1}));
        let legacy = json_of(Ok(CallToolResponse::Complete(result)), false);
        assert_eq!(
            legacy["result"]["structuredContent"],
            json!({"n": 1}),
            "{legacy}"
        );
        assert!(legacy["result"].get("resultType").is_none());
    }

    #[test]
    fn a_result_frame_holds_the_id_as_json_whole_or_by_its_ends() {
        let frame = |id: NumberOrString| {
            serde_json::from_slice::<Value>(&ResultFrame::to(&id).around(b"{}")).unwrap()
        };
        let number = frame(NumberOrString::Number(-3));
        assert_eq!(number, json!({"jsonrpc": "2.0", "id": -3, "result": {}}));
        let text = frame(NumberOrString::String("a\"b".into()));
        assert_eq!(text["id"], "a\"b");
        // By its ends: the same bytes, and a stdio line.
        let ends = ResultFrame::to(&NumberOrString::Number(1));
        let mut line = ends.start().to_vec();
        line.extend_from_slice(b"[1]");
        line.extend_from_slice(ResultFrame::END_LINE);
        let whole = ResultFrame::to(&NumberOrString::Number(1)).around(b"[1]");
        assert_eq!(line, [whole.as_slice(), b"\n"].concat());
    }
}

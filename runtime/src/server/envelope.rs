//! What both fast paths (stdio's in `fast.rs`, HTTP's in `fast_http.rs`) read of a request
//! and write back: the envelope of a `tools/call` or `tools/list`, and a call's response in
//! rmcp's own shape.

use std::borrow::Cow;

use rmcp::RoleServer;
use rmcp::model::{RequestId, ServerResult};
use rmcp::service::TxJsonRpcMessage;
use serde::Deserialize;
use serde_json::value::RawValue;

/// The two methods the fast paths answer.
#[derive(Clone, Copy)]
pub(super) enum ToolMethod {
    Call,
    List,
}

/// The id, method and params (an object, as raw JSON) of a `tools/call` or `tools/list`
/// request, read as far as the fast paths need (stdio's here, HTTP's in `fast_http.rs`);
/// `None` for anything else or anything odd (an unknown member, a `jsonrpc` that is not
/// "2.0", params that are not an object), which the normal path validates in full.
pub(super) fn tool_request(message: &[u8]) -> Option<(RequestId, ToolMethod, &str)> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Envelope<'a> {
        #[serde(borrow)]
        jsonrpc: Cow<'a, str>,
        id: Option<RequestId>,
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
        #[serde(borrow)]
        params: Option<&'a RawValue>,
    }

    let envelope = serde_json::from_slice::<Envelope>(message).ok()?;
    let (id, method) = (envelope.id?, envelope.method?);
    let params = envelope.params.map_or("{}", RawValue::get);
    if envelope.jsonrpc != "2.0" || !params.starts_with('{') {
        return None;
    }
    let method = match &*method {
        "tools/call" => ToolMethod::Call,
        "tools/list" => ToolMethod::List,
        _ => return None,
    };
    Some((id, method, params))
}

/// The response to a call, in the shape of revisions before 2026-07-28.
pub(super) fn response(
    id: RequestId,
    result: Result<rmcp::model::CallToolResult, rmcp::ErrorData>,
) -> TxJsonRpcMessage<RoleServer> {
    match result {
        Ok(mut result) => {
            result.result_type = None;
            TxJsonRpcMessage::<RoleServer>::response(ServerResult::CallToolResult(result), id)
        }
        Err(error) => TxJsonRpcMessage::<RoleServer>::error(error, Some(id)),
    }
}

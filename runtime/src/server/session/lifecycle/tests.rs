//! The session's lifecycle and its record of ids in flight.

use rmcp::RoleServer;
use rmcp::model::{
    ErrorData, InitializeResult, NumberOrString, ProtocolVersion, ServerCapabilities, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{Admit, Lifecycle, Requests};
use crate::transport::message::Revision;

fn message(value: Value) -> RxJsonRpcMessage<RoleServer> {
    serde_json::from_value(value).expect("a client message")
}

fn initialize(id: i64) -> RxJsonRpcMessage<RoleServer> {
    message(
        json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}}),
    )
}

fn per_request_call(id: i64) -> RxJsonRpcMessage<RoleServer> {
    message(
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "t", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}),
    )
}

fn initialized(version: ProtocolVersion, id: i64) -> TxJsonRpcMessage<RoleServer> {
    let mut result = InitializeResult::new(ServerCapabilities::default());
    result.protocol_version = version;
    TxJsonRpcMessage::<RoleServer>::response(
        ServerResult::InitializeResult(result),
        NumberOrString::Number(id),
    )
}

fn error_to(id: i64) -> TxJsonRpcMessage<RoleServer> {
    let error = ErrorData::invalid_params("missing _meta", None);
    TxJsonRpcMessage::<RoleServer>::error(error, Some(NumberOrString::Number(id)))
}

#[test]
fn before_the_session_starts_only_requests_pass() {
    let lifecycle = Lifecycle::default();
    let note = message(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert!(matches!(lifecycle.admit(&note), Admit::Ignore(_)));
    let response = message(json!({"jsonrpc": "2.0", "id": 9, "result": {}}));
    assert!(matches!(lifecycle.admit(&response), Admit::Ignore(_)));
    let custom = message(json!({"jsonrpc": "2.0", "id": 1, "method": "x/y"}));
    let Admit::Refuse(id, error) = lifecycle.admit(&custom) else {
        panic!("an unknown method before the session is refused here");
    };
    assert_eq!((id, error.code.0), (NumberOrString::Number(1), -32601));
    let ping = message(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert!(matches!(lifecycle.admit(&ping), Admit::Pass));
    assert_eq!(lifecycle.serving(), None, "a ping decides nothing");
    // Still undecided: a notification is still ignored.
    assert!(matches!(lifecycle.admit(&note), Admit::Ignore(_)));
}

#[test]
fn a_handshake_revision_turns_the_fast_path_on() {
    let lifecycle = Lifecycle::default();
    assert!(matches!(lifecycle.admit(&initialize(0)), Admit::Pass));
    assert_eq!(lifecycle.serving(), None, "not before rmcp answers");
    lifecycle.observe(&initialized(ProtocolVersion::V_2025_11_25, 0));
    assert_eq!(lifecycle.serving(), Some(Revision::Negotiated));
    let note = message(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert!(matches!(lifecycle.admit(&note), Admit::Pass));
}

#[test]
fn a_per_request_session_is_settled_by_rmcps_answer() {
    let lifecycle = Lifecycle::default();
    assert!(matches!(lifecycle.admit(&per_request_call(1)), Admit::Pass));
    // rmcp refused it (say its metadata was incomplete): the session is undecided again.
    lifecycle.observe(&error_to(1));
    let note = message(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert!(matches!(lifecycle.admit(&note), Admit::Ignore(_)));
    // Accepted this time: per-request from now on, served in 2026-07-28's shapes once rmcp
    // has accepted it.
    assert!(matches!(lifecycle.admit(&per_request_call(2)), Admit::Pass));
    assert_eq!(lifecycle.serving(), None, "not before rmcp answers");
    let done = TxJsonRpcMessage::<RoleServer>::response(
        ServerResult::empty(()),
        NumberOrString::Number(2),
    );
    lifecycle.observe(&done);
    assert!(matches!(lifecycle.admit(&note), Admit::Pass));
    let Admit::Refuse(id, error) = lifecycle.admit(&initialize(3)) else {
        panic!("a late initialize is refused");
    };
    assert_eq!((id, error.code.0), (NumberOrString::Number(3), -32600));
    assert_eq!(lifecycle.serving(), Some(Revision::PerRequest));
    assert!(matches!(lifecycle.admit(&per_request_call(4)), Admit::Pass));
}

#[test]
fn an_id_is_in_flight_once_on_either_path() {
    let requests = Requests::default();
    let id = NumberOrString::Number(5);
    assert!(requests.is_free(&id));
    let alias = requests.claim_rmcp(&id).expect("free");
    assert!(requests.claim_rmcp(&id).is_none());
    assert!(!requests.claim_fast(&id, 0, CancellationToken::new()));
    assert_eq!(requests.answered(&alias), Some(id.clone()));
    assert!(requests.is_free(&id));
    assert_eq!(requests.answered(&alias), None, "answered once");

    let token = CancellationToken::new();
    assert!(requests.claim_fast(&id, 7, token.clone()));
    assert!(!requests.is_free(&id));
    assert!(!requests.finish_fast(&id, 8), "another call's number");
    assert_eq!(requests.cancel(&id), None, "nothing for rmcp to cancel");
    assert!(token.is_cancelled());
    assert!(!requests.finish_fast(&id, 7), "cancelled: no response");
    assert!(requests.is_free(&id));

    let (a, b) = (CancellationToken::new(), CancellationToken::new());
    assert!(requests.claim_fast(&NumberOrString::Number(1), 1, a.clone()));
    assert!(requests.claim_fast(&NumberOrString::String("x".into()), 2, b.clone()));
    requests.cancel_all();
    assert!(a.is_cancelled() && b.is_cancelled());
}

#[test]
fn rmcp_never_sees_a_cancelled_id_again() {
    let requests = Requests::default();
    let id = NumberOrString::Number(0);
    let first = requests.claim_rmcp(&id).unwrap();
    assert_eq!(requests.cancel(&id), Some(first.clone()));
    // Reused at once, while rmcp may still run the first: rmcp knows it apart.
    let second = requests.claim_rmcp(&id).unwrap();
    assert_ne!(first, second);
    assert_eq!(
        requests.answered(&first),
        None,
        "the cancelled one: no answer"
    );
    assert!(!requests.is_free(&id), "the second is still in flight");
    assert_eq!(requests.answered(&second), Some(id.clone()));
    assert!(requests.is_free(&id));
}

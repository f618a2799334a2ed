//! What a line that serde_json cannot read is answered with.

use rmcp::model::RequestId;

use super::{Decoded, decode};

/// The code and id of the error `line` is answered with; `None` when it gets no answer.
fn answer(line: &str) -> Option<(i32, Option<RequestId>)> {
    match decode(line.as_bytes()) {
        Decoded::Reply(error, id) => Some((error.code.0, id)),
        Decoded::Nothing => None,
        Decoded::Message(message) => panic!("passed on: {message:?}"),
    }
}

fn call(id: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{arguments}}}}}"#
    )
}

#[test]
fn json_past_the_parsers_limits_is_answered_with_its_id() {
    let deep = format!(r#"{{"text":{}1{}}}"#, "[".repeat(130), "]".repeat(130));
    let number = RequestId::Number(1);
    let text = RequestId::String("a".into());
    assert_eq!(
        answer(&call("1", &deep)),
        Some((-32602, Some(number.clone())))
    );
    assert_eq!(
        answer(&call(r#""a""#, r#"{"text":"\ud800"}"#)),
        Some((-32602, Some(text)))
    );
    assert_eq!(
        answer(&call("1", r#"{"n":1e400}"#)),
        Some((-32602, Some(number.clone())))
    );
    // The id is last (the TypeScript SDK's order), the trouble before it.
    let last = r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"n":1e400}},"id":1}"#;
    assert_eq!(answer(last), Some((-32602, Some(number.clone()))));
    // A method the parser cannot hold: the envelope is the trouble.
    let method = r#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#;
    assert_eq!(answer(method), Some((-32700, Some(number))));
}

#[test]
fn without_an_exact_id_it_is_a_parse_error_with_a_null_id_or_nothing() {
    // The id itself cannot be read exactly.
    assert_eq!(
        answer(&call(r#""\ud800""#, r#"{"n":1e400}"#)),
        Some((-32700, None))
    );
    assert_eq!(answer(&call("1e400", "{}")), Some((-32700, None)));
    // Not JSON at all: no id is taken from it.
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"#),
        Some((-32700, None))
    );
    // A notification and a response get nothing.
    let notification =
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":1e400}}"#;
    assert_eq!(answer(notification), None);
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","id":3,"result":{"n":1e400}}"#),
        None
    );
}

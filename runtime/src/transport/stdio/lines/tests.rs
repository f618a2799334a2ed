//! The line framing, driven in-process: what a line over the limit is answered with, and
//! where the limit falls.

use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::LineTransport;

const LIMIT: usize = 256;

/// Feeds `input` to a transport with a 256-byte limit until it ends; returns the messages it
/// passed on (as JSON) and the frames it wrote back.
async fn serve(input: Vec<u8>) -> (Vec<Value>, Vec<Value>) {
    let (mut client, server) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server);
    let mut transport = LineTransport::new(Box::new(read), Box::new(write), LIMIT);
    client.write_all(&input).await.unwrap();
    client.shutdown().await.unwrap();
    let mut passed = Vec::new();
    while let Some(message) = transport.receive().await {
        passed.push(serde_json::to_value(&message).unwrap());
    }
    transport.close().await.unwrap();
    drop(transport);
    let mut out = String::new();
    client.read_to_string(&mut out).await.unwrap();
    let frames = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (passed, frames)
}

/// The one frame written for `line` (followed by a newline) and nothing passed on.
async fn answer(line: &str) -> Option<Value> {
    let (passed, mut frames) = serve(format!("{line}\n").into_bytes()).await;
    assert!(passed.is_empty(), "nothing reaches rmcp: {passed:?}");
    assert!(frames.len() <= 1, "one answer at most: {frames:?}");
    frames.pop()
}

fn big() -> String {
    "x".repeat(4 * LIMIT)
}

fn code_and_id(frame: &Value) -> (i64, Value) {
    (
        frame["error"]["code"].as_i64().unwrap(),
        frame["id"].clone(),
    )
}

#[tokio::test]
async fn an_over_limit_request_is_answered_with_its_id_wherever_it_stands() {
    let big = big();
    let first = json!({"id": 7, "jsonrpc": "2.0", "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"text": big}}});
    // The TypeScript SDK's order: `{...request, jsonrpc, id}`.
    let last = format!(
        r#"{{"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{big}"}}}},"jsonrpc":"2.0","id":"req-9"}}"#
    );
    let nested_then_top =
        format!(r#"{{"method":"x","params":{{"id":3,"list":[{{"id":4}}],"t":"{big}"}},"id":11}}"#);
    let tricky_strings = format!(
        r#"{{"method":"x","params":{{"a":"\"id\": 1, \\\"","b":"}}{{\"id\":2","c":"{big}\\"}},"id":12}}"#
    );
    for (line, id) in [
        (first.to_string(), json!(7)),
        (last, json!("req-9")),
        (nested_then_top, json!(11)),
        (tricky_strings, json!(12)),
    ] {
        let frame = answer(&line).await.expect("an answer");
        assert_eq!(code_and_id(&frame), (-32600, id), "{frame}");
    }
}

#[tokio::test]
async fn an_id_that_is_cut_or_not_an_integer_or_string_is_answered_with_null() {
    let big = big();
    for id in [
        "1e15",
        "1.05",
        "1.0",
        "9223372036854775808",
        "null",
        "true",
        "{}",
    ] {
        let line = format!(r#"{{"method":"x","params":"{big}","id":{id}}}"#);
        let frame = answer(&line).await.expect("an answer");
        assert_eq!(
            code_and_id(&frame),
            (-32600, Value::Null),
            "id {id}: {frame}"
        );
    }
}

#[tokio::test]
async fn an_over_limit_notification_gets_no_answer_and_garbage_gets_a_parse_error() {
    let big = big();
    let nested_id_only = format!(r#"{{"method":"x","params":{{"id":3,"t":"{big}"}}}}"#);
    assert_eq!(answer(&nested_id_only).await, None, "a notification");
    let garbage = format!("[{big}");
    let frame = answer(&garbage).await.expect("an answer");
    assert_eq!(code_and_id(&frame), (-32700, Value::Null));
}

#[tokio::test]
async fn an_over_limit_line_cut_by_the_end_of_input_is_answered() {
    let big = big();
    let whole_id = format!(r#"{{"method":"x","id":5,"params":"{big}"#);
    let (_, frames) = serve(whole_id.into_bytes()).await;
    assert_eq!(frames.len(), 1, "{frames:?}");
    assert_eq!(code_and_id(&frames[0]), (-32600, json!(5)));
    let cut_id = format!(r#"{{"method":"x","params":"{big}","id":12"#);
    let (_, frames) = serve(cut_id.into_bytes()).await;
    assert_eq!(
        code_and_id(&frames[0]),
        (-32600, Value::Null),
        "12 may be 123 cut"
    );
}

#[tokio::test]
async fn the_limit_counts_the_line_without_its_line_end() {
    let ping = |id: u64, len: usize| {
        let head =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"_meta":{{"pad":""#);
        let tail = r#""}}}"#;
        let line = format!("{head}{}{tail}", "p".repeat(len - head.len() - tail.len()));
        assert_eq!(line.len(), len);
        line
    };
    let input = format!(
        "{}\n{}\r\n{}\n{}\r\n",
        ping(1, LIMIT),
        ping(2, LIMIT),
        ping(3, LIMIT + 1),
        ping(4, LIMIT + 1),
    );
    let (passed, frames) = serve(input.into_bytes()).await;
    let ids: Vec<&Value> = passed.iter().map(|m| &m["id"]).collect();
    assert_eq!(
        ids,
        [&json!(1), &json!(2)],
        "LF and CRLF alike at the limit"
    );
    let answered: Vec<(i64, Value)> = frames.iter().map(code_and_id).collect();
    assert_eq!(answered, [(-32600, json!(3)), (-32600, json!(4))]);
}

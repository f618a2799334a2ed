//! A request cancelled, then its id used again at once, in one write: the new request gets
//! exactly one answer, its own, and the cancelled one gets none, whichever way answers it
//! (the fast path, rmcp's loop in a handshake session, rmcp's loop on 2026-07-28).

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use toolsmith_tests::raw::Raw;

const IDS: u64 = 300;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Fast,
    Rmcp,
    PerRequest,
}

/// `message` with the 2026-07-28 `_meta` in its params, in a per-request session.
fn with_meta(mode: Mode, mut message: Value) -> Value {
    if mode == Mode::PerRequest {
        message["params"]["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "raw-test-client", "version": "0"},
        });
    }
    message
}

/// The three lines for `id`: a slow call, its cancellation, a quick call under the same id.
fn reuse(mode: Mode, id: u64) -> String {
    let call = |name: &str, arguments: Value| {
        with_meta(
            mode,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}}),
        )
    };
    let cancel = with_meta(
        mode,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": id, "reason": "superseded"}}),
    );
    let slow = call("slow", json!({"ms": 10_000}));
    let quick = call("echo", json!({"text": format!("second {id}")}));
    format!("{slow}\n{cancel}\n{quick}\n")
}

/// Every frame answering a request, by id, once no more come.
async fn run(mode: Mode) -> HashMap<u64, Vec<Value>> {
    let env: &[(&str, &str)] = match mode {
        Mode::Rmcp => &[("TOOLSMITH_TEST_NO_FAST_PATH", "1")],
        _ => &[],
    };
    let mut server = Raw::program(env!("CARGO_BIN_EXE_fixture_server"), env);
    if mode != Mode::PerRequest {
        server.init().await;
    }
    let mut stdin = server.stdin.take().unwrap();
    let writer = tokio::spawn(async move {
        for id in 0..IDS {
            stdin.write_all(reuse(mode, id).as_bytes()).await.unwrap();
        }
        stdin.flush().await.unwrap();
        stdin // kept open until every answer is read
    });
    let mut answers: HashMap<u64, Vec<Value>> = HashMap::new();
    let mut answered = 0;
    // All answered, then a while longer for a second answer to any of them.
    while let Some(frame) = server
        .next_within(if answered < IDS {
            Duration::from_secs(20)
        } else {
            Duration::from_millis(500)
        })
        .await
    {
        let Some(id) = frame["id"].as_u64() else {
            continue; // a notification
        };
        let seen = answers.entry(id).or_default();
        if seen.is_empty() {
            answered += 1;
        }
        seen.push(frame);
    }
    drop(writer.await.unwrap());
    answers
}

async fn each_request_gets_its_own_answer(mode: Mode) {
    let answers = run(mode).await;
    let wrong: Vec<_> = (0..IDS)
        .filter(|id| {
            let frames = answers.get(id).map_or(&[][..], Vec::as_slice);
            let own = json!(format!("second {id}"));
            !matches!(frames, [frame] if frame["result"]["content"][0]["text"] == own)
        })
        .map(|id| (id, answers.get(&id)))
        .collect();
    assert!(
        wrong.is_empty(),
        "{mode:?}: {} of {IDS} ids not answered exactly once with their own result; first: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(3)]
    );
}

#[tokio::test]
async fn on_the_fast_path() {
    each_request_gets_its_own_answer(Mode::Fast).await;
}

#[tokio::test]
async fn on_rmcps_loop_after_a_handshake() {
    each_request_gets_its_own_answer(Mode::Rmcp).await;
}

#[tokio::test]
async fn on_rmcps_loop_per_request() {
    each_request_gets_its_own_answer(Mode::PerRequest).await;
}

//! A seeded random stream of valid calls, malformed lines, wrong types, unknown tools,
//! oversized lines, 1,000+ concurrent calls and cancellations, sent in one go to the fixture
//! server over real stdio. Every id is answered exactly once (a cancelled one at most once),
//! every stdout line is a JSON-RPC message, ping answers at the end, EOF exits with 0.

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolsmith_tests::{initialize, spawn_piped};

/// A small deterministic generator (PCG-style LCG): the same stream on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What a request must get back.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    Sum(i64),
    Text(String),
    /// `isError` whose text contains this.
    ToolError(&'static str),
    /// A JSON-RPC error with this code.
    Rpc(i64),
    /// Cancelled: nothing, or (if it finished first) one response.
    AtMostOnce,
    Pong,
}

fn call(id: u64, name: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": args}})
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chaos_stream_is_answered_exactly_once() {
    let mut child = spawn_piped(
        Path::new(env!("CARGO_BIN_EXE_fixture_server")),
        Stdio::piped(),
    );
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let noise = tokio::spawn(async move {
        let mut lines = stderr.lines();
        let mut noise = 0;
        while let Ok(Some(line)) = lines.next_line().await {
            noise += line.matches("noise ").count();
        }
        noise
    });

    let init = initialize(0, "2025-11-25");
    // A notification and a response before initialize are ignored; the session goes on.
    let early = [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": "early", "result": {}}),
    ];
    for frame in early {
        stdin
            .write_all(format!("{frame}\n").as_bytes())
            .await
            .unwrap();
    }
    stdin
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    let first: Value = serde_json::from_str(&stdout.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first["id"], 0);

    let mut rng = Rng(0x5EED);
    let mut expect: HashMap<u64, Expect> = HashMap::new();
    let mut lines =
        vec![json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()];
    let (mut parse_errors, mut invalid_null) = (0, 0);
    let mut cancels = Vec::new();
    let mut calls = 0;
    let oversized_args = "x".repeat(100 * 1024);
    for id in 1..=1500u64 {
        let roll = rng.below(110);
        let line = match roll {
            0..=34 => {
                let (a, b) = (rng.below(1000) as i64, rng.below(1000) as i64 - 500);
                expect.insert(id, Expect::Sum(a + b));
                call(id, "add", json!({"a": a, "b": b}))
            }
            35..=44 => {
                let text = format!("echo {}", rng.next());
                expect.insert(id, Expect::Text(text.clone()));
                call(id, "echo", json!({"text": text}))
            }
            45..=49 => {
                expect.insert(id, Expect::ToolError("Error calling tool 'panicky'"));
                call(id, "panicky", json!({"n": id}))
            }
            50..=53 => {
                expect.insert(id, Expect::ToolError("Error calling tool 'failing'"));
                call(id, "failing", json!({}))
            }
            54..=61 => {
                expect.insert(id, Expect::ToolError("argument `a` is invalid"));
                call(id, "add", json!({"a": "seven", "b": 1}))
            }
            62..=67 => {
                expect.insert(id, Expect::Rpc(-32602));
                call(id, "no_such_tool", json!({}))
            }
            68..=75 => {
                parse_errors += 1;
                let garbage = [
                    "{not json",
                    "",
                    "\u{0}\u{1}",
                    "}{",
                    "{\"jsonrpc\":\"2.0\",\"id\":",
                ];
                let pick = garbage[rng.below(garbage.len() as u64) as usize];
                if pick.is_empty() {
                    parse_errors -= 1; // blank lines are skipped, not errors
                }
                pick.to_string()
            }
            76..=77 => {
                expect.insert(id, Expect::Rpc(-32600));
                call(id, "echo", json!({"text": oversized_args}))
            }
            78 => {
                // Oversized with the id last (the TypeScript SDK's order): still answered
                // with its id.
                expect.insert(id, Expect::Rpc(-32600));
                json!({"jsonrpc": "2.0", "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"text": oversized_args}}, "id": id})
                .to_string()
            }
            79..=80 => {
                invalid_null += 1;
                "[1, 2, 3]".to_string()
            }
            81..=82 => {
                expect.insert(id, Expect::Rpc(-32602));
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": 5}})
                    .to_string()
            }
            83..=92 => {
                let ms = 5 + rng.below(40);
                expect.insert(id, Expect::Sum(ms as i64));
                call(
                    id,
                    if rng.below(2) == 0 {
                        "slow"
                    } else {
                        "slow_sync"
                    },
                    json!({"ms": ms}),
                )
            }
            93..=97 => {
                expect.insert(id, Expect::AtMostOnce);
                cancels.push(id);
                call(
                    id,
                    if rng.below(2) == 0 {
                        "slow"
                    } else {
                        "slow_sync"
                    },
                    json!({"ms": 20_000}),
                )
            }
            98..=99 => {
                expect.insert(id, Expect::ToolError("timed out after 100ms"));
                call(id, "timed", json!({"ms": 5_000}))
            }
            100..=101 => {
                // An id that is neither a string nor an integer within i64.
                invalid_null += 1;
                let bad = ["1.5", "null", "true", "9223372036854775808", "{}", "[]"];
                let pick = bad[rng.below(bad.len() as u64) as usize];
                format!(
                    r#"{{"jsonrpc":"2.0","id":{pick},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}}}}}}"#
                )
            }
            102..=103 => {
                expect.insert(id, Expect::Rpc(-32600));
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "result": {},
                       "params": {"name": "count", "arguments": {}}})
                .to_string()
            }
            104..=105 => {
                expect.insert(id, Expect::Rpc(-32602));
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": ["add"]})
                    .to_string()
            }
            106..=107 => {
                expect.insert(id, Expect::Sum(103));
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":3.0,"b":1e2}}}}}}"#
                )
            }
            _ => {
                // An oversized notification: no answer at all.
                json!({"jsonrpc": "2.0", "method": "notifications/progress",
                       "params": {"progressToken": 1, "progress": 1, "message": oversized_args}})
                .to_string()
            }
        };
        calls += usize::from(line.contains("tools/call"));
        lines.push(line);
        if id == 500 || id == 1000 {
            expect.insert(id + 100_000, Expect::Sum(5_000));
            lines.push(call(id + 100_000, "noisy", json!({"lines": 5_000})));
        }
    }
    for id in &cancels {
        lines.push(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                          "params": {"requestId": id, "reason": "chaos"}})
            .to_string(),
        );
    }
    assert!(calls >= 1000, "{calls} concurrent calls");

    let mut writer = Some(tokio::spawn(async move {
        for line in lines {
            stdin.write_all(line.as_bytes()).await.unwrap();
            stdin.write_all(b"\n").await.unwrap();
        }
        stdin.flush().await.unwrap();
        stdin
    }));

    let mut responses: HashMap<String, Vec<Value>> = HashMap::new();
    let mut null_ids = Vec::new();
    let mut ping_sent = false;
    let mut stdin = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        if writer.as_ref().is_some_and(|w| w.is_finished()) {
            stdin = Some(writer.take().unwrap().await.unwrap());
        }
        let pending = expect
            .iter()
            .filter(|(id, e)| **e != Expect::AtMostOnce && !responses.contains_key(&id.to_string()))
            .count();
        if pending == 0
            && !ping_sent
            && let Some(stdin) = stdin.as_mut()
        {
            let ping = json!({"jsonrpc": "2.0", "id": "final-ping", "method": "ping"});
            stdin
                .write_all(format!("{ping}\n").as_bytes())
                .await
                .unwrap();
            stdin.flush().await.unwrap();
            ping_sent = true;
        }
        if responses.contains_key("\"final-ping\"") {
            break;
        }
        let line = tokio::time::timeout_at(deadline, stdout.next_line())
            .await
            .expect("the server keeps answering")
            .unwrap()
            .expect("stdout stays open");
        let frame: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line:.200}"));
        assert_eq!(frame["jsonrpc"], "2.0", "{line:.200}");
        match &frame["id"] {
            Value::Null if frame.get("error").is_some() => null_ids.push(frame),
            Value::Null => panic!("a message without id that is not an error: {line:.200}"),
            id => responses.entry(id.to_string()).or_default().push(frame),
        }
    }
    drop(stdin); // EOF
    while let Some(line) = stdout.next_line().await.unwrap() {
        let frame: Value = serde_json::from_str(&line).unwrap();
        responses
            .entry(frame["id"].to_string())
            .or_default()
            .push(frame);
    }
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "exit status {status}");
    assert_eq!(
        noise.await.unwrap(),
        10_000,
        "every println! went to stderr"
    );

    expect.insert(u64::MAX, Expect::Pong);
    for (id, expected) in &expect {
        let key = if *id == u64::MAX {
            "\"final-ping\"".to_string()
        } else {
            id.to_string()
        };
        let got = responses.remove(&key).unwrap_or_default();
        if *expected == Expect::AtMostOnce {
            assert!(
                got.len() <= 1,
                "cancelled {id} answered {} times",
                got.len()
            );
            continue;
        }
        assert_eq!(
            got.len(),
            1,
            "id {id} ({expected:?}) answered {} times: {got:?}",
            got.len()
        );
        let frame = &got[0];
        let result = &frame["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        match expected {
            Expect::Sum(n) => {
                assert_eq!(result["structuredContent"]["result"], json!(n), "{frame}")
            }
            Expect::Text(t) => assert_eq!(text, t, "{frame}"),
            Expect::ToolError(part) => {
                assert_eq!(result["isError"], true, "{frame}");
                assert!(text.contains(part), "{id}: {text} lacks {part}");
            }
            Expect::Rpc(code) => assert_eq!(frame["error"]["code"], json!(code), "{frame}"),
            Expect::Pong => assert_eq!(frame["result"], json!({}), "{frame}"),
            Expect::AtMostOnce => unreachable!(),
        }
    }
    assert!(
        responses.is_empty(),
        "answers to ids never sent: {:?}",
        responses.keys()
    );
    let count = |code: i64| {
        null_ids
            .iter()
            .filter(|f| f["error"]["code"] == code)
            .count()
    };
    assert_eq!(
        count(-32700),
        parse_errors,
        "one parse error per malformed line"
    );
    assert_eq!(
        count(-32600),
        invalid_null,
        "one invalid-request error per non-object message"
    );
    assert_eq!(null_ids.len(), parse_errors + invalid_null);
}

/// Progress is sent only for a request that carries a `progressToken`, with that token,
/// before the response.
#[tokio::test]
async fn progress_only_when_the_request_asks_for_it() {
    let mut child = spawn_piped(
        Path::new(env!("CARGO_BIN_EXE_fixture_server")),
        Stdio::null(),
    );
    let mut stdin = child.stdin.take().unwrap();
    let frames = [
        initialize(0, "2025-11-25"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "steps_sync", "arguments": {"steps": 3}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "steps_sync", "arguments": {"steps": 3},
                          "_meta": {"progressToken": "p-2"}}}),
    ];
    for frame in &frames {
        stdin
            .write_all(format!("{frame}\n").as_bytes())
            .await
            .unwrap();
    }
    drop(stdin);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        seen.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    assert!(child.wait().await.unwrap().success());
    let progress: Vec<&Value> = seen
        .iter()
        .filter(|f| f["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3, "{seen:?}");
    assert!(
        progress
            .iter()
            .all(|p| p["params"]["progressToken"] == "p-2")
    );
    let position = |pred: &dyn Fn(&Value) -> bool| seen.iter().position(pred).unwrap();
    let last_progress = position(&|f| f["params"]["progress"] == 3.0);
    let response = position(&|f| f["id"] == 2);
    assert!(last_progress < response, "progress precedes the result");
}

/// A client that reuses an id while its call is still running breaks JSON-RPC: the reuse is
/// refused with `-32600` on either path, and the call already running is answered; a long
/// burst of quick calls is answered without starving a call that waits.
#[tokio::test]
async fn reused_ids_are_refused_and_long_bursts_still_get_every_answer() {
    for fast_path in [true, false] {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_fixture_server"));
        if !fast_path {
            command.env("TOOLSMITH_TEST_NO_FAST_PATH", "1");
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut text = String::new();
        for frame in [
            initialize(0, "2025-11-25"),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "slow", "arguments": {"ms": 300}}}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "slow", "arguments": {"ms": 100}}}),
        ] {
            text.push_str(&format!("{frame}\n"));
        }
        // A burst longer than tokio's cooperative budget, written at once.
        for n in 0..5_000 {
            let frame = json!({"jsonrpc": "2.0", "id": 100 + n, "method": "tools/call",
                               "params": {"name": "echo", "arguments": {"text": "x"}}});
            text.push_str(&format!("{frame}\n"));
        }
        stdin.write_all(text.as_bytes()).await.unwrap();
        drop(stdin);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut sevens = Vec::new();
        let mut burst = 0;
        while let Some(line) = lines.next_line().await.unwrap() {
            let frame: Value = serde_json::from_str(&line).unwrap();
            match frame["id"].as_u64() {
                Some(7) => sevens.push(frame),
                Some(n) if n >= 100 => burst += 1,
                _ => {}
            }
        }
        assert!(child.wait().await.unwrap().success());
        assert_eq!(burst, 5_000, "every call of the burst answered once");
        assert_eq!(sevens.len(), 2, "fast path {fast_path}: {sevens:?}");
        assert_eq!(
            sevens[0]["error"]["code"], -32600,
            "the reuse is refused at once"
        );
        assert!(
            sevens[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("already in use"),
            "{sevens:?}"
        );
        assert_eq!(sevens[1]["result"]["structuredContent"]["result"], 300);
    }
}

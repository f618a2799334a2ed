//! The same script of raw JSON-RPC lines, sent to the fixture server along its three paths,
//! must get the same answers, compared field by field:
//!
//! 1. `Fast`: `initialize` at 2025-11-25, then the fast path answers tools/list and tools/call;
//! 2. `Rmcp`: the same with the fast path off (`TOOLSMITH_TEST_NO_FAST_PATH`): rmcp's loop answers;
//! 3. `Stateless`: revision 2026-07-28, with no `initialize`: every request carries its
//!    protocol version and client capabilities (required: rmcp 3.11 answers `-32602` without
//!    them) and client info in `_meta`; rmcp's loop answers the first (it decides the
//!    session), the fast path the rest;
//! 4. `StatelessRmcp`: the same with the fast path off: rmcp's loop answers.
//!
//! Nothing may differ between 1 and 2, nor between 3 and 4. Between 1 and 3, only what
//! 2026-07-28 requires: see [`normalise_2026`] and the log-level test.

mod items;

use serde_json::json;

use crate::harness::{
    Await, Path, Send, Step, Transcript, call, normalise_2026, request, run, tools_call,
};

#[tokio::test]
async fn every_path_answers_the_same_script_alike() {
    let (fast, rmcp, stateless, stateless_rmcp) = tokio::join!(
        run(Path::Fast, &[], main_script(Path::Fast)),
        run(Path::Rmcp, &[], main_script(Path::Rmcp)),
        run(Path::Stateless, &[], main_script(Path::Stateless)),
        run(Path::StatelessRmcp, &[], main_script(Path::StatelessRmcp)),
    );
    let responses = fast.responses();
    // A few anchors, so that the paths cannot agree on something broken.
    let mut ids: Vec<u64> = responses.keys().map(|id| id.parse().unwrap()).collect();
    ids.sort();
    assert_eq!(
        ids,
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15],
        "12 was cancelled"
    );
    assert_eq!(
        responses["4"]["result"],
        json!({"content": [], "isError": false})
    );
    assert_eq!(responses["10"]["error"]["code"], -32602);
    assert_eq!(responses["14"]["result"]["structuredContent"]["result"], 1);
    let timed_out = &responses["15"]["result"]["content"][0]["text"];
    assert_eq!(timed_out, "tool 'timed' timed out after 100ms");
    let notifications = fast.notifications();
    assert_eq!(notifications, fast.notifications_between(None, 11));
    let methods: Vec<&str> = notifications
        .iter()
        .map(|n| n["method"].as_str().unwrap())
        .collect();
    let (log, progress) = ("notifications/message", "notifications/progress");
    assert_eq!(methods, [log, progress, progress, progress, log, log]);

    // Every call of the script (2 to 15) was answered by the way each run is about.
    fast.all_answered_by("stdio", 14);
    rmcp.all_answered_by("rmcp", 14);
    stateless.all_answered_by("stdio", 14);
    stateless_rmcp.all_answered_by("rmcp", 14);
    assert_eq!(
        stateless.responses(),
        stateless_rmcp.responses(),
        "2026-07-28: fast path and rmcp's loop"
    );
    assert_eq!(
        stateless.notifications(),
        stateless_rmcp.notifications(),
        "2026-07-28: fast path and rmcp's loop"
    );

    assert_eq!(responses, rmcp.responses(), "fast path and rmcp's loop");
    assert_eq!(
        notifications,
        rmcp.notifications(),
        "fast path and rmcp's loop"
    );

    let mut modern = stateless.responses();
    normalise_2026(&mut modern, &["1"]);
    let mut legacy = responses;
    legacy.remove("0"); // 2026-07-28 has no initialize
    assert_eq!(legacy, modern, "2025-11-25 and 2026-07-28");
    assert_eq!(
        notifications,
        stateless.notifications(),
        "2025-11-25 and 2026-07-28"
    );
}

/// `serve --read-only`: the list leaves out, and a call refuses, `count` alike on every path.
#[tokio::test]
async fn every_path_refuses_alike_under_read_only() {
    let script = |path| {
        vec![
            Send(request(path, 1, "tools/list", json!({}))),
            Await(1),
            Send(call(path, 2, "count", json!({}))),
            Send(call(path, 3, "add", json!({"a": 2, "b": 3}))),
            Await(3),
        ]
    };
    let args = ["serve", "--read-only"];
    let (fast, rmcp, stateless, stateless_rmcp) = tokio::join!(
        run(Path::Fast, &args, script(Path::Fast)),
        run(Path::Rmcp, &args, script(Path::Rmcp)),
        run(Path::Stateless, &args, script(Path::Stateless)),
        run(Path::StatelessRmcp, &args, script(Path::StatelessRmcp)),
    );
    let responses = fast.responses();
    let tools = responses["1"]["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().all(|tool| tool["name"] != "count"));
    let refused = &responses["2"]["result"];
    assert_eq!(refused["isError"], true);
    assert!(
        refused["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("--read-only")
    );
    assert_eq!(responses["3"]["result"]["structuredContent"]["result"], 5);

    assert_eq!(responses, rmcp.responses(), "fast path and rmcp's loop");
    fast.all_answered_by("stdio", 2);
    rmcp.all_answered_by("rmcp", 2);
    stateless.all_answered_by("stdio", 2);
    stateless_rmcp.all_answered_by("rmcp", 2);
    assert_eq!(
        stateless.responses(),
        stateless_rmcp.responses(),
        "2026-07-28"
    );
    let mut modern = stateless.responses();
    normalise_2026(&mut modern, &["1"]);
    let mut legacy = responses;
    legacy.remove("0"); // 2026-07-28 has no initialize
    assert_eq!(legacy, modern, "2025-11-25 and 2026-07-28");
    assert!(fast.notifications().is_empty() && stateless.notifications().is_empty());
}

/// 2026-07-28 replaces `logging/setLevel` with a per-request level, and "the server MUST NOT
/// emit notifications/message for a request that does not include" its
/// `io.modelcontextprotocol/logLevel` (server/utilities/logging). Progress is unchanged.
#[tokio::test]
async fn log_messages_follow_the_per_request_level_on_2026() {
    let steps = |path, id, meta| tools_call(path, id, "steps", json!({"steps": 2}), meta);
    let fast = run(
        Path::Fast,
        &[],
        vec![
            Send(steps(Path::Fast, 1, json!({"progressToken": "a"}))),
            Await(1),
            Send(request(
                Path::Fast,
                2,
                "logging/setLevel",
                json!({"level": "warning"}),
            )),
            Await(2),
            Send(steps(Path::Fast, 3, json!({"progressToken": "b"}))),
            Await(3),
        ],
    );
    let warning = json!({"progressToken": "b", "io.modelcontextprotocol/logLevel": "warning"});
    let stateless = run(
        Path::Stateless,
        &[],
        vec![
            Send(steps(Path::Stateless, 1, json!({"progressToken": "a"}))),
            Await(1),
            Send(steps(Path::Stateless, 3, warning)),
            Await(3),
        ],
    );
    let (fast, stateless) = tokio::join!(fast, stateless);
    let mut unasked = fast.notifications_between(None, 1);
    unasked.retain(|n| n["method"] != "notifications/message");
    let unasked_2026 = stateless.notifications_between(None, 1);
    assert_eq!(unasked, unasked_2026, "no logLevel: progress only");
    let at_warning = fast.notifications_between(Some(2), 3);
    let at_warning_2026 = stateless.notifications_between(Some(1), 3);
    assert_eq!(at_warning, at_warning_2026, "logLevel warning");
}

/// The calls of the main script; `Await`s keep the order where it matters.
fn main_script(path: Path) -> Vec<Step> {
    let call = |id, name, args| Send(call(path, id, name, args));
    let mut progress = json!({"progressToken": "progress-11"});
    if path.modern() {
        // 2026-07-28 logs only when a request names its level: `info` is the level of a
        // 2025-11-25 session that never sent logging/setLevel.
        progress["io.modelcontextprotocol/logLevel"] = json!("info");
    }
    vec![
        Send(request(path, 1, "tools/list", json!({}))),
        // On 2026-07-28 the first request decides the session: the fast path serves the rest.
        Await(1),
        call(2, "echo", json!({"text": "hi"})),
        call(3, "add", json!({"a": 1, "b": 2})),
        call(4, "nothing", json!({})),
        call(5, "refusing", json!({})),
        call(6, "failing", json!({})),
        call(7, "panicky", json!({"n": 7})),
        call(8, "add", json!({"a": "seven", "b": 1})),
        call(9, "add", json!({"a": 1})),
        call(10, "no_such_tool", json!({})),
        Send(tools_call(path, 11, "steps", json!({"steps": 3}), progress)),
        Await(11),
        // Were 12 not cancelled, it would be answered within the session (the server drains
        // calls in flight at EOF for up to 5 s), and `cancellations` would say 0.
        call(12, "slow", json!({"ms": 2000})),
        Send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": 12, "reason": "differential"}}),
        ),
        call(13, "slow", json!({"ms": 300})),
        Await(13),
        call(14, "cancellations", json!({})),
        Await(14),
        call(15, "timed", json!({"ms": 2000})),
        Await(15),
    ]
}

/// The confirmation step answers alike on every path: with `--confirm write`, `count` (not
/// read-only) must be confirmed, and a client that declared no elicitation is refused the
/// same way on each, while a read-only tool runs as ever. At 2026-07-28 a client that can
/// ask gets the same `input_required` round on both paths (its sealed state aside), and a
/// forged state the same refusal.
#[tokio::test]
async fn the_confirmation_step_answers_alike_on_every_path() {
    let script = |path: Path| {
        let mut steps = vec![
            Send(request(path, 1, "tools/list", json!({}))),
            Await(1),
            Send(call(path, 2, "count", json!({}))),
            Await(2),
            Send(call(path, 3, "echo", json!({"text": "hi"}))),
            Await(3),
        ];
        if path.modern() {
            let asks = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
            steps.push(Send(tools_call(path, 4, "count", json!({}), asks.clone())));
            steps.push(Await(4));
            let mut forged = tools_call(path, 5, "count", json!({}), asks);
            forged["params"]["requestState"] = json!("rs1.AAAA.forged");
            forged["params"]["inputResponses"] = json!({"confirm": {"action": "accept"}});
            steps.push(Send(forged));
            steps.push(Await(5));
        }
        steps
    };
    let args = ["--confirm", "write"];
    let (fast, rmcp, stateless, stateless_rmcp) = tokio::join!(
        run(Path::Fast, &args, script(Path::Fast)),
        run(Path::Rmcp, &args, script(Path::Rmcp)),
        run(Path::Stateless, &args, script(Path::Stateless)),
        run(Path::StatelessRmcp, &args, script(Path::StatelessRmcp)),
    );
    let responses = fast.responses();
    let refused = &responses["2"]["result"];
    assert_eq!(
        refused["_meta"]["dev.toolsmith/error"], "refused",
        "{refused}"
    );
    let why = refused["content"][0]["text"].as_str().unwrap();
    assert!(why.contains("declared no elicitation capability"), "{why}");
    assert_eq!(responses["3"]["result"]["isError"], false);
    assert_eq!(responses, rmcp.responses(), "fast path and rmcp's loop");

    // The round, its state taken out once it is checked to be there.
    let sealed = |transcript: &Transcript| {
        let mut responses = transcript.responses();
        let round = responses.get_mut("4").unwrap()["result"]
            .as_object_mut()
            .unwrap();
        assert_eq!(round["resultType"], "input_required", "{round:?}");
        let state = round.remove("requestState").unwrap();
        assert!(
            state.as_str().is_some_and(|s| s.starts_with("rs")),
            "{state}"
        );
        responses
    };
    let mut modern = sealed(&stateless);
    assert_eq!(
        modern,
        sealed(&stateless_rmcp),
        "2026-07-28: fast path and rmcp's loop"
    );
    let forged = modern["5"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(forged.contains("invalid"), "{forged}");
    modern.remove("4");
    modern.remove("5");
    normalise_2026(&mut modern, &["1"]);
    let mut legacy = responses;
    legacy.remove("0");
    assert_eq!(legacy, modern, "2025-11-25 and 2026-07-28");
}

//! Approvals from the command line, at 2026-07-28 and over a session of the asking binary:
//! rules before the round is asked, approvers that stand in for a client that cannot ask,
//! the approvals page, a yes the user remembered, a webhook's decision by callback.

use std::time::Duration;

use serde_json::json;
use toolsmith_tests::asking::{accept, meta, modern_call, refused, text};
use toolsmith_tests::raw::{Raw, call};

const ASKING: &str = env!("CARGO_BIN_EXE_asking");

/// At 2026-07-28, approval rules (`--approve rules=FILE`, here by its variable) decide
/// before a round is asked: an allowed call runs at once, a denied one is refused with the
/// rule's reason, and one no rule decides asks the user in an `input_required` round.
#[tokio::test]
async fn approval_rules_decide_before_the_round_is_asked() {
    let rules = std::env::temp_dir().join(format!("toolsmith-approve-{}.toml", std::process::id()));
    std::fs::write(
        &rules,
        "[[rule]]\ntools = [\"remove\"]\narguments = { item = \"the milk\" }\ndecision = \"allow\"\n\n\
         [[rule]]\ntools = [\"remove\"]\narguments = { item = \"the eggs\" }\ndecision = \"deny\"\nreason = \"eggs stay\"\n",
    )
    .unwrap();
    let approve = format!("rules={}", rules.display());
    for fast in [true, false] {
        let mut env = vec![("TOOLSMITH_APPROVE", approve.as_str())];
        if !fast {
            env.push(("TOOLSMITH_TEST_NO_FAST_PATH", "1"));
        }
        let mut raw = Raw::program(ASKING, &env);
        let milk = raw
            .ask(&modern_call(1, "remove", json!({"item": "the milk"}), None))
            .await;
        assert_eq!(text(&milk), "removed the milk", "fast {fast}: {milk}");
        assert_eq!(milk["result"]["resultType"], "complete");
        let eggs = raw
            .ask(&modern_call(2, "remove", json!({"item": "the eggs"}), None))
            .await;
        assert!(refused(&eggs), "fast {fast}: {eggs}");
        assert!(text(&eggs).contains("eggs stay"), "{eggs}");
        let bread = raw
            .ask(&modern_call(
                3,
                "remove",
                json!({"item": "the bread"}),
                None,
            ))
            .await;
        assert_eq!(bread["result"]["resultType"], "input_required", "{bread}");
        let state = bread["result"]["requestState"].as_str().unwrap().to_owned();
        let retry = modern_call(
            4,
            "remove",
            json!({"item": "the bread"}),
            Some((&state, json!({"confirm": accept()}))),
        );
        assert_eq!(text(&raw.ask(&retry).await), "removed the bread");
    }
    // A rules file that cannot be used stops the start, saying why.
    std::fs::write(&rules, "[[rule]]\ndecision = \"perhaps\"\n").unwrap();
    let (code, stderr) = toolsmith_tests::exit_of(ASKING, &["--approve", &approve]).await;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("rule 1: `decision = \"perhaps\"`"),
        "{stderr}"
    );
    std::fs::remove_file(&rules).unwrap();
    // A webhook needs its secret.
    let webhook = ["--approve", "webhook=http://127.0.0.1:9/approve"];
    let (code, stderr) = toolsmith_tests::exit_of(ASKING, &webhook).await;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("needs TOOLSMITH_APPROVE_SECRET"),
        "{stderr}"
    );
}

/// `--approve client,rules=FILE`: a client that can ask its user asks; the rules decide only
/// for one that cannot (an unattended agent), at 2026-07-28 and over a 2025-11-25 session.
#[tokio::test]
async fn approvers_after_the_client_decide_only_when_it_cannot_ask() {
    let rules = std::env::temp_dir().join(format!("toolsmith-instead-{}.toml", std::process::id()));
    std::fs::write(
        &rules,
        "[[rule]]\ntools = [\"remove\"]\ndecision = \"allow\"\n",
    )
    .unwrap();
    let approve = format!("client,rules={}", rules.display());
    let env = [("TOOLSMITH_APPROVE", approve.as_str())];
    let mut raw = Raw::program(ASKING, &env);
    let asked = raw
        .ask(&modern_call(1, "remove", json!({"item": "x"}), None))
        .await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let mut unattended = modern_call(2, "remove", json!({"item": "x"}), None);
    unattended["params"]["_meta"] = meta(json!({}));
    let ran = raw.ask(&unattended).await;
    assert_eq!(text(&ran), "removed x", "{ran}");

    let mut command = tokio::process::Command::new(ASKING);
    command.envs(env);
    let mut session = toolsmith_tests::asking::session_of(command, json!({})).await;
    let ran = session.ask(&call(3, "remove", json!({"item": "y"}))).await;
    assert_eq!(text(&ran), "removed y", "{ran}");
    std::fs::remove_file(&rules).unwrap();
}

/// `--approve page=ADDR`: a call waits in its round while an operator approves it on the
/// page, opened with the page's own token.
#[tokio::test]
async fn an_approvals_page_from_the_command_line_decides_a_call() {
    use toolsmith_tests::http::request;
    const TOKEN: &str = "operator-token-0123456789";
    let addr = format!("127.0.0.1:{}", toolsmith_tests::free_port());
    let mut command = tokio::process::Command::new(ASKING);
    command
        .args(["--approve", &format!("page={addr}")])
        .env("TOOLSMITH_APPROVE_TOKEN", TOKEN);
    let mut raw = Raw::spawn(command, std::process::Stdio::null());
    raw.send(&modern_call(1, "remove", json!({"item": "x"}), None))
        .await;
    let bearer = format!("Bearer {TOKEN}");
    let mut html = String::new();
    for _ in 0..250 {
        if tokio::net::TcpStream::connect(&addr).await.is_ok() {
            html = request(&addr, "GET", "/", &[("Authorization", &bearer)], "")
                .await
                .body;
            if html.contains("remove") {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(html.contains("Remove x?"), "{html}");
    let form = format!(
        "id={}&decision=approve&remember=0&csrf={}",
        toolsmith_tests::http::form_value(&html, "id"),
        toolsmith_tests::http::form_value(&html, "csrf")
    );
    let headers = [
        ("Authorization", bearer.as_str()),
        ("Content-Type", "application/x-www-form-urlencoded"),
    ];
    assert_eq!(
        request(&addr, "POST", "/decide", &headers, &form)
            .await
            .status,
        303
    );
    let (_, answered) = raw.until(&json!(1)).await;
    assert_eq!(text(&answered), "removed x", "{answered}");

    let page = ["--approve", "page=127.0.0.1:0"];
    let (code, stderr) = toolsmith_tests::exit_of(ASKING, &page).await;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("needs TOOLSMITH_APPROVE_TOKEN"), "{stderr}");
}

/// `--approve-wait SECS`: the page waits that long for an operator, then the call is refused
/// (by default it would wait 60 s).
#[tokio::test]
async fn the_approvers_wait_comes_from_the_command_line() {
    let addr = format!("127.0.0.1:{}", toolsmith_tests::free_port());
    let mut command = tokio::process::Command::new(ASKING);
    command
        .args(["--approve", &format!("page={addr}"), "--approve-wait", "1"])
        .env("TOOLSMITH_APPROVE_TOKEN", "operator-token-0123456789");
    let mut raw = Raw::spawn(command, std::process::Stdio::null());
    let asked = modern_call(1, "remove", json!({"item": "x"}), None);
    let answered = tokio::time::timeout(Duration::from_secs(20), raw.ask(&asked))
        .await
        .expect("refused after the wait, not after the default 60 s");
    assert!(
        answered
            .to_string()
            .contains("no one decided on the approvals page within 1s"),
        "{answered}"
    );
}

/// With "don't ask again" offered, the form says what it covers, and a yes with it ticked
/// lets the caller's next calls of the tool run without a question: in a 2026-07-28 round,
/// and over a 2025-11-25 session.
#[tokio::test]
async fn a_yes_remembered_by_the_user_is_not_asked_again() {
    let env = [("TOOLSMITH_TEST_OFFER_REMEMBER_SECS", "3600")];
    let remembered = json!({"action": "accept", "content": {"confirm": true, "remember": true}});

    let mut raw = Raw::program(ASKING, &env);
    let first = raw
        .ask(&modern_call(1, "remove", json!({"item": "x"}), None))
        .await;
    let form = &first["result"]["inputRequests"]["confirm"]["params"]["requestedSchema"];
    assert_eq!(
        form["properties"]["remember"]["title"], "Don't ask again for 1 h",
        "{first}"
    );
    assert_eq!(
        form["properties"]["remember"]["description"],
        "Your calls of remove run without asking for the next 1 h."
    );
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = modern_call(
        2,
        "remove",
        json!({"item": "x"}),
        Some((&state, json!({"confirm": remembered.clone()}))),
    );
    assert_eq!(text(&raw.ask(&retry).await), "removed x");
    let next = raw
        .ask(&modern_call(3, "remove", json!({"item": "y"}), None))
        .await;
    assert_eq!(text(&next), "removed y", "not asked again: {next}");

    let mut raw = toolsmith_tests::asking::session(ASKING, &env).await;
    raw.send(&call(1, "remove", json!({"item": "a"}))).await;
    let asked = raw.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    raw.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": remembered}))
        .await;
    let (_, answered) = raw.until(&json!(1)).await;
    assert_eq!(text(&answered), "removed a", "{answered}");
    raw.send(&call(2, "remove", json!({"item": "b"}))).await;
    let (before, next) = raw.until(&json!(2)).await;
    assert_eq!(text(&next), "removed b", "{next}");
    assert!(
        before.iter().all(|f| f["method"] != "elicitation/create"),
        "not asked again: {before:?}"
    );
}

/// `--approve client,webhook=URL` with `TOOLSMITH_APPROVE_CALLBACK_ADDR`: an unattended
/// agent's call waits while the approval service answers `202 Accepted`, and runs once the
/// service posts its signed decision to the callback listener the server opened.
#[tokio::test]
async fn an_unattended_call_runs_on_a_decision_posted_to_the_callback_listener() {
    use base64::Engine;
    use toolsmith::approve::Decision;
    use toolsmith::testing::ApprovalService;

    let secret = [8u8; 32];
    let service = ApprovalService::deciding_later(&secret).await.unwrap();
    let callback = format!("127.0.0.1:{}", toolsmith_tests::free_port());
    let approve = format!("client,webhook={}", service.url());
    let encoded = base64::engine::general_purpose::STANDARD.encode(secret);
    let env = [
        ("TOOLSMITH_APPROVE", approve.as_str()),
        ("TOOLSMITH_APPROVE_SECRET", encoded.as_str()),
        ("TOOLSMITH_APPROVE_CALLBACK_ADDR", callback.as_str()),
    ];
    let mut raw = Raw::program(ASKING, &env);
    let mut unattended = modern_call(1, "remove", json!({"item": "x"}), None);
    unattended["params"]["_meta"] = meta(json!({}));
    raw.send(&unattended).await;
    let mut heard = Vec::new();
    for _ in 0..200 {
        heard = service.heard();
        if !heard.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let request = heard.first().expect("the service was asked within 20 s");
    assert_eq!(request["callback"], format!("http://{callback}/"));
    let status = service
        .decide_later(request, Decision::approve(), None)
        .await
        .unwrap();
    assert_eq!(status, 204, "taken by the call that waits");
    let ran = raw
        .next_within(Duration::from_secs(20))
        .await
        .expect("the call's answer");
    assert_eq!(text(&ran), "removed x", "{ran}");
}

//! Upstreams that attack the gateway through what they list and say (the fixture
//! `tests/fixtures/hostile_listing.py`): a `tools/list` never answered, an endless listing,
//! names MCP does not allow (a terminal control among them), a log sent after an answer that
//! must reach no later caller, and an HTTP upstream whose URL holds its key.

use std::time::Duration;

use serde_json::json;
use toolsmith::Server;
use toolsmith::testing::Client;
use toolsmith_gateway::Upstream;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/hostile_listing.py");

/// The fixture over stdio in `mode`, named `name`.
fn hostile(name: &str, mode: &str) -> Upstream {
    Upstream::stdio(name, "python3").args([FIXTURE, mode])
}

/// How long a test waits for what must end well before (it fails, never hangs).
const BOUND: Duration = Duration::from_secs(60);

#[tokio::test]
async fn a_tools_list_never_answered_fails_the_connect_in_time_naming_the_upstream() {
    let connecting = hostile("silent", "silent")
        .list_timeout(Duration::from_secs(1))
        .connect();
    let failed = tokio::time::timeout(BOUND, connecting)
        .await
        .expect("the connect ends within its list timeout")
        .unwrap_err()
        .to_string();
    assert!(
        failed.contains("upstream 'silent'") && failed.contains("tools/list within 1s"),
        "{failed}"
    );
}

#[tokio::test]
async fn the_endless_listing_stops_at_its_bounds_and_what_was_read_is_served() {
    // A fresh cursor after every page, 50 tools a page: 10,000 tools are read, no more.
    let endless = tokio::time::timeout(BOUND, hostile("endless", "endless").connect())
        .await
        .expect("the listing ends at its bounds")
        .unwrap();
    let registry = endless.registry().unwrap();
    assert_eq!(registry.tools().len(), 10_000);
    // The same cursor again: the list ends there (its two pages served).
    let repeated = tokio::time::timeout(BOUND, hostile("again", "repeated").connect())
        .await
        .expect("a repeated cursor ends the listing")
        .unwrap();
    let names: Vec<String> = repeated
        .registry()
        .unwrap()
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(names, ["again_t1", "again_t2"]);
}

#[tokio::test]
async fn a_tool_whose_name_mcp_does_not_allow_is_left_out_and_the_others_are_served() {
    let mounted = hostile("names", "names").connect().await.unwrap();
    let registry = mounted.registry().unwrap();
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    // Left out: ESC and a line feed, a space, a second `fine`, a schema that is no object's.
    assert_eq!(names, ["names_fine"]);
    let client = Client::connect(Server::with_registry(registry))
        .await
        .unwrap();
    let answered = client.call("names_fine", json!({})).await.unwrap();
    assert_eq!(answered.text(), "fine answered ");
}

/// `toolsmith gateway` serves the upstream's other tools, and its warning shows the name
/// escaped: the upstream's ESC and line feed never reach the operator's terminal.
#[test]
fn the_gateway_command_warns_of_a_left_out_name_escaped() {
    let toolsmith = toolsmith_tests::built("toolsmith-cli", "--bin", "toolsmith");
    let dir = std::env::temp_dir().join(format!("toolsmith-listing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("names.json");
    let servers =
        json!({"mcpServers": {"names": {"command": "python3", "args": [FIXTURE, "names"]}}});
    std::fs::write(&config, servers.to_string()).unwrap();
    let out = std::process::Command::new(toolsmith)
        .args(["gateway", "--config"])
        .arg(&config)
        .arg("tools")
        .env("NO_COLOR", "1")
        .env_remove("TOOLSMITH_LOG")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("names_fine"), "{stdout}");
    assert!(
        !stderr.contains('\u{1b}'),
        "a raw ESC reached stderr: {stderr:?}"
    );
    assert!(
        !stderr.contains("bad\n"),
        "a raw line feed reached stderr: {stderr:?}"
    );
    let warned = stderr
        .lines()
        .find(|line| line.contains("left out: its name holds"))
        .unwrap_or_else(|| panic!("no warning names it: {stderr}"));
    assert!(warned.contains(r"tool=bad\x1b[2J\x0aname"), "{warned}");
}

/// Polls for `marker` (the fixture writes it once the gateway answered the ping it sent after
/// its late log: the log was read by then).
async fn wait_for(marker: &std::path::Path) {
    for _ in 0..1_000 {
        if marker.exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the fixture never wrote {}", marker.display());
}

#[tokio::test]
#[allow(deprecated)] // MCP logging: deprecated in rmcp (SEP-2577), still in 2025-11-25.
async fn the_cross_caller_log_a_log_after_an_answer_reaches_no_later_caller() {
    let marker = std::env::temp_dir().join(format!(
        "toolsmith-late-log-{}-{:?}",
        std::process::id(),
        std::time::Instant::now()
    ));
    let upstream =
        Upstream::stdio("up", "python3").args([FIXTURE, "logs", &marker.to_string_lossy()]);
    let mounted = upstream.connect().await.unwrap();
    let registry = mounted.registry().unwrap();
    // Two callers of the one upstream: alice and bob, each a client of their own.
    let alice = Client::connect(Server::with_registry(registry.clone()))
        .await
        .unwrap();
    let bob = Client::connect(Server::with_registry(registry))
        .await
        .unwrap();
    let logs = |outcome: &toolsmith::testing::CallOutcome| -> Vec<serde_json::Value> {
        outcome.logs().iter().map(|l| l.data.clone()).collect()
    };

    // A log sent during a call reaches that call's caller only.
    let said = alice
        .call("up_talk", json!({"who": "alice"}))
        .await
        .unwrap();
    assert_eq!(logs(&said), [json!("said during alice's call")]);
    let said = bob.call("up_talk", json!({"who": "bob"})).await.unwrap();
    assert_eq!(logs(&said), [json!("said during bob's call")]);

    // Alice's call answered, the upstream logs 0.2 s later: bob's next call never gets it.
    let late = alice
        .call("up_late", json!({"who": "alice"}))
        .await
        .unwrap();
    assert_eq!(late.text(), "late answered alice");
    wait_for(&marker).await;
    let next = bob.call("up_echo", json!({"who": "bob"})).await.unwrap();
    assert_eq!(next.text(), "echo answered bob");
    assert!(logs(&next).is_empty(), "bob got {:?}", logs(&next));
    let _ = std::fs::remove_file(&marker);
}

/// The fixture over HTTP, started: it and its port.
fn http_upstream() -> (std::process::Child, u16) {
    use std::io::BufRead;
    let mut child = std::process::Command::new("python3")
        .args([FIXTURE, "http"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let stdout = child.stdout.take().unwrap();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().parse().unwrap();
    (child, port)
}

#[tokio::test]
async fn an_http_upstreams_url_and_key_never_reach_an_error() {
    let (mut child, port) = http_upstream();
    let url = format!("http://user:pw@127.0.0.1:{port}/mcp?key=s3cret");
    let mounted = Upstream::http("remote", &url).connect().await.unwrap();
    let shown = format!("{:?}", mounted.upstream());
    assert!(
        !shown.contains("s3cret") && !shown.contains("pw@"),
        "{shown}"
    );
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap();
    // The upstream exits without answering the call; each call after is refused (or finds
    // it restarting): every error names it, none its URL, its key or a Rust type.
    let mut said = Vec::new();
    for _ in 0..5 {
        let err = client.call("remote_fetch", json!({})).await.unwrap_err();
        said.push(err.message());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = child.wait();
    let connect = Upstream::http("remote", &url)
        .connect_timeout(Duration::from_secs(5))
        .connect()
        .await
        .unwrap_err();
    said.push(connect.to_string());
    for message in &said {
        assert!(message.contains("upstream 'remote'"), "{message}");
        for leak in [
            "s3cret",
            "key=",
            "pw@",
            "127.0.0.1",
            "reqwest",
            "Http",
            "RelayingTransport",
            "::",
        ] {
            assert!(!message.contains(leak), "{leak} in {message}");
        }
    }
}

#[tokio::test]
async fn a_relist_never_answered_ends_in_time_and_the_next_change_is_served() {
    // Its second `tools/list` (the first re-list) is never answered; the ones after add `fresh`.
    let mounted = hostile("re", "relist")
        .list_timeout(Duration::from_secs(1))
        .connect()
        .await
        .unwrap();
    let server = Server::with_registry(mounted.registry().unwrap());
    mounted.follow(server.registry_handle());
    let client = Client::connect(server).await.unwrap();
    // Each poke says the list changed: the re-list that hangs ends at its timeout, and a
    // later change is read and served.
    for _ in 0..100 {
        client.call("re_poke", json!({})).await.unwrap();
        let tools = client.tools().await.unwrap();
        if tools.iter().any(|t| t.name == "re_fresh") {
            let fresh = client.call("re_fresh", json!({})).await.unwrap();
            assert_eq!(fresh.text(), "fresh answered ");
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the change after the hung re-list was never served");
}

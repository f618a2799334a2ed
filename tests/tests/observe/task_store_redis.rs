//! The Redis task store against Debian's `redis-server`, started here on a free loopback
//! port with nothing written to disk: it keeps tasks as every store must
//! (`check_task_store`), and an unreachable Redis is a clear error, never a task left
//! unknown.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolsmith::task::{RedisStore, TaskStore};

/// A redis-server of this test's own, stopped when dropped.
pub(super) struct Redis {
    _child: tokio::process::Child,
    pub(super) url: String,
}

fn redis_server() -> String {
    ["/usr/bin/redis-server", "/usr/sbin/redis-server", "/usr/local/bin/redis-server"]
        .into_iter()
        .find(|path| std::path::Path::new(path).exists())
        .map(str::to_owned)
        .expect("redis-server is not installed: `apt-get install redis-server` (./scripts/test installs it)")
}

pub(super) async fn start() -> Redis {
    let port = toolsmith_tests::free_port();
    let dir = std::env::temp_dir();
    let child = tokio::process::Command::new(redis_server())
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
        ])
        .args(["--appendonly", "no", "--daemonize", "no", "--dir"])
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("redis-server starts");
    for _ in 0..200 {
        if let Ok(mut stream) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
            let mut pong = [0u8; 5];
            if stream.write_all(b"PING\r\n").await.is_ok()
                && stream.read_exact(&mut pong).await.is_ok()
                && &pong == b"+PONG"
            {
                return Redis {
                    _child: child,
                    url: format!("redis://127.0.0.1:{port}/0"),
                };
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("redis-server did not answer PING within 10 s");
}

#[tokio::test]
async fn the_redis_store_keeps_tasks_as_a_store_must() {
    let redis = start().await;
    let store = RedisStore::open(&redis.url).unwrap();
    toolsmith::testing::check_task_store(&store, "redis").await;
    // Two servers on one Redis keep apart under their own prefixes.
    let other = RedisStore::open(&redis.url).unwrap().prefix("other:task:");
    assert_eq!(other.get("redis-lost", 0).await.unwrap(), None);
    assert!(store.get("redis-lost", 0).await.unwrap().is_some());
}

#[tokio::test]
async fn an_unreachable_store_is_a_clear_error_and_nothing_runs() {
    // Nothing listens on port 1.
    let store = RedisStore::open("redis://127.0.0.1:1/0").unwrap();
    let err = store.get("x", 0).await.unwrap_err();
    assert!(
        err.to_string().starts_with("the task store failed: "),
        "{err}"
    );

    let server = toolsmith::Server::new()
        .state(toolsmith_examples::store::Notes::seeded())
        .task_store(Arc::new(store));
    let client = toolsmith::testing::Client::connect(server).await.unwrap();
    let err = client
        .call_task("import_notes", json!({"count": 1, "pace_ms": 1}))
        .await
        .unwrap_err();
    let message = err.message();
    assert!(message.contains("could not start as a task"), "{message}");
    assert!(message.contains("the task store failed"), "{message}");
    let err = client.task("x").await.unwrap_err();
    assert!(err.message().contains("the task store failed"), "{err}");
    // The server goes on: an ordinary call still runs.
    let found = client.call("search_notes", json!({"query": "milk"})).await;
    assert!(found.is_ok());
}

/// With a shared Redis store, a 2026-07-28 request state is used once: its retry runs the
/// tool on one replica, and the same retry sent again, to that replica or another, is
/// refused; a store without marks (memory) lets a state open again, as documented.
#[tokio::test]
async fn a_request_state_is_used_once_across_replicas_that_share_redis() {
    use toolsmith_tests::asking::{KEY, accept, modern_call, refused, text};
    use toolsmith_tests::http::HttpServer;

    let redis = start().await;
    let shared = ["--state-key", KEY, "--task-store", redis.url.as_str()];
    let a = HttpServer::start(ASKING, &shared).await;
    let b = HttpServer::start(ASKING, &shared).await;
    let first = post(&a, modern_call(1, "remove", json!({"item": "x"}), None)).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = modern_call(
        2,
        "remove",
        json!({"item": "x"}),
        Some((&state, json!({"confirm": accept()}))),
    );
    assert_eq!(text(&post(&a, retry.clone()).await), "removed x");
    for replica in [&a, &b] {
        let replayed = post(replica, retry.clone()).await;
        assert!(refused(&replayed), "{replayed}");
        assert!(text(&replayed).contains("used already"), "{replayed}");
    }

    // The memory store keeps no marks: the same retry runs twice.
    let alone = HttpServer::start(ASKING, &["--state-key", KEY]).await;
    let first = post(&alone, modern_call(3, "remove", json!({"item": "y"}), None)).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = modern_call(
        4,
        "remove",
        json!({"item": "y"}),
        Some((&state, json!({"confirm": accept()}))),
    );
    assert_eq!(text(&post(&alone, retry.clone()).await), "removed y");
    assert_eq!(text(&post(&alone, retry).await), "removed y");
}

pub(super) const ASKING: &str = env!("CARGO_BIN_EXE_asking");

/// The answer to `body`, a 2026-07-28 call of `remove`, posted to `server`.
pub(super) async fn post(
    server: &toolsmith_tests::http::HttpServer,
    body: serde_json::Value,
) -> serde_json::Value {
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "remove"),
    ];
    let response = server.post(&body, &headers).await;
    assert_eq!(response.status, 200, "{}", response.body);
    response.messages().pop().expect("an answer")
}

/// With a shared Redis store, an approval remembered on one replica holds on another, and a
/// revoke on any of them reaches all.
#[tokio::test]
async fn a_remembered_approval_holds_on_every_replica_that_shares_redis() {
    use toolsmith::approve::{Approval, Decision, Remember};
    use toolsmith::testing::{Answer, Client};
    use toolsmith::{Server, context::Caller};

    let redis = start().await;
    let store: Arc<dyn TaskStore> =
        Arc::new(RedisStore::open(&redis.url).unwrap().prefix("grants:"));
    let notes = toolsmith_examples::store::Notes::seeded;
    // Replica A approves, for ten minutes; on replica B the user declines everything.
    let a = Server::new()
        .state(notes())
        .task_store(store.clone())
        .approver(|_: &Approval| Decision::Approve(Remember::For(Duration::from_secs(600))));
    let b = Server::new().state(notes()).task_store(store.clone());
    let b_grants = b.grants();
    let a = Client::connect(a).await.unwrap();
    let b = Client::connect(b)
        .await
        .unwrap()
        .on_confirm(|_| Answer::Decline);
    let delete = |id: u64| json!({"note_id": id});
    let declined = b.call("delete_note", delete(1)).await.unwrap_err();
    assert!(declined.message().contains("declined"), "{declined}");

    a.call("delete_note", delete(1)).await.unwrap();
    let anyone = Caller::anonymous();
    let mut shared = false;
    for _ in 0..100 {
        shared = b_grants.holds(&anyone, "delete_note").await;
        if shared {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(shared, "replica B sees the grant made on A");
    b.call("delete_note", delete(2))
        .await
        .expect("runs on B without asking: A's approval is remembered");

    assert!(b_grants.revoke(&anyone, "delete_note").await);
    let declined = b.call("delete_note", delete(3)).await.unwrap_err();
    assert!(declined.message().contains("declined"), "{declined}");
}

/// An approval service that decides later posts its decision to the callback URL, behind
/// nginx in front of two replicas that share Redis: whichever replica nginx picks takes it
/// (`204` when the call waits there, `202` handed over through Redis to the replica whose
/// call waits), and the waiting calls complete; a denial refuses its call, and a decision
/// that never comes times out.
#[tokio::test]
async fn a_decision_by_callback_reaches_the_replica_whose_call_waits() {
    use toolsmith::Server;
    use toolsmith::approve::{Decision, Webhook};
    use toolsmith::testing::{ApprovalService, Client};

    let redis = start().await;
    let store: Arc<dyn TaskStore> =
        Arc::new(RedisStore::open(&redis.url).unwrap().prefix("callbacks:"));
    let secret = [6u8; 32];
    let service = ApprovalService::deciding_later(&secret).await.unwrap();
    let a_addr = format!("127.0.0.1:{}", toolsmith_tests::free_port());
    let b_addr = format!("127.0.0.1:{}", toolsmith_tests::free_port());
    let nginx = toolsmith_tests::nginx::Nginx::start(|port| {
        format!(
            "  upstream replicas {{ server {a_addr}; server {b_addr}; }}\n  server {{\n    \
             listen 127.0.0.1:{port};\n    location /approvals/decided {{\n      \
             proxy_pass http://replicas/;\n    }}\n  }}"
        )
    })
    .await;
    let public = format!("http://127.0.0.1:{}/approvals/decided", nginx.port);
    let replica = |addr: &str| {
        let hook = Webhook::new(service.url(), secret)
            .unwrap()
            .timeout(Duration::from_secs(30))
            .callbacks(public.clone())
            .callback_store(store.clone());
        let serving = hook.clone().serve_callbacks(addr.to_owned());
        tokio::spawn(async move { serving.await.unwrap() });
        hook
    };
    let hook_a = replica(&a_addr);
    let _hook_b = replica(&b_addr);
    // The calls wait on replica A; the decisions go through nginx, to either replica.
    let a = Server::new()
        .state(toolsmith_examples::store::Notes::seeded())
        .task_store(store.clone())
        .approver_instead_of_client(hook_a);
    let call = |id: u64| {
        let a = a.clone();
        tokio::spawn(async move {
            let agent = Client::connect_unattended(a).await.unwrap();
            agent.call("delete_note", json!({ "note_id": id })).await
        })
    };
    let first = call(1);
    let second = call(2);
    let heard = wait_for(&service, 2).await;
    let mut statuses = Vec::new();
    for request in &heard {
        assert_eq!(request["callback"], public.as_str());
        let status = service
            .decide_later(request, Decision::approve(), None)
            .await
            .unwrap();
        statuses.push(status);
    }
    statuses.sort();
    assert_eq!(statuses, [202, 204], "one taken by A, one handed over by B");
    for waiting in [first, second] {
        let ran = waiting.await.unwrap().expect("approved by callback");
        assert_eq!(ran.structured().unwrap()["deleted"], true, "{}", ran.text());
    }

    // A denial by callback refuses the call; an unsigned one is refused at the door.
    let third = call(3);
    let heard = wait_for(&service, 3).await;
    let forged = ApprovalService::deciding_later(&[1u8; 32]).await.unwrap();
    let status = forged
        .decide_later(&heard[2], Decision::approve(), None)
        .await
        .unwrap();
    assert_eq!(status, 401, "a decision signed with another secret");
    service
        .decide_later(&heard[2], Decision::deny("not today"), None)
        .await
        .unwrap();
    let err = third.await.unwrap().unwrap_err();
    assert!(err.message().contains("not today"), "{err}");
}

/// The first `n` requests the service heard, waiting for them (at most 20 s).
async fn wait_for(
    service: &toolsmith::testing::ApprovalService,
    n: usize,
) -> Vec<serde_json::Value> {
    for _ in 0..200 {
        let heard = service.heard();
        if heard.len() >= n {
            return heard;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "the service heard {} requests, not {n}",
        service.heard().len()
    );
}

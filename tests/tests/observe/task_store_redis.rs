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
struct Redis {
    _child: tokio::process::Child,
    url: String,
}

fn redis_server() -> String {
    ["/usr/bin/redis-server", "/usr/sbin/redis-server", "/usr/local/bin/redis-server"]
        .into_iter()
        .find(|path| std::path::Path::new(path).exists())
        .map(str::to_owned)
        .expect("redis-server is not installed: `apt-get install redis-server` (./scripts/test installs it)")
}

async fn start() -> Redis {
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

const ASKING: &str = env!("CARGO_BIN_EXE_asking");

/// The answer to `body`, a 2026-07-28 call of `remove`, posted to `server`.
async fn post(
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
    use toolsmith::{Caller, Server};

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

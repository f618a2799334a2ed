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

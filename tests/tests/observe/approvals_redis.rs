//! Approvals across replicas that share Redis: the store is the truth of what was
//! remembered (a revoke anywhere, on a replica or by `grants revoke`, reaches the replica
//! that made the grant at once), and a request state replayed is told as replayed, never as
//! an approval.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use toolsmith::approve::{Approval, Decision, Remember};
use toolsmith::task::{RedisStore, TaskStore};
use toolsmith::testing::{Answer, Client};
use toolsmith::{Server, context::Caller};
use toolsmith_examples::store::Notes;

use super::task_store_redis::{ASKING, post, start};

/// A replica whose approver approves its first call for ten minutes and passes after; its
/// user declines everything: once the grant is gone, its calls are refused.
async fn approving_once(store: Arc<dyn TaskStore>) -> Client {
    let decided = Arc::new(AtomicUsize::new(0));
    let server = Server::new()
        .state(Notes::seeded())
        .task_store(store)
        .approver(
            move |_: &Approval| match decided.fetch_add(1, Ordering::SeqCst) {
                0 => Decision::Approve(Remember::For(Duration::from_secs(600))),
                _ => Decision::Pass,
            },
        );
    Client::connect(server)
        .await
        .unwrap()
        .on_confirm(|_| Answer::Decline)
}

/// A revoke made on replica B reaches replica A, which made the grant: A asks again.
#[tokio::test]
async fn a_revoke_on_one_replica_reaches_the_replica_that_made_the_grant() {
    let redis = start().await;
    let store: Arc<dyn TaskStore> =
        Arc::new(RedisStore::open(&redis.url).unwrap().prefix("revoked:"));
    let a = approving_once(store.clone()).await;
    let b = Server::new()
        .state(Notes::seeded())
        .task_store(store.clone());
    let b_grants = b.grants();
    let _b = Client::connect(b).await.unwrap();

    a.call("delete_note", json!({"note_id": 1})).await.unwrap();
    a.call("delete_note", json!({"note_id": 2}))
        .await
        .expect("runs on A's grant");
    assert!(b_grants.revoke(&Caller::anonymous(), "delete_note").await);
    let asked = a
        .call("delete_note", json!({"note_id": 3}))
        .await
        .unwrap_err();
    assert!(
        asked.message().contains("declined"),
        "A asked again: {asked}"
    );
}

/// `grants list` shows what a server remembered in the store, and `grants revoke --tool`
/// revokes it there: the server asks again at once.
#[tokio::test]
async fn the_command_line_lists_and_revokes_the_remembered_approvals() {
    let redis = start().await;
    let store: Arc<dyn TaskStore> = Arc::new(RedisStore::open(&redis.url).unwrap());
    let a = approving_once(store).await;
    a.call("delete_note", json!({"note_id": 1})).await.unwrap();

    let grants = |args: &[&str]| {
        let mut command = std::process::Command::new(ASKING);
        command
            .arg("grants")
            .args(args)
            .args(["--task-store", &redis.url]);
        command.output().expect("the command runs")
    };
    let listed = grants(&["list"]);
    let table = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success(), "{listed:?}");
    assert!(table.contains("delete_note"), "{table}");
    assert!(table.contains("local user"), "{table}");
    let revoked = grants(&["revoke", "--tool", "delete_note"]);
    let said = String::from_utf8_lossy(&revoked.stdout);
    assert!(revoked.status.success(), "{revoked:?}");
    assert!(said.contains("revoked 1"), "{said}");
    let asked = a
        .call("delete_note", json!({"note_id": 2}))
        .await
        .unwrap_err();
    assert!(asked.message().contains("declined"), "asked again: {asked}");
    let none = grants(&["revoke", "--tool", "delete_note"]);
    assert_eq!(none.status.code(), Some(2), "{none:?}");
    // Without a shared store, the command says where grants are.
    let alone = std::process::Command::new(ASKING)
        .args(["grants", "list"])
        .env_remove("TOOLSMITH_TASK_STORE")
        .output()
        .unwrap();
    assert_eq!(alone.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&alone.stderr).contains("--task-store"));
}

/// Four retries of one request state over two replicas: one runs, three are refused, and
/// the log and the metrics say one approval and three replays.
#[tokio::test]
async fn a_replayed_state_is_told_as_replayed_not_approved() {
    use toolsmith_tests::asking::{KEY, accept, modern_call, refused, text};
    use toolsmith_tests::http::HttpServer;

    let redis = start().await;
    let replica = |metrics: String| {
        let url = redis.url.clone();
        async move {
            let args = [
                "--state-key",
                KEY,
                "--task-store",
                &url,
                "--metrics-addr",
                &metrics,
            ];
            HttpServer::start(ASKING, &args).await
        }
    };
    let metrics = [0, 1].map(|_| format!("127.0.0.1:{}", toolsmith_tests::free_port()));
    let a = replica(metrics[0].clone()).await;
    let b = replica(metrics[1].clone()).await;
    let first = post(&a, modern_call(1, "remove", json!({"item": "x"}), None)).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = modern_call(
        2,
        "remove",
        json!({"item": "x"}),
        Some((&state, json!({"confirm": accept()}))),
    );
    let mut ran = 0;
    for replica in [&a, &b, &a, &b] {
        let answer = post(replica, retry.clone()).await;
        if refused(&answer) {
            assert!(text(&answer).contains("used already"), "{answer}");
        } else {
            assert_eq!(text(&answer), "removed x");
            ran += 1;
        }
    }
    assert_eq!(ran, 1);

    let mut counted = [0u64; 2];
    for addr in &metrics {
        let body = toolsmith_tests::http::request(addr, "GET", "/metrics", &[], "")
            .await
            .body;
        for (n, decision) in ["approved", "replayed"].into_iter().enumerate() {
            let series =
                format!(r#"toolsmith_approvals_total{{approver="client",decision="{decision}"}} "#);
            counted[n] += body
                .lines()
                .find_map(|line| line.strip_prefix(&series))
                .map_or(0, |value| value.trim().parse::<u64>().unwrap());
        }
    }
    assert_eq!(counted, [1, 3], "approved, replayed");
    let log = format!("{}{}", a.stderr.lock().unwrap(), b.stderr.lock().unwrap());
    let told = |decision: &str| {
        log.lines()
            .filter(|line| line.contains("confirmation decided"))
            .filter(|line| line.contains(&format!("decision=\"{decision}\"")))
            .count()
    };
    assert_eq!((told("approved"), told("replayed")), (1, 3), "{log}");
}

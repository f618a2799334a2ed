//! What every [`TaskStore`] must do, checked against a real one.

use std::time::Duration;

use crate::task::{STOPPED, TaskEnd, TaskProgress, TaskRecord, TaskStatus, TaskStore};

/// Checks that `store` behaves as toolsmith needs of a task store: a created task is there at
/// once; progress is kept while it works; its end is a compare-and-set (a second end, or
/// progress after it, changes nothing); renewing an ended task says so; a task whose lease
/// ran out is failed with [`STOPPED`](crate::task::STOPPED); an ended task is gone once its
/// TTL ran out. Panics, saying what failed. Takes about a second (it waits for a lease and
/// a TTL to run out). `prefix` makes its task ids its own.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// toolsmith::testing::check_task_store(&toolsmith::task::MemoryStore::new(), "doc").await;
/// # }
/// ```
pub async fn check_task_store(store: &dyn TaskStore, prefix: &str) {
    let now = crate::task::now_ms();
    let lease = Duration::from_secs(30);
    let id = format!("{prefix}-lifecycle");
    let task = TaskRecord::working(&id, "alice", "import_notes", 400, 100, now);
    store.create(&task, lease).await.expect("create");
    assert_eq!(
        store.get(&id, now).await.expect("get"),
        Some(task.clone()),
        "a created task is there at once"
    );
    assert_eq!(
        store.get("no-such-task", now).await.expect("get"),
        None,
        "an unknown id is none"
    );

    let progress = TaskProgress {
        progress: 2.0,
        total: Some(5.0),
        message: Some("two of five".into()),
    };
    store
        .progress(&id, &progress, now + 1)
        .await
        .expect("progress");
    let working = store.get(&id, now + 1).await.expect("get").expect("there");
    assert_eq!(
        working.progress.as_ref(),
        Some(&progress),
        "progress is kept"
    );
    assert_eq!(
        working.message.as_deref(),
        Some("two of five"),
        "its message is the status message"
    );
    assert_eq!(working.updated_ms, now + 1);
    assert!(
        store.renew(&id, lease).await.expect("renew"),
        "a working task renews"
    );

    let mut result = serde_json::Map::new();
    result.insert(
        "content".into(),
        serde_json::json!([{"type": "text", "text": "5 × ½ = 2.5"}]),
    );
    let end = TaskEnd {
        status: TaskStatus::Completed,
        message: None,
        result: Some(result.clone()),
        at_ms: now + 2,
    };
    assert!(
        store.finish(&id, &end).await.expect("finish"),
        "a working task ends"
    );
    let cancel = TaskEnd {
        status: TaskStatus::Cancelled,
        message: Some("late".into()),
        result: None,
        at_ms: now + 3,
    };
    assert!(
        !store.finish(&id, &cancel).await.expect("finish"),
        "an ended task does not end again"
    );
    store
        .progress(&id, &progress, now + 4)
        .await
        .expect("progress");
    assert!(
        !store.renew(&id, lease).await.expect("renew"),
        "an ended task does not renew"
    );
    let done = store
        .get(&id, now + 5)
        .await
        .expect("get")
        .expect("kept for its TTL");
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(done.result, Some(result), "the result, exactly");
    assert_eq!(
        done.message, None,
        "its end's message replaced its progress message"
    );
    assert_eq!(done.updated_ms, now + 2);
    assert_eq!(
        (done.owner.as_str(), done.tool.as_str()),
        ("alice", "import_notes")
    );

    let lost = format!("{prefix}-lost");
    let task = TaskRecord::working(&lost, "bob", "import_notes", 60_000, 100, now);
    store
        .create(&task, Duration::from_millis(200))
        .await
        .expect("create");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let failed = store
        .get(&lost, now + 10)
        .await
        .expect("get")
        .expect("there");
    assert_eq!(
        failed.status,
        TaskStatus::Failed,
        "a task whose lease ran out is failed"
    );
    assert_eq!(failed.message.as_deref(), Some(STOPPED));
    assert_eq!(
        failed
            .result
            .as_ref()
            .and_then(|e| e.get("message"))
            .and_then(|m| m.as_str()),
        Some(STOPPED)
    );
    assert!(
        !store
            .renew(&lost, Duration::from_secs(1))
            .await
            .expect("renew"),
        "its run is told to stop"
    );

    // The first task ended 400 ms of TTL ago, at least.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        store.get(&id, now + 20).await.expect("get"),
        None,
        "an ended task is gone after its TTL"
    );
}

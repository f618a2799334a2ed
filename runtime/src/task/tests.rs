use std::time::Duration;

use super::{MemoryStore, TaskProgress, TaskRecord, TaskStore};

#[tokio::test]
async fn the_memory_store_keeps_tasks_as_a_store_must() {
    let store = MemoryStore::new();
    crate::testing::check_task_store(&store, "memory").await;
}

#[tokio::test]
async fn the_memory_store_forgets_ended_tasks_only() {
    let store = MemoryStore::new();
    let task = TaskRecord::working("t", "me", "tool", 1, 1, 0);
    store.create(&task, Duration::from_secs(30)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(store.len(), 1, "a working task is kept whatever its TTL");
    let end = super::TaskEnd {
        status: super::TaskStatus::Cancelled,
        message: None,
        result: None,
        at_ms: 1,
    };
    assert!(store.finish("t", &end).await.unwrap());
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert!(store.is_empty(), "an ended task goes once its TTL ran out");
}

#[test]
fn progress_makes_a_status_message() {
    let whole = TaskProgress {
        progress: 3.0,
        total: None,
        message: None,
    };
    assert_eq!(whole.status_message(), "3");
    let part = TaskProgress {
        progress: 1.5,
        total: Some(4.0),
        message: None,
    };
    assert_eq!(part.status_message(), "1.5/4");
}

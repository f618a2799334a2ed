//! A client that stops reading bounds the server's memory: once the answers waiting for it
//! pass the backlog (16 MiB), no more requests are read and no call that has not started
//! starts, and an answer waits before it is queued; so memory does not grow with the number
//! of calls the client sends.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;
use toolsmith_tests::example_binary;
use toolsmith_tests::raw::{Raw, call};

/// A line of `/proc/PID/status`, in kB.
fn status_kb(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| {
            line.strip_prefix(key)?
                .trim()
                .strip_suffix(" kB")?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

#[tokio::test]
async fn a_client_that_stops_reading_bounds_the_servers_memory() {
    let mut server = Raw::spawn(
        Command::new(example_binary("notes")),
        std::process::Stdio::null(),
    );
    let pid = server.child.id().unwrap();
    server.init().await;
    // A 2 MB note that every search below finds.
    let body = "lorem ipsum ".repeat(2_000_000 / 12);
    let created = server
        .ask(&call(
            1,
            "create_note",
            json!({"title": "Big", "body": body, "tags": []}),
        ))
        .await;
    assert_eq!(created["result"]["isError"], false);
    let before = status_kb(pid, "VmRSS:");

    // 300 searches, each answered with the note, and stdout never read again.
    let mut stdin = server.stdin.take().unwrap();
    let writer = tokio::spawn(async move {
        for id in 2..302 {
            let line = format!("{}\n", call(id, "search_notes", json!({"query": "big"})));
            if stdin.write_all(line.as_bytes()).await.is_err() {
                break;
            }
        }
        stdin
    });
    // Sampled until the peak stays put for 3 s (at most 45 s). With the bound, it settles
    // once the calls that had started when the client stopped reading (up to 64 at once, the
    // default `max_sync_calls`) have answered; without it, it grows until all 300 have.
    let start = Instant::now();
    let (mut peak, mut since) = (0, Instant::now());
    while start.elapsed() < Duration::from_secs(45) && since.elapsed() < Duration::from_secs(3) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let hwm = status_kb(pid, "VmHWM:");
        if hwm > peak {
            (peak, since) = (hwm, Instant::now());
        }
    }
    eprintln!("RSS before {} MB, peak {} MB", before / 1024, peak / 1024);
    assert!(
        peak < before + 800 * 1024,
        "RSS went from {} MB to {} MB",
        before / 1024,
        peak / 1024
    );
    writer.abort();
}

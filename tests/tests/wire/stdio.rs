//! The real notes example binary, spawned and driven over stdio.

use std::process::Stdio;

use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use toolsmith_tests::{call, example_binary, initialize, spawn_piped, text};

#[tokio::test]
async fn the_notes_binary_serves_over_stdio() {
    let path = example_binary("notes");
    let transport = TokioChildProcess::new(Command::new(&path)).expect("the server spawns");
    let client = ().serve(transport).await.expect("initialize succeeds");

    let info = client.peer_info().expect("the server introduced itself");
    let implementation = info.server_info.clone().expect("serverInfo is sent");
    assert_eq!(implementation.name, "toolsmith-examples");
    assert_eq!(implementation.version, env!("CARGO_PKG_VERSION"));

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "create_note",
            "delete_note",
            "get_note",
            "import_notes",
            "import_url",
            "search_notes",
            "tag_chart"
        ]
    );

    let found = call(&client, "search_notes", json!({"query": "lighthouse"}))
        .await
        .unwrap();
    assert_eq!(
        found.structured_content.unwrap()["result"][0]["title"],
        "Book ideas"
    );
    let missing = call(&client, "get_note", json!({"note_id": 99}))
        .await
        .unwrap();
    assert_eq!(text(&missing), "No note with id 99.");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn stdout_carries_frames_only_and_eof_exits_zero() {
    let path = example_binary("notes");
    let mut child = spawn_piped(&path, Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    let requests = [
        initialize(1, "2025-11-25"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "search_notes", "arguments": {"query": "milk"}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "no_such_tool", "arguments": {}}}),
    ];
    for request in &requests {
        stdin
            .write_all(format!("{request}\n").as_bytes())
            .await
            .unwrap();
    }
    drop(stdin); // EOF: the server must finish its work and exit cleanly.

    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ids = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        let frame: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert_eq!(frame["jsonrpc"], "2.0", "{line}");
        if frame["id"] == 4 {
            assert_eq!(frame["error"]["code"], -32602, "unknown tool: {line}");
        }
        ids.push(frame["id"].as_i64().unwrap());
    }
    ids.sort();
    assert_eq!(ids, [1, 2, 3, 4], "every request answered exactly once");
    let status = child.wait().await.unwrap();
    assert!(status.success(), "exit status {status}");
}

/// Clients on every protocol revision with an `initialize` handshake get a working session
/// at their own version.
#[tokio::test]
async fn every_protocol_version_gets_a_working_connection() {
    let path = example_binary("notes");
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut child = spawn_piped(&path, Stdio::null());
        let mut stdin = child.stdin.take().unwrap();
        let requests = [
            initialize(1, version),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "get_note", "arguments": {"note_id": 2}}}),
        ];
        for request in &requests {
            stdin
                .write_all(format!("{request}\n").as_bytes())
                .await
                .unwrap();
        }
        drop(stdin);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut frames = std::collections::HashMap::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            let frame: serde_json::Value = serde_json::from_str(&line).unwrap();
            frames.insert(frame["id"].as_i64().unwrap(), frame);
        }
        assert!(child.wait().await.unwrap().success());
        assert_eq!(
            frames[&1]["result"]["protocolVersion"], version,
            "{version}"
        );
        assert_eq!(
            frames[&2]["result"]["tools"].as_array().unwrap().len(),
            7,
            "{version}"
        );
        let call = &frames[&3]["result"];
        assert_eq!(
            call["structuredContent"]["title"], "Standup notes",
            "{version}: {call}"
        );
        assert!(
            call.get("resultType").is_none(),
            "{version}: no 2026 fields for older peers"
        );
    }
}

/// The next frame on `lines`, failing the test after ten seconds.
async fn next_frame(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
) -> serde_json::Value {
    let line = tokio::time::timeout(std::time::Duration::from_secs(10), lines.next_line())
        .await
        .expect("a frame within ten seconds")
        .unwrap()
        .expect("the server is still writing");
    serde_json::from_str(&line).unwrap()
}

/// Answers queued while a burst of requests is read are written before the server waits for
/// more input, even when the burst ends with a message that gets no answer; the client keeps
/// its stdin open and waits.
#[tokio::test]
async fn answers_to_a_burst_are_written_before_the_server_waits_for_input() {
    let path = example_binary("notes");
    let mut child = spawn_piped(&path, Stdio::null());
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let init = format!(
        "{}\n{}\n",
        initialize(1, "2025-11-25"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    stdin.write_all(init.as_bytes()).await.unwrap();
    assert_eq!(next_frame(&mut lines).await["id"], 1);

    let burst = [
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "get_note", "arguments": {"note_id": 1}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "get_note", "arguments": {"note_id": "one"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": 99}}),
    ];
    let mut text: String = burst.iter().map(|r| format!("{r}\n")).collect();
    text.push_str("{not json\n");
    stdin.write_all(text.as_bytes()).await.unwrap(); // one write; stdin stays open

    let mut frames = std::collections::HashMap::new();
    for _ in 0..4 {
        let frame = next_frame(&mut lines).await;
        frames.insert(frame["id"].to_string(), frame);
    }
    assert_eq!(frames["2"]["result"]["structuredContent"]["id"], 1);
    assert_eq!(frames["3"]["result"]["tools"].as_array().unwrap().len(), 7);
    assert_eq!(frames["4"]["result"]["isError"], true, "{}", frames["4"]);
    assert_eq!(frames["null"]["error"]["code"], -32700);
    drop(stdin);
    assert!(child.wait().await.unwrap().success());
}

/// stdin need not be a pipe: a file of requests is served too (through tokio's stdin).
#[tokio::test]
async fn requests_from_a_file_are_served() {
    let path = example_binary("notes");
    let requests = [
        initialize(1, "2025-11-25"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "get_note", "arguments": {"note_id": 2}}}),
    ];
    let file = std::env::temp_dir().join(format!("toolsmith-stdin-{}.jsonl", std::process::id()));
    let text: String = requests.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&file, text).unwrap();
    let output = tokio::process::Command::new(&path)
        .stdin(std::fs::File::open(&file).unwrap())
        .stderr(Stdio::null())
        .output()
        .await
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    assert!(output.status.success());
    let frames: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(frames.len(), 2, "{frames:?}");
    assert_eq!(
        frames[1]["result"]["structuredContent"]["title"],
        "Standup notes"
    );
}

/// The server grows its stdout pipe, so that a large `tools/list` goes out in one write.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_output_pipe_is_grown() {
    use std::os::fd::AsRawFd;

    let path = example_binary("notes");
    let mut child = spawn_piped(&path, Stdio::null());
    let stdout = child.stdout.take().unwrap();
    // SAFETY: F_GETPIPE_SZ on a pipe this process holds.
    let before = unsafe { libc::fcntl(stdout.as_raw_fd(), libc::F_GETPIPE_SZ) };
    let mut stdin = child.stdin.take().unwrap();
    let init = format!("{}\n", initialize(1, "2025-11-25"));
    stdin.write_all(init.as_bytes()).await.unwrap();
    let mut lines = BufReader::new(stdout).lines();
    assert_eq!(next_frame(&mut lines).await["id"], 1);
    let fd = lines.get_ref().get_ref().as_raw_fd();
    // SAFETY: as above.
    let after = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
    // The server asks for 1 MiB, else 256 KiB; the system caps what it may have.
    let cap: i32 = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(1 << 20);
    let expected = [1 << 20, 256 << 10]
        .into_iter()
        .find(|&size| size <= cap)
        .map_or(before, |size| size.max(before)); // never shrunk
    assert_eq!(after, expected, "{before} -> {after} (cap {cap})");
    drop(stdin);
    assert!(child.wait().await.unwrap().success());
}

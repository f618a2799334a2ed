//! A long burst of requests, all readable at once, does not starve the rest of the server:
//! the reader yields now and then (tokio's cooperative budget), so on a single-threaded
//! runtime a call that waits is answered long before the burst is done.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Waits `ms` milliseconds.
#[toolsmith::tool(read_only, closed_world)]
async fn wait_ms(ms: u64) -> u64 {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    ms
}

/// Answers at once.
#[toolsmith::tool(read_only, closed_world)]
async fn quick() -> u64 {
    1
}

const BURST: usize = 20_000;

#[test]
fn a_waiting_call_is_answered_before_a_long_burst_behind_it_ends() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, server) = tokio::io::duplex(16 << 20);
        let (read, write) = tokio::io::split(server);
        tokio::spawn(toolsmith_tests::server_of(module_path!()).serve_io(read, write));
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut lines = BufReader::new(client_read).lines();

        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "burst", "version": "0"}}});
        client_write
            .write_all(format!("{init}\n").as_bytes())
            .await
            .unwrap();
        lines
            .next_line()
            .await
            .unwrap()
            .expect("initialize answered");

        let mut text = format!(
            "{}\n{}\n",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "wait_ms", "arguments": {"ms": 2}}})
        );
        for id in 2..BURST + 2 {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                              "params": {"name": "quick", "arguments": {}}});
            text.push_str(&format!("{call}\n"));
        }
        client_write.write_all(text.as_bytes()).await.unwrap(); // all readable at once

        let mut position = None;
        for n in 0..=BURST {
            let line = lines
                .next_line()
                .await
                .unwrap()
                .expect("every call answered");
            let frame: Value = serde_json::from_str(&line).unwrap();
            assert!(frame.get("result").is_some(), "{line}");
            if frame["id"] == 1 {
                position = Some(n);
            }
        }
        let position = position.expect("the waiting call was answered");
        assert!(
            position < 1_500,
            "the waiting call came {position}th of {}",
            BURST + 1
        );
    });
}

//! Arbitrary bytes into argument decoding and dispatch, through the real transport.
//!
//! The first byte picks a mode: the rest used as the `arguments` of a `tools/call` of one of
//! the tools below, raw input lines after the handshake, raw lines before any handshake, or
//! lines made longer than the limit. Whatever the mode, the server must answer with JSON-RPC
//! lines only, never panic, and stop cleanly at EOF.

#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolsmith::{ToolError, tool};

#[derive(Deserialize, Serialize, JsonSchema)]
enum Shape {
    Circle { r: f64 },
    Square(u32),
    Dot,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Filter {
    shapes: Vec<Shape>,
    limit: Option<u16>,
}

/// Many parameter types.
#[tool(read_only)]
fn mixed(
    a: i64,
    b: Option<String>,
    bytes: Vec<u8>,
    filter: Filter,
    weights: HashMap<String, f64>,
) -> Result<Filter, ToolError> {
    if a < 0 {
        return Err(ToolError::new("negative"));
    }
    let _ = (b, bytes, weights);
    Ok(filter)
}

/// A plain text tool.
#[tool(read_only)]
async fn shout(text: String, times: Option<u8>) -> String {
    text.to_uppercase().repeat(usize::from(times.unwrap_or(1)).min(4))
}

const TOOLS: [&str; 3] = ["mixed", "shout", "missing"];

const HANDSHAKE: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

/// The line limit of the fuzzed server.
const LIMIT: usize = 16 * 1024;

fn input(data: &[u8]) -> Vec<u8> {
    let Some((mode, rest)) = data.split_first() else {
        return HANDSHAKE.to_vec();
    };
    match mode % 4 {
        // The rest as a tool's `arguments`.
        0 => {
            let tool = TOOLS[usize::from(*mode / 4) % TOOLS.len()];
            let mut input = HANDSHAKE.to_vec();
            input.extend_from_slice(
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":"#)
                    .as_bytes(),
            );
            input.extend_from_slice(rest);
            input.extend_from_slice(b"}}\n");
            input
        }
        // Raw lines after the handshake.
        1 => [HANDSHAKE, rest].concat(),
        // Raw lines before any handshake: the session's lifecycle.
        2 => rest.to_vec(),
        // Every line made longer than the limit by a member in front: the id scan.
        _ => {
            let pad = format!(r#"{{"pad":"{}","#, "p".repeat(LIMIT));
            let mut input = HANDSHAKE.to_vec();
            for line in rest.split(|&b| b == b'\n') {
                match line.strip_prefix(b"{") {
                    Some(members) => {
                        input.extend_from_slice(pad.as_bytes());
                        input.extend_from_slice(members);
                    }
                    None => input.extend_from_slice(line),
                }
                input.push(b'\n');
            }
            input
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server);
        let serving = tokio::spawn(
            toolsmith::Server::new()
                .max_line_length(LIMIT)
                .serve_io(read, write),
        );
        let (mut from_server, mut to_server) = tokio::io::split(client);
        let bytes = input(data);
        let writer = tokio::spawn(async move {
            let _ = to_server.write_all(&bytes).await;
            let _ = to_server.shutdown().await;
        });
        let mut output = Vec::new();
        let _ = from_server.read_to_end(&mut output).await;
        let _ = writer.await;
        let _ = serving.await.expect("the server task does not panic");
        for line in output.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let frame: serde_json::Value =
                serde_json::from_slice(line).expect("the server writes JSON lines only");
            assert_eq!(frame["jsonrpc"], "2.0");
        }
    });
});

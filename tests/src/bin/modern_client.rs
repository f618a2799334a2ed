//! rmcp's own client against the notes example at MCP 2026-07-28, for `interop/run`.
//!
//! `ClientLifecycleMode::Discover` pinned to 2026-07-28: the client sends `server/discover`,
//! never `initialize`, and every request carries the revision in `_meta`. Runs the tutorial's
//! flow (tools/list, search_notes, get_note of a missing id, create_note, get_note,
//! delete_note, which asks the user first: `call_tool` drives the `input_required` round,
//! and the user of `Accepting` says yes) and checks what went over the wire: every JSON-RPC message (recorded on the
//! transport) and, over HTTP, every request's bytes (through a loopback relay): the
//! MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, and no session.
//!
//!     modern_client stdio PATH_TO_NOTES_BINARY
//!     modern_client http URL      (a fresh `notes serve --http` listening at URL)

use std::net::SocketAddr;
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use rmcp::model::{CallToolResult, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess, Transport};
use rmcp::{RoleClient, ServiceError};
use serde_json::{Value, json};
use tokio::process::Command;
use toolsmith_tests::recording::{Recording, Wire};
use toolsmith_tests::sniff::Sniffer;
use toolsmith_tests::{Accepting, call, text};

const MODERN: &str = "2026-07-28";

#[derive(Default)]
struct Checks {
    passed: u32,
    failed: u32,
}

impl Checks {
    fn check(&mut self, condition: bool, what: impl FnOnce() -> String) {
        if condition {
            self.passed += 1;
        } else {
            self.failed += 1;
            eprintln!("FAILED: {}", what());
        }
    }
}

fn modern() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    }
}

async fn connect<T: Transport<RoleClient> + 'static>(
    transport: T,
) -> Result<(RunningService<RoleClient, Accepting>, Wire), String> {
    let (recording, wire) = Recording::new(transport);
    let client = Accepting::default()
        .serve_with_lifecycle(recording, modern())
        .await
        .map_err(|err| format!("connecting at {MODERN}: {err}"))?;
    Ok((client, wire))
}

/// The tutorial's flow on a connected client.
async fn flow(checks: &mut Checks, client: &RunningService<RoleClient, Accepting>) {
    let info = client.peer_info();
    let version = info.as_ref().map(|i| i.protocol_version.to_string());
    checks.check(version.as_deref() == Some(MODERN), || {
        format!("negotiated {version:?}")
    });
    let name = info.and_then(|i| i.server_info.clone()).map(|s| s.name);
    checks.check(name.as_deref() == Some("toolsmith-examples"), || {
        format!("server/discover serverInfo {name:?}")
    });

    match client.list_tools(None).await {
        Ok(listed) => {
            let mut names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_ref()).collect();
            names.sort();
            let expected = [
                "create_note",
                "delete_note",
                "get_note",
                "import_notes",
                "import_url",
                "search_notes",
                "tag_chart",
            ];
            checks.check(names == expected, || format!("tools {names:?}"));
        }
        Err(err) => checks.check(false, || format!("tools/list: {err}")),
    }

    let found = structured(
        checks,
        call(client, "search_notes", json!({"query": "parser"})).await,
    );
    let titles: Vec<&Value> = found["result"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| &n["title"])
        .collect();
    checks.check(titles == [&json!("Standup notes")], || {
        format!("search {found}")
    });

    // A missing note: an error result (isError) or a JSON-RPC error, as the server answers.
    match call(client, "get_note", json!({"note_id": 99})).await {
        Ok(missing) => checks.check(
            missing.is_error == Some(true) && text(&missing) == "No note with id 99.",
            || format!("get_note 99: {missing:?}"),
        ),
        Err(ServiceError::McpError(err)) => checks.check(err.message.contains("99"), || {
            format!("get_note 99: {err:?}")
        }),
        Err(err) => checks.check(false, || format!("get_note 99: {err}")),
    }

    let args = json!({"title": "Rust", "body": "at 2026-07-28"});
    let created = structured(checks, call(client, "create_note", args).await);
    checks.check(created["id"] == 4, || format!("created {created}"));
    let got = structured(
        checks,
        call(client, "get_note", json!({"note_id": 4})).await,
    );
    checks.check(got["title"] == "Rust", || {
        format!("get the created note {got}")
    });
    let args = json!({"note_id": 4})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let params = rmcp::model::CallToolRequestParams::new("delete_note").with_arguments(args);
    let deleted = structured(checks, client.call_tool(params).await);
    checks.check(deleted == json!({"note_id": 4, "deleted": true}), || {
        format!("delete {deleted}")
    });
    let asked = client
        .service()
        .asked
        .lock()
        .map(|a| a.clone())
        .unwrap_or_default();
    checks.check(asked == ["Delete note 4?"], || {
        format!("the user was asked {asked:?}")
    });
}

/// The structuredContent of a successful, non-error result (Null otherwise, a failed check).
fn structured(checks: &mut Checks, result: Result<CallToolResult, ServiceError>) -> Value {
    match result {
        Ok(result) => {
            checks.check(result.is_error != Some(true), || {
                format!("an error result: {result:?}")
            });
            result.structured_content.unwrap_or(Value::Null)
        }
        Err(err) => {
            checks.check(false, || format!("tools/call: {err}"));
            Value::Null
        }
    }
}

/// The JSON-RPC messages: 2026-07-28 envelopes, never a handshake, and typed results.
fn check_wire(checks: &mut Checks, wire: &Wire) {
    let sent = wire.sent();
    let methods: Vec<&str> = sent.iter().filter_map(|m| m["method"].as_str()).collect();
    checks.check(methods.first() == Some(&"server/discover"), || {
        format!("first message {methods:?}")
    });
    checks.check(
        !methods.contains(&"initialize") && !methods.contains(&"notifications/initialized"),
        || format!("a handshake was sent: {methods:?}"),
    );
    // Five calls, and the retry of delete_note after its `input_required` round.
    checks.check(
        methods.iter().filter(|m| **m == "tools/call").count() == 6,
        || format!("requests {methods:?}"),
    );
    let retry = sent
        .iter()
        .find(|m| m["params"]["requestState"].is_string());
    checks.check(
        retry.is_some_and(|r| {
            r["params"]["name"] == "delete_note"
                && r["params"]["inputResponses"]["confirm"]["action"] == "accept"
        }),
        || format!("the retry of delete_note: {retry:?}"),
    );
    let received = wire.received();
    for request in sent
        .iter()
        .filter(|m| m.get("id").is_some() && m.get("method").is_some())
    {
        let method = request["method"].as_str().unwrap_or("");
        let meta = &request["params"]["_meta"];
        checks.check(
            meta["io.modelcontextprotocol/protocolVersion"] == MODERN,
            || format!("{method} _meta {meta}"),
        );
        checks.check(
            meta["io.modelcontextprotocol/clientCapabilities"].is_object(),
            || format!("{method} _meta has no clientCapabilities: {meta}"),
        );
        let reply = received.iter().find(|m| m["id"] == request["id"]);
        let Some(result) = reply.and_then(|r| r.get("result")) else {
            checks.check(reply.is_some(), || format!("{method}: no response"));
            continue;
        };
        let asks = request["params"]["name"] == "delete_note"
            && request["params"].get("requestState").is_none();
        let expected = if asks { "input_required" } else { "complete" };
        checks.check(result["resultType"] == expected, || {
            format!("{method}: resultType {}", result["resultType"])
        });
        if method == "tools/list" {
            checks.check(result["ttlMs"].is_u64(), || {
                format!("tools/list ttlMs {}", result["ttlMs"])
            });
            checks.check(result["cacheScope"].is_string(), || {
                format!("tools/list cacheScope {}", result["cacheScope"])
            });
        }
    }
}

async fn over_stdio(checks: &mut Checks, notes: &str) -> Result<(), String> {
    let mut command = Command::new(notes);
    command.arg("serve");
    let (child, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|err| format!("spawning {notes}: {err}"))?;
    let (client, wire) = connect(child).await?;
    flow(checks, &client).await;
    let _ = client.cancel().await;
    check_wire(checks, &wire);
    Ok(())
}

async fn over_http(checks: &mut Checks, url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or("the URL is not http://")?;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let upstream: SocketAddr = authority
        .parse()
        .map_err(|err| format!("{authority}: {err}"))?;
    let sniffer = Sniffer::start(upstream)
        .await
        .map_err(|err| format!("the relay: {err}"))?;
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("http://{}/{path}", sniffer.addr));
    let (client, wire) = connect(StreamableHttpClientTransport::from_config(config)).await?;
    flow(checks, &client).await;
    let _ = client.cancel().await;
    check_wire(checks, &wire);

    let requests = sniffer.requests();
    checks.check(!requests.iter().any(|r| r.method == "DELETE"), || {
        "a DELETE: no session to end".into()
    });
    let posts: Vec<_> = requests.iter().filter(|r| r.method == "POST").collect();
    checks.check(posts.len() >= 7, || format!("{} POSTs", posts.len()));
    for post in posts {
        let body: Value = serde_json::from_slice(&post.body).unwrap_or(Value::Null);
        let method = body["method"].as_str().unwrap_or("");
        let header = |name| post.header(name).map(str::to_owned);
        checks.check(
            header("mcp-protocol-version").as_deref() == Some(MODERN),
            || {
                format!(
                    "POST {method}: MCP-Protocol-Version {:?}",
                    header("mcp-protocol-version")
                )
            },
        );
        checks.check(header("mcp-method").as_deref() == Some(method), || {
            format!("POST {method}: Mcp-Method {:?}", header("mcp-method"))
        });
        checks.check(header("mcp-session-id").is_none(), || {
            format!("POST {method}: a session id")
        });
        if method == "tools/call" {
            let name = body["params"]["name"].as_str();
            checks.check(header("mcp-name").as_deref() == name, || {
                format!("POST {method} {name:?}: Mcp-Name {:?}", header("mcp-name"))
            });
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    // rmcp's HTTP client is reqwest's, with rustls but no built-in provider in this
    // workspace (toolsmith-gateway's choice): ring's, installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut checks = Checks::default();
    let (label, outcome) = match args.as_slice() {
        [kind, target] if kind == "stdio" => ("rmcp-client 2026-07-28", {
            tokio::time::timeout(Duration::from_secs(120), over_stdio(&mut checks, target)).await
        }),
        [kind, target] if kind == "http" => ("rmcp-client 2026-07-28 http", {
            tokio::time::timeout(Duration::from_secs(120), over_http(&mut checks, target)).await
        }),
        _ => {
            eprintln!("usage: modern_client stdio NOTES_BINARY | modern_client http URL");
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(err)) => checks.check(false, || err),
        Err(_) => checks.check(false, || "not finished after 120 s".into()),
    }
    println!(
        "{label}: {} passed, {} failed",
        checks.passed, checks.failed
    );
    if checks.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

//! Traces (feature `otel`): the fixture server exports its spans over OTLP (HTTP/protobuf)
//! to a receiver here on loopback, which decodes them with the `opentelemetry-proto` types.
//! Checked: the span tree (an HTTP request's span, its call's span under it) on both HTTP
//! paths, a parent taken from `traceparent` in `_meta` and from the HTTP header, the
//! attributes, that no argument value is anywhere in the export, a sample ratio of 0 that
//! makes no span but for a sampled parent, and a stdio server's spans flushed as it ends.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use toolsmith_tests::http::HttpServer;
use toolsmith_tests::raw::Raw;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
/// A value no span may carry: it is only ever an argument.
pub(crate) const SECRET: &str = "s3cr3t-argument-value-7f2c";

/// What the receiver got: every export request, decoded, and the raw bytes of all of them.
#[derive(Default)]
pub(crate) struct Received {
    requests: Vec<ExportTraceServiceRequest>,
    pub(crate) raw: Vec<u8>,
}

/// An OTLP/HTTP receiver on loopback: `POST /v1/traces` bodies, answered 200.
pub(crate) struct Receiver {
    pub(crate) endpoint: String,
    pub(crate) got: Arc<Mutex<Received>>,
}

impl Receiver {
    pub(crate) async fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let got = Arc::new(Mutex::new(Received::default()));
        let kept = got.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let kept = kept.clone();
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut read = BufReader::new(read);
                    // Keep-alive: one request after another on the connection.
                    loop {
                        let mut length = 0usize;
                        let mut line = String::new();
                        loop {
                            line.clear();
                            if read.read_line(&mut line).await.unwrap_or(0) == 0 {
                                return;
                            }
                            let header = line.trim_end().to_ascii_lowercase();
                            if header.is_empty() {
                                break;
                            }
                            if let Some(value) = header.strip_prefix("content-length:") {
                                length = value.trim().parse().unwrap_or(0);
                            }
                        }
                        let mut body = vec![0; length];
                        if read.read_exact(&mut body).await.is_err() {
                            return;
                        }
                        let decoded = ExportTraceServiceRequest::decode(body.as_slice())
                            .expect("an OTLP trace export");
                        {
                            let mut got = kept.lock().unwrap();
                            got.raw.extend_from_slice(&body);
                            got.requests.push(decoded);
                        }
                        let answer = "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
                        if write.write_all(answer.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Receiver { endpoint, got }
    }

    /// Every span received so far.
    pub(crate) fn spans(&self) -> Vec<Span> {
        let got = self.got.lock().unwrap();
        got.requests
            .iter()
            .flat_map(|r| &r.resource_spans)
            .flat_map(|r| &r.scope_spans)
            .flat_map(|s| s.spans.clone())
            .collect()
    }

    /// The `service.name` of the first export's resource.
    fn service_name(&self) -> Option<String> {
        let got = self.got.lock().unwrap();
        let resource = got
            .requests
            .first()?
            .resource_spans
            .first()?
            .resource
            .clone()?;
        let service = resource
            .attributes
            .into_iter()
            .find(|kv| kv.key == "service.name")?;
        match service.value?.value? {
            Any::StringValue(name) => Some(name),
            _ => None,
        }
    }

    /// Waits (at most 20 s) until `done` holds of the spans received.
    async fn until(&self, what: &str, done: impl Fn(&[Span]) -> bool) -> Vec<Span> {
        for _ in 0..200 {
            let spans = self.spans();
            if done(&spans) {
                return spans;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!(
            "{what}: not received within 20 s: {:#?}",
            summary(&self.spans())
        );
    }
}

pub(crate) fn summary(spans: &[Span]) -> Vec<String> {
    spans
        .iter()
        .map(|s| {
            format!(
                "{} trace={} parent={}",
                s.name,
                hex(&s.trace_id),
                hex(&s.parent_span_id)
            )
        })
        .collect()
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attribute(span: &Span, key: &str) -> Option<Any> {
    span.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.clone()?.value)
}

pub(crate) fn text(span: &Span, key: &str) -> Option<String> {
    match attribute(span, key)? {
        Any::StringValue(s) => Some(s),
        other => Some(format!("{other:?}")),
    }
}

fn call(id: u64, name: &str, arguments: Value, meta: Option<Value>) -> Value {
    let mut params = json!({"name": name, "arguments": arguments});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

pub(crate) fn traceparent(trace: &str, span: &str, sampled: bool) -> String {
    format!("00-{trace}-{span}-{}", if sampled { "01" } else { "00" })
}

const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");

/// Over HTTP, on the fast path and on rmcp's: a request span continues the client's trace
/// from its `traceparent` header, its call's span is its child; a call whose `_meta`
/// carries a `traceparent` continues that trace; attributes say what ran, never with what.
#[tokio::test]
async fn http_requests_and_calls_continue_the_clients_trace() {
    for (round, fast) in [(1u8, true), (2, false)] {
        let receiver = Receiver::start().await;
        let mut env = vec![
            ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint.as_str()),
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
            ("OTEL_SERVICE_NAME", "fixture-traces"),
        ];
        if !fast {
            env.push(("TOOLSMITH_TEST_NO_FAST_PATH", "1"));
        }
        let server = HttpServer::start_with(FIXTURE, &[], &env).await;
        let (t1, s1) = (
            format!("{round:02}f92f3577b34da6a3ce929d0e0e4736"),
            "00f067aa0ba902b7",
        );
        let (t2, s2) = (
            format!("{round:02}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
            "1111111111111111",
        );
        // First, a request whose client did not sample its trace: neither it nor its call
        // is traced (parent-based sampling, the default), and its call is no new root.
        let t0 = format!("{round:02}eeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
        let unsampled = traceparent(&t0, "5555555555555555", false);
        let quiet = server
            .post(
                &call(6, "add", json!({"a": 1, "b": 1}), None),
                &[VERSION, ("traceparent", &unsampled)],
            )
            .await;
        assert_eq!(quiet.status, 200, "{quiet:?}");
        let header = traceparent(&t1, s1, true);
        let echoed = server
            .post(
                &call(7, "echo", json!({"text": SECRET}), None),
                &[VERSION, ("traceparent", &header)],
            )
            .await;
        assert_eq!(echoed.status, 200, "{echoed:?}");
        let meta = json!({"traceparent": traceparent(&t2, s2, true)});
        let refused = server
            .post(&call(8, "refusing", json!({}), Some(meta)), &[VERSION])
            .await;
        assert_eq!(refused.status, 200, "{refused:?}");

        let spans = receiver
            .until("the echo call's span and the refusing call's", |spans| {
                spans.iter().any(|s| s.name == "tools/call echo")
                    && spans.iter().any(|s| s.name == "tools/call refusing")
            })
            .await;
        let request = spans
            .iter()
            .find(|s| s.name == "POST /mcp" && hex(&s.trace_id) == t1)
            .unwrap_or_else(|| panic!("fast={fast}: no request span in {:#?}", summary(&spans)));
        assert_eq!(
            hex(&request.parent_span_id),
            s1,
            "the header's span is its parent"
        );
        assert_eq!(
            text(request, "mcp.method.name").as_deref(),
            Some("tools/call")
        );
        assert_eq!(text(request, "jsonrpc.request.id").as_deref(), Some("7"));
        assert_eq!(
            text(request, "mcp.protocol.version").as_deref(),
            Some("2025-11-25")
        );
        assert_eq!(
            attribute(request, "http.response.status_code"),
            Some(Any::IntValue(200))
        );
        let echo = spans.iter().find(|s| s.name == "tools/call echo").unwrap();
        assert_eq!(
            hex(&echo.trace_id),
            t1,
            "fast={fast}: the call is in the request's trace"
        );
        assert_eq!(
            echo.parent_span_id, request.span_id,
            "fast={fast}: request -> call"
        );
        assert_eq!(text(echo, "gen_ai.tool.name").as_deref(), Some("echo"));
        assert_eq!(
            text(echo, "gen_ai.operation.name").as_deref(),
            Some("execute_tool")
        );
        assert_eq!(text(echo, "toolsmith.outcome").as_deref(), Some("ok"));
        assert_eq!(
            attribute(echo, "toolsmith.hints.read_only"),
            Some(Any::BoolValue(true))
        );
        assert_eq!(
            attribute(echo, "toolsmith.hints.destructive"),
            Some(Any::BoolValue(false))
        );
        let way = if fast { "http" } else { "rmcp" };
        assert_eq!(text(echo, "toolsmith.way").as_deref(), Some(way));
        assert!(attribute(echo, "error.type").is_none());

        let refusing = spans
            .iter()
            .find(|s| s.name == "tools/call refusing")
            .unwrap();
        assert_eq!(
            hex(&refusing.trace_id),
            t2,
            "fast={fast}: the trace of its _meta"
        );
        assert_eq!(hex(&refusing.parent_span_id), s2);
        assert_eq!(
            text(refusing, "toolsmith.outcome").as_deref(),
            Some("tool_error")
        );
        assert_eq!(text(refusing, "error.type").as_deref(), Some("tool_error"));
        let status = refusing.status.clone().unwrap_or_default();
        assert_eq!(status.code, 2, "an error status: {status:?}");

        let calls: Vec<_> = spans
            .iter()
            .filter(|s| s.name.starts_with("tools/call"))
            .collect();
        assert_eq!(
            calls.len(),
            2,
            "fast={fast}: only the sampled calls: {:#?}",
            summary(&spans)
        );
        assert!(
            spans.iter().all(|s| hex(&s.trace_id) != t0),
            "{:#?}",
            summary(&spans)
        );
        assert_eq!(receiver.service_name().as_deref(), Some("fixture-traces"));
        let got = receiver.got.lock().unwrap();
        let raw = String::from_utf8_lossy(&got.raw);
        assert!(!raw.contains(SECRET), "an argument value was exported");
    }
}

/// At a sample ratio of 0 (parent-based), a call without a trace makes no span; one whose
/// `_meta` carries a sampled parent is still traced.
#[tokio::test]
async fn a_ratio_of_zero_traces_only_what_a_sampled_parent_asks_for() {
    let receiver = Receiver::start().await;
    let env = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("OTEL_TRACES_SAMPLER", "parentbased_traceidratio"),
        ("OTEL_TRACES_SAMPLER_ARG", "0"),
    ];
    let server = HttpServer::start_with(FIXTURE, &[], &env).await;
    for id in 1..=3 {
        let answer = server
            .post(&call(id, "add", json!({"a": 1, "b": 2}), None), &[VERSION])
            .await;
        assert_eq!(answer.status, 200);
    }
    let unsampled = json!({"traceparent": traceparent("cccccccccccccccccccccccccccccccc", "2222222222222222", false)});
    server
        .post(
            &call(4, "add", json!({"a": 1, "b": 2}), Some(unsampled)),
            &[VERSION],
        )
        .await;
    let trace = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    let meta = json!({"traceparent": traceparent(trace, "3333333333333333", true)});
    server
        .post(
            &call(5, "echo", json!({"text": "x"}), Some(meta)),
            &[VERSION],
        )
        .await;
    let spans = receiver
        .until("the sampled call's span", |spans| {
            spans.iter().any(|s| s.name == "tools/call echo")
        })
        .await;
    assert_eq!(
        spans.len(),
        1,
        "only the sampled call: {:#?}",
        summary(&spans)
    );
    assert_eq!(hex(&spans[0].trace_id), trace);
}

/// A stdio server's calls are traced from their `_meta`, and their spans leave when stdin
/// closes, before the process ends (the batch would wait a minute otherwise).
#[tokio::test]
async fn a_stdio_servers_spans_are_flushed_as_it_ends() {
    let receiver = Receiver::start().await;
    let mut command = tokio::process::Command::new(FIXTURE);
    command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.endpoint)
        .env("OTEL_BSP_SCHEDULE_DELAY", "60000");
    let mut raw = Raw::spawn(command, std::process::Stdio::null());
    raw.init().await;
    let trace = "dddddddddddddddddddddddddddddddd";
    let meta = json!({"traceparent": traceparent(trace, "4444444444444444", true)});
    let answer = raw
        .ask(&call(2, "add", json!({"a": 40, "b": 2}), Some(meta)))
        .await;
    assert!(
        answer["result"].is_object() && answer["result"]["isError"] != true,
        "{answer}"
    );
    drop(raw.stdin.take());
    let status = tokio::time::timeout(Duration::from_secs(20), raw.child.wait())
        .await
        .expect("the server ends when stdin closes")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let spans = receiver.spans();
    let add = spans
        .iter()
        .find(|s| s.name == "tools/call add")
        .unwrap_or_else(|| panic!("no call span: {:#?}", summary(&spans)));
    assert_eq!(hex(&add.trace_id), trace);
    assert_eq!(hex(&add.parent_span_id), "4444444444444444");
    assert_eq!(text(add, "toolsmith.way").as_deref(), Some("stdio"));
    assert_eq!(text(add, "toolsmith.outcome").as_deref(), Some("ok"));
}

/// The notes example built with `full` exports its calls' spans over HTTP.
#[tokio::test]
async fn the_notes_example_with_full_exports_traces() {
    let notes = toolsmith_tests::full_example_binary("notes");
    let receiver = Receiver::start().await;
    let env = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
    ];
    let server = HttpServer::start_with(notes.to_str().unwrap(), &[], &env).await;
    let found = server
        .post(
            &call(1, "search_notes", json!({"query": SECRET}), None),
            &[VERSION],
        )
        .await;
    assert_eq!(found.status, 200, "{found:?}");
    let spans = receiver
        .until("search_notes' span", |spans| {
            spans.iter().any(|s| s.name == "tools/call search_notes")
        })
        .await;
    let call = spans
        .iter()
        .find(|s| s.name == "tools/call search_notes")
        .unwrap();
    assert_eq!(text(call, "toolsmith.outcome").as_deref(), Some("ok"));
    let request = spans
        .iter()
        .find(|s| s.name == "POST /mcp")
        .expect("its request's span");
    assert_eq!(call.parent_span_id, request.span_id);
    // A read runs the same steps: its own span, child of its request's.
    let read = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
        "params": {"uri": "notes://1"}});
    let read = server.post(&read, &[VERSION]).await;
    assert_eq!(read.status, 200, "{read:?}");
    let spans = receiver
        .until("the read's span", |spans| {
            spans.iter().any(|s| s.name == "resources/read note")
        })
        .await;
    let read = spans
        .iter()
        .find(|s| s.name == "resources/read note")
        .unwrap();
    assert_eq!(
        text(read, "mcp.method.name").as_deref(),
        Some("resources/read")
    );
    assert_eq!(text(read, "mcp.resource.uri").as_deref(), Some("notes://1"));
    assert_eq!(text(read, "toolsmith.outcome").as_deref(), Some("ok"));
    assert!(
        spans
            .iter()
            .any(|s| s.name == "POST /mcp" && s.span_id == read.parent_span_id),
        "{:?}",
        summary(&spans)
    );
    // Without OTEL_SERVICE_NAME: the program's name.
    assert_eq!(receiver.service_name().as_deref(), Some("notes"));
    let got = receiver.got.lock().unwrap();
    assert!(!String::from_utf8_lossy(&got.raw).contains(SECRET));
}

/// A client's session id is a span attribute only within the bound a request id has (a
/// 300 KB header became a 300 KB attribute).
#[tokio::test]
async fn a_long_session_id_is_not_recorded_on_the_span() {
    let receiver = Receiver::start().await;
    let env = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
    ];
    let server = HttpServer::start_with(FIXTURE, &[], &env).await;
    let short = "s".repeat(40);
    let long = "l".repeat(100);
    for (id, (trace, session)) in [("01", &short), ("02", &long)].into_iter().enumerate() {
        let parent = traceparent(
            &format!("{trace}cccccccccccccccccccccccccccccc"),
            "2222222222222222",
            true,
        );
        let _ = server
            .post(
                &call(id as u64 + 1, "add", json!({"a": 1, "b": 1}), None),
                &[
                    VERSION,
                    ("traceparent", &parent),
                    ("Mcp-Session-Id", session),
                ],
            )
            .await;
    }
    let request_of = |spans: &[Span], trace: &str| {
        spans
            .iter()
            .find(|s| s.name == "POST /mcp" && hex(&s.trace_id).starts_with(trace))
            .cloned()
    };
    let spans = receiver
        .until("both requests' spans", |spans| {
            request_of(spans, "01cc").is_some() && request_of(spans, "02cc").is_some()
        })
        .await;
    let recorded = request_of(&spans, "01cc").unwrap();
    assert_eq!(
        text(&recorded, "mcp.session.id").as_deref(),
        Some(short.as_str())
    );
    let capped = request_of(&spans, "02cc").unwrap();
    assert_eq!(
        text(&capped, "mcp.session.id"),
        None,
        "a 100-byte session id was recorded"
    );
}

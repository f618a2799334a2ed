//! What the gateway publishes as a tool's input schema is what its calls are checked against,
//! before anything else: an HTTP API's operation never sends a request with wrong arguments
//! (an integer path parameter given `"abc"`, `null` or `[1,2]`, a query past its maximum, a
//! required body left out, an argument the schema does not allow), an MCP upstream never sees
//! such a call, and under `--confirm destructive` nobody is asked about one. An upstream tool
//! whose hints say read-only and destructive is served as destructive; one whose schema does
//! not compile is left out, and the rest of its upstream is served.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolsmith::testing::{Answer, CallError, Client};
use toolsmith::{Server, error::ErrorKind, server::Confirm, server::Policy};
use toolsmith_gateway::{OpenApi, Upstream};

/// An HTTP API that answers every request `200 {"ok": true}`, and records each one's method
/// and path.
struct BooksApi {
    base: String,
    heard: Arc<Mutex<Vec<String>>>,
}

impl BooksApi {
    async fn start() -> BooksApi {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let heard = Arc::new(Mutex::new(Vec::new()));
        let record = heard.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let record = record.clone();
                tokio::spawn(async move {
                    let mut request = Vec::new();
                    let mut buf = [0u8; 4096];
                    // The head is enough: every answer is the same.
                    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&buf[..n]),
                        }
                        if request.len() > 1 << 16 {
                            return;
                        }
                    }
                    let head = String::from_utf8_lossy(&request);
                    let line = head.lines().next().unwrap_or_default();
                    let seen: Vec<&str> = line.split(' ').take(2).collect();
                    record.lock().unwrap().push(seen.join(" "));
                    let body = r#"{"ok": true}"#;
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(answer.as_bytes()).await;
                });
            }
        });
        BooksApi { base, heard }
    }

    fn heard(&self) -> Vec<String> {
        self.heard.lock().unwrap().clone()
    }
}

/// The OpenAPI document of the books API, in a file of its own.
fn books_document() -> std::path::PathBuf {
    let id =
        json!({"name": "book_id", "in": "path", "required": true, "schema": {"type": "integer"}});
    let ok = json!({"200": {"description": "Done.", "content": {"application/json": {"schema": {"type": "object"}}}}});
    let document = json!({
        "openapi": "3.1.0",
        "info": {"title": "Books", "version": "1"},
        "paths": {
            "/books/{book_id}": {
                "get": {"operationId": "get_book", "parameters": [id], "responses": ok},
                "delete": {"operationId": "withdraw_book", "parameters": [id], "responses": ok},
            },
            "/books": {
                "get": {
                    "operationId": "list_books",
                    "parameters": [{"name": "limit", "in": "query",
                                    "schema": {"type": "integer", "minimum": 1, "maximum": 100}}],
                    "responses": ok,
                },
                "post": {
                    "operationId": "add_book",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {
                        "type": "object",
                        "properties": {"title": {"type": "string"}},
                        "required": ["title"],
                    }}}},
                    "responses": ok,
                },
            },
        },
    });
    let path = std::env::temp_dir().join(format!(
        "toolsmith-books-{}-{:?}.json",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&path, document.to_string()).unwrap();
    path
}

/// A client of `server` that accepts every confirmation, and the questions it was asked.
async fn confirming(server: Server) -> (Client, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = Client::connect(server).await.unwrap().on_confirm(move |q| {
        seen.lock().unwrap().push(q.message.clone());
        Answer::Accept
    });
    (client, asked)
}

/// The message of a call refused for its arguments.
async fn refused(client: &Client, tool: &str, arguments: Value) -> String {
    match client.call(tool, arguments).await {
        Err(
            err @ CallError::Tool {
                kind: ErrorKind::InvalidArguments,
                ..
            },
        ) => err.message(),
        other => panic!("{tool} was not refused for its arguments: {other:?}"),
    }
}

#[tokio::test]
async fn an_http_apis_operation_never_sends_a_request_with_wrong_arguments() {
    let api = BooksApi::start().await;
    let document = books_document();
    let books = OpenApi::new(document.display().to_string()).base_url(&api.base);
    let mounted = Upstream::openapi("books", books).connect().await.unwrap();
    let _ = std::fs::remove_file(&document);
    let server = Server::with_registry(mounted.registry().unwrap()).confirm(Confirm::Destructive);
    let (client, asked) = confirming(server).await;

    let wrong = |said: &str| format!("argument `book_id` is invalid (expected an integer): {said}");
    for (tool, arguments, expected) in [
        ("books_get_book", json!({"book_id": "abc"}), wrong("got \"abc\"")),
        ("books_get_book", json!({"book_id": null}), wrong("got null")),
        ("books_get_book", json!({"book_id": [1, 2]}), wrong("got [1,2]")),
        (
            "books_list_books",
            json!({"limit": 1000}),
            "argument `limit` is invalid (expected an integer): 1000 is greater than the maximum of 100".to_owned(),
        ),
        (
            "books_add_book",
            json!({}),
            "missing required argument `body` (expected an object)".to_owned(),
        ),
        (
            "books_add_book",
            json!({"body": {}}),
            "missing required argument `body.title` (expected a string)".to_owned(),
        ),
        (
            "books_get_book",
            json!({"book_id": 1, "verbose": true}),
            "unknown argument `verbose` (this tool takes `book_id`)".to_owned(),
        ),
        // Destructive, so confirmed: refused before the question.
        ("books_withdraw_book", json!({"book_id": "abc"}), wrong("got \"abc\"")),
        (
            "books_withdraw_book",
            json!({}),
            "missing required argument `book_id` (expected an integer)".to_owned(),
        ),
    ] {
        let message = refused(&client, tool, arguments).await;
        assert_eq!(
            message,
            format!("Invalid arguments for tool '{tool}': {expected}")
        );
    }
    assert!(api.heard().is_empty(), "{:?}", api.heard());
    assert!(asked.lock().unwrap().is_empty(), "{asked:?}");

    // Good arguments reach the API; the destructive call is asked about, once.
    client
        .call("books_get_book", json!({"book_id": 1}))
        .await
        .unwrap();
    client
        .call("books_withdraw_book", json!({"book_id": 2}))
        .await
        .unwrap();
    client
        .call("books_list_books", json!({"limit": 100}))
        .await
        .unwrap();
    assert_eq!(
        api.heard(),
        ["GET /books/1", "DELETE /books/2", "GET /books?limit=100"]
    );
    assert_eq!(asked.lock().unwrap().len(), 1, "{asked:?}");
}

/// The stdio upstream of `tests/fixtures/hostile_validate.py`, which checks nothing.
fn unchecked() -> Upstream {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/hostile_validate.py");
    Upstream::stdio("shelf", "python3").arg(script)
}

#[tokio::test]
async fn an_mcp_upstream_never_sees_a_call_with_wrong_arguments() {
    let mounted = unchecked().connect().await.unwrap();
    // The tool whose schema does not compile is left out; the rest is served.
    assert_eq!(mounted.left_out(), ["broken_schema"]);
    let registry = mounted.registry().unwrap();
    let server = Server::with_registry(registry).confirm(Confirm::Destructive);
    let (client, asked) = confirming(server).await;
    let names: Vec<String> = client
        .tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        names,
        [
            "shelf_calls_seen",
            "shelf_purge_records",
            "shelf_withdraw_book"
        ]
    );

    for (arguments, expected) in [
        (
            json!({"book_id": "abc"}),
            "argument `book_id` is invalid (expected an integer): got \"abc\"",
        ),
        (
            json!({}),
            "missing required argument `book_id` (expected an integer)",
        ),
        (
            json!({"book_id": 1, "force": true}),
            "unknown argument `force` (this tool takes `book_id`)",
        ),
    ] {
        let message = refused(&client, "shelf_withdraw_book", arguments).await;
        assert_eq!(
            message,
            format!("Invalid arguments for tool 'shelf_withdraw_book': {expected}")
        );
    }
    assert!(asked.lock().unwrap().is_empty(), "{asked:?}");
    let seen = client.call("shelf_calls_seen", json!({})).await.unwrap();
    assert_eq!(seen.text(), "0", "no call reached the upstream");

    let ran = client
        .call("shelf_withdraw_book", json!({"book_id": 4}))
        .await
        .unwrap();
    assert_eq!(ran.text(), "withdraw_book ran with {\"book_id\": 4}");
    assert_eq!(asked.lock().unwrap().len(), 1, "{asked:?}");
}

#[tokio::test]
async fn an_upstream_tool_both_read_only_and_destructive_is_served_as_destructive() {
    let mounted = unchecked().connect().await.unwrap();
    let registry = mounted.registry().unwrap();
    let purge = registry.get("shelf_purge_records").unwrap().hints();
    assert!(purge.destructive && !purge.read_only, "{purge}");
    // Read-only serving neither offers nor runs it.
    let server = Server::with_registry(registry).policy(Policy::new().read_only(true));
    let client = Client::connect(server).await.unwrap();
    let names: Vec<String> = client
        .tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["shelf_calls_seen"]);
    let call = client.call("shelf_purge_records", json!({})).await;
    assert!(
        matches!(
            call,
            Err(CallError::Tool {
                kind: ErrorKind::Refused,
                ..
            })
        ),
        "{call:?}"
    );
    let seen = client.call("shelf_calls_seen", json!({})).await.unwrap();
    assert_eq!(seen.text(), "0", "the purge never reached the upstream");
}

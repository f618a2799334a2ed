//! `tools/list` pages across replicas: identical processes of one build, with one policy,
//! accept each other's cursors, so that a client behind a load balancer can follow
//! `nextCursor` wherever its requests land. A tampered cursor, or one from a replica with
//! another policy, is still a clean -32602.

use serde_json::{Value, json};
use tokio::process::Command;
use toolsmith_tests::example_binary;
use toolsmith_tests::http::HttpServer;
use toolsmith_tests::raw::Raw;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");
const NOTES_TOOLS: [&str; 7] = [
    "create_note",
    "delete_note",
    "get_note",
    "import_notes",
    "import_url",
    "search_notes",
    "tag_chart",
];

fn list(id: u64, cursor: Option<&str>) -> Value {
    let params = match cursor {
        Some(cursor) => json!({"cursor": cursor}),
        None => json!({}),
    };
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params})
}

/// One answer per request, from whichever replica `ask` sends it to.
trait Replica {
    async fn ask(&mut self, request: &Value) -> Value;
}

impl Replica for &HttpServer {
    async fn ask(&mut self, request: &Value) -> Value {
        let response = self.post(request, &[VERSION]).await;
        assert_eq!(response.status, 200, "{}", response.body);
        response.messages().pop().expect("one answer")
    }
}

impl Replica for Raw {
    async fn ask(&mut self, request: &Value) -> Value {
        Raw::ask(self, request).await
    }
}

/// Follows `nextCursor` from the first page to the last, asking `a` and `b` in turn, and
/// returns every tool name listed (in order) and the cursors seen.
async fn follow(a: &mut impl Replica, b: &mut impl Replica) -> (Vec<String>, Vec<String>) {
    let mut names = Vec::new();
    let mut cursors: Vec<String> = Vec::new();
    for page in 0..10u64 {
        let request = list(page + 1, cursors.last().map(String::as_str));
        let answer = if page % 2 == 0 {
            a.ask(&request).await
        } else {
            b.ask(&request).await
        };
        let result = answer
            .get("result")
            .unwrap_or_else(|| panic!("page {page} refused: {answer}"));
        let tools = result["tools"].as_array().unwrap();
        assert!(tools.len() <= 2, "page size 2: {result}");
        names.extend(tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(cursor) => cursors.push(cursor.to_owned()),
            None => return (names, cursors),
        }
    }
    panic!("no last page within 10 pages: {names:?}");
}

fn refused(answer: &Value) -> bool {
    answer["error"]["code"] == -32602 && answer.get("result").is_none()
}

/// `cursor` with its last character changed.
fn tampered(cursor: &str) -> String {
    let mut chars: Vec<char> = cursor.chars().collect();
    let last = chars.last_mut().unwrap();
    *last = if *last == '0' { '1' } else { '0' };
    chars.into_iter().collect()
}

#[tokio::test]
async fn http_replicas_accept_each_others_cursors() {
    let notes = example_binary("notes");
    let notes = notes.to_str().unwrap();
    let a = HttpServer::start(notes, &["--page-size", "2"]).await;
    let b = HttpServer::start(notes, &["--page-size", "2"]).await;
    let (names, cursors) = follow(&mut &a, &mut &b).await;
    assert_eq!(names, NOTES_TOOLS, "every tool once, in order");
    assert_eq!(cursors.len(), 3, "four pages: {cursors:?}");

    // Either replica refuses a tampered cursor, cleanly.
    for server in [&a, &b] {
        let answer = (&*server)
            .ask(&list(20, Some(&tampered(&cursors[0]))))
            .await;
        assert!(refused(&answer), "{answer}");
    }
    // A replica with another policy lists other tools: its offsets mean something else.
    let read_only = HttpServer::start(notes, &["--page-size", "2", "--read-only"]).await;
    let answer = (&read_only).ask(&list(21, Some(&cursors[0]))).await;
    assert!(refused(&answer), "{answer}");
    // So does a server of other tools (another build), with the same policy.
    let other = HttpServer::start(FIXTURE, &["--page-size", "2"]).await;
    let answer = (&other).ask(&list(22, Some(&cursors[0]))).await;
    assert!(refused(&answer), "{answer}");
}

#[tokio::test]
async fn stdio_processes_accept_each_others_cursors() {
    let notes = example_binary("notes");
    let start = || {
        let mut command = Command::new(&notes);
        command.args(["serve", "--page-size", "2"]);
        command.env("TOOLSMITH_LOG", "off");
        Raw::spawn(command, std::process::Stdio::null())
    };
    let (mut a, mut b) = (start(), start());
    a.init().await;
    b.init().await;
    let (names, cursors) = follow(&mut a, &mut b).await;
    assert_eq!(names, NOTES_TOOLS, "every tool once, in order");
    // Starting from the other process gives the same cursors.
    let (again, same) = follow(&mut b, &mut a).await;
    assert_eq!((again, same), (names, cursors.clone()));
    let answer = a.ask(&list(30, Some(&tampered(&cursors[1])))).await;
    assert!(refused(&answer), "{answer}");
}

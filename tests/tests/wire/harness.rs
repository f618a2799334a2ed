//! The differential tests' harness: a script of raw JSON-RPC lines sent to a fresh fixture
//! server on one path, and the transcript of everything it wrote.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::ChildStdin;
use tokio::sync::mpsc::UnboundedReceiver;
use toolsmith_tests::initialize;

/// How long any one wait may last: a response, the end of output, the exit.
pub(crate) const WAIT: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Path {
    Fast,
    Rmcp,
    Stateless,
    StatelessRmcp,
}

impl Path {
    pub(crate) fn modern(self) -> bool {
        matches!(self, Path::Stateless | Path::StatelessRmcp)
    }
}

pub(crate) enum Step {
    Send(Value),
    /// Waits for the response to this id before the next step.
    Await(u64),
}
pub(crate) use Step::{Await, Send};

/// Turns 2026-07-28 responses into the 2025-11-25 shape, removing exactly what the revision
/// adds, once it is checked to be there. Error responses have one shape in both.
pub(crate) fn normalise_2026(responses: &mut BTreeMap<String, Value>, lists: &[&str]) {
    for (id, response) in responses.iter_mut() {
        let Some(result) = response.get_mut("result").and_then(Value::as_object_mut) else {
            continue;
        };
        // SEP-2322 (multi round-trip requests): a 2026-07-28 result says whether it is
        // complete or asks for input; earlier revisions have no such field.
        assert_eq!(result.remove("resultType"), Some(json!("complete")), "{id}");
        if lists.contains(&id.as_str()) {
            // SEP-2549: a cacheable result (a list) carries caching hints on 2026-07-28: the
            // tool set is fixed while the server runs (5 minutes by default), and the same
            // for every caller.
            assert_eq!(result.remove("ttlMs"), Some(json!(300_000)), "{id}");
            assert_eq!(result.remove("cacheScope"), Some(json!("public")), "{id}");
        }
    }
}

/// A request of `path`: on 2026-07-28 its `_meta` carries the client context.
pub(crate) fn request(path: Path, id: u64, method: &str, mut params: Value) -> Value {
    if path.modern() {
        let meta = params["_meta"].as_object_mut().map(std::mem::take);
        let mut context = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "raw-test-client", "version": "0"},
        });
        context
            .as_object_mut()
            .unwrap()
            .extend(meta.unwrap_or_default());
        params["_meta"] = context;
    }
    let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if params.as_object().is_some_and(|p| !p.is_empty()) {
        message["params"] = params;
    }
    message
}

pub(crate) fn call(path: Path, id: u64, name: &str, arguments: Value) -> Value {
    tools_call(path, id, name, arguments, json!({}))
}

pub(crate) fn tools_call(path: Path, id: u64, name: &str, arguments: Value, meta: Value) -> Value {
    let mut params = json!({"name": name, "arguments": arguments});
    if meta.as_object().is_some_and(|m| !m.is_empty()) {
        params["_meta"] = meta;
    }
    request(path, id, "tools/call", params)
}

/// Every frame a session wrote, in order, and how many calls each way in answered (from the
/// per-call debug lines on stderr).
pub(crate) struct Transcript(Vec<Value>, BTreeMap<String, usize>);

impl Transcript {
    /// How many calls the way `way` answered.
    pub(crate) fn answered_by(&self, way: &str) -> usize {
        self.1.get(way).copied().unwrap_or(0)
    }

    /// Asserts that every call went the way `way`, and at least `calls` did: a fast path that
    /// silently stopped answering (and left everything to rmcp) fails here.
    pub(crate) fn all_answered_by(&self, way: &str, calls: usize) {
        assert!(self.answered_by(way) >= calls, "{way}: {:?}", self.1);
        assert_eq!(self.1.len(), 1, "only {way}: {:?}", self.1);
    }

    /// Responses by id (as JSON text); each id at most once.
    pub(crate) fn responses(&self) -> BTreeMap<String, Value> {
        let mut responses = BTreeMap::new();
        for frame in self.0.iter().filter(|f| f.get("method").is_none()) {
            let old = responses.insert(frame["id"].to_string(), frame.clone());
            assert!(old.is_none(), "answered twice: {frame}");
        }
        responses
    }

    /// Everything with a method (notifications; a request from the server would show too).
    pub(crate) fn notifications(&self) -> Vec<Value> {
        let notes = self.0.iter().filter(|f| f.get("method").is_some());
        notes.cloned().collect()
    }

    /// The notifications after the response to `after` (or the start), before that to `until`.
    pub(crate) fn notifications_between(&self, after: Option<u64>, until: u64) -> Vec<Value> {
        let is_response = |f: &Value, id| f.get("method").is_none() && f["id"] == id;
        let start = after.map_or(0, |id| {
            1 + self.0.iter().position(|f| is_response(f, id)).unwrap()
        });
        let end = self.0.iter().position(|f| is_response(f, until));
        let end = end.unwrap_or_else(|| panic!("no response to {until}"));
        let notes = self.0[start..end]
            .iter()
            .filter(|f| f.get("method").is_some());
        notes.cloned().collect()
    }
}

/// Runs `script` against a fresh fixture server (with `args`) on `path`, then closes its
/// input and collects everything it writes until it exits.
pub(crate) async fn run(path: Path, args: &[&str], script: Vec<Step>) -> Transcript {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_fixture_server"));
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    // The per-call debug line says which way answered each call.
    command
        .env("TOOLSMITH_LOG", "warn,toolsmith=debug")
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    match path {
        Path::Rmcp | Path::StatelessRmcp => command.env("TOOLSMITH_TEST_NO_FAST_PATH", "1"),
        Path::Fast | Path::Stateless => command.env_remove("TOOLSMITH_TEST_NO_FAST_PATH"),
    };
    let mut child = command.spawn().expect("the fixture server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut logs = BufReader::new(child.stderr.take().unwrap()).lines();
    let logged = tokio::spawn(async move {
        let mut ways = BTreeMap::<String, usize>::new();
        while let Ok(Some(line)) = logs.next_line().await {
            if let Some(way) = line.contains("tools/call").then(|| way_of(&line)).flatten() {
                *ways.entry(way).or_default() += 1;
            }
        }
        ways
    });
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            let _ = tx.send(line);
        }
    });
    let mut frames = Vec::new();
    if !path.modern() {
        send(&mut stdin, &initialize(0, "2025-11-25")).await;
        receive_until(&mut rx, &mut frames, 0, path).await;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        send(&mut stdin, &initialized).await;
    }
    for step in script {
        match step {
            Send(message) => send(&mut stdin, &message).await,
            Await(id) => receive_until(&mut rx, &mut frames, id, path).await,
        }
    }
    drop(stdin);
    let rest = async {
        while let Some(line) = rx.recv().await {
            frames.push(parse(&line));
        }
    };
    let ended = tokio::time::timeout(WAIT, rest).await;
    ended.unwrap_or_else(|_| panic!("{path:?}: output still open {WAIT:?} after EOF"));
    let status = tokio::time::timeout(WAIT, child.wait()).await;
    let status = status
        .unwrap_or_else(|_| panic!("{path:?}: still running"))
        .unwrap();
    assert!(status.success(), "{path:?}: {status}");
    let ways = tokio::time::timeout(WAIT, logged).await.unwrap().unwrap();
    Transcript(frames, ways)
}

/// The `way=` field of a per-call log line.
pub(crate) fn way_of(line: &str) -> Option<String> {
    let rest = &line[line.find(" way=")? + 5..];
    Some(rest.split_whitespace().next()?.to_owned())
}

pub(crate) async fn send(stdin: &mut ChildStdin, message: &Value) {
    let line = format!("{message}\n");
    stdin
        .write_all(line.as_bytes())
        .await
        .expect("the server reads");
}

/// Reads frames into `frames` until the response to `id`, for at most [`WAIT`].
pub(crate) async fn receive_until(
    rx: &mut UnboundedReceiver<String>,
    frames: &mut Vec<Value>,
    id: u64,
    path: Path,
) {
    let wait = async {
        while let Some(line) = rx.recv().await {
            let frame = parse(&line);
            let done = frame.get("method").is_none() && frame["id"] == id;
            frames.push(frame);
            if done {
                return;
            }
        }
        panic!("{path:?}: the output closed before the response to {id}");
    };
    let waited = tokio::time::timeout(WAIT, wait).await;
    waited.unwrap_or_else(|_| panic!("{path:?}: no response to {id} within {WAIT:?}: {frames:?}"));
}

pub(crate) fn parse(line: &str) -> Value {
    let frame: Value =
        serde_json::from_str(line).unwrap_or_else(|err| panic!("not JSON ({err}): {line}"));
    assert_eq!(frame.get("jsonrpc"), Some(&json!("2.0")), "{line}");
    frame
}

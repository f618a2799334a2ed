//! A raw JSON-RPC client over a server process's stdin and stdout, for tests that send exact
//! lines and read every frame, with every wait bounded.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How long one wait may last at most.
pub const WAIT: Duration = Duration::from_secs(10);

/// A server process spoken to in raw lines.
pub struct Raw {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: Lines<BufReader<ChildStdout>>,
}

impl Raw {
    /// Starts `command` with piped stdin and stdout (stderr as given).
    pub fn spawn(mut command: Command, stderr: Stdio) -> Raw {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Raw {
            child,
            stdin,
            stdout,
        }
    }

    /// The program at `path` (e.g. the fixture server), with `env` set, stderr discarded.
    pub fn program(path: &str, env: &[(&str, &str)]) -> Raw {
        let mut command = Command::new(path);
        command.envs(env.iter().copied());
        Raw::spawn(command, Stdio::null())
    }

    /// Writes one line.
    pub async fn line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// Writes one message.
    pub async fn send(&mut self, message: &Value) {
        self.line(&message.to_string()).await;
    }

    /// The next frame, or `None` at the end of output or after `wait`.
    pub async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        match tokio::time::timeout(wait, self.stdout.next_line()).await {
            Ok(Ok(Some(line))) => Some(serde_json::from_str(&line).expect("a frame is JSON")),
            _ => None,
        }
    }

    /// The frames up to and including the response to `id` (panics after [`WAIT`]).
    pub async fn until(&mut self, id: &Value) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let frame = self
                .next_within(WAIT)
                .await
                .unwrap_or_else(|| panic!("no response to {id}; frames so far: {before:?}"));
            if &frame["id"] == id && frame.get("method").is_none() {
                return (before, frame);
            }
            before.push(frame);
        }
    }

    /// Sends `message` and returns the response to its id.
    pub async fn ask(&mut self, message: &Value) -> Value {
        self.send(message).await;
        self.until(&message["id"]).await.1
    }

    /// The `initialize` handshake at 2025-11-25, as request 0.
    pub async fn init(&mut self) {
        let answer = self.ask(&crate::initialize(0, "2025-11-25")).await;
        assert!(answer.get("result").is_some(), "{answer}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }

    /// Closes stdin: the end of input.
    pub fn close(&mut self) {
        self.stdin = None;
    }
}

/// A `tools/call` request.
pub fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

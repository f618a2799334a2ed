//! The process side of a stdio server, driven from outside: child processes of tools, the
//! kinds of stream hosts give (pipes, sockets), clients that stop reading, and how the
//! process ends.

use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use toolsmith_tests::raw::{Raw, call};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");

fn result_value(frame: &Value) -> &Value {
    &frame["result"]["structuredContent"]["result"]
}

/// Waits for the process to end, at most `limit`; how long it took.
async fn ends_within(child: &mut tokio::process::Child, limit: Duration) -> Duration {
    let start = Instant::now();
    match tokio::time::timeout(limit, child.wait()).await {
        Ok(status) => {
            status.unwrap();
            start.elapsed()
        }
        Err(_) => panic!("the server was still running after {limit:?}"),
    }
}

#[tokio::test]
async fn a_tools_child_process_cannot_read_the_clients_requests() {
    let mut server = Raw::program(FIXTURE, &[]);
    server.init().await;
    server.send(&call(1, "read_stdin_child", json!({}))).await;
    // While the child would wait on the server's stdin, the client sends its next request.
    tokio::time::sleep(Duration::from_millis(200)).await;
    server.send(&call(2, "echo", json!({"text": "mine"}))).await;
    let (_, first) = server.until(&json!(1)).await;
    assert_eq!(result_value(&first), 0, "the child read /dev/null: {first}");
    let (_, second) = server.until(&json!(2)).await;
    assert_eq!(second["result"]["content"][0]["text"], "mine", "{second}");
}

/// The fixture with stdin and stdout on two socket pairs, as Node-based hosts start servers;
/// the client's ends. With `shared_stderr`, stderr is the stdout socket too (`2>&1`).
fn on_sockets(
    env: &[(&str, &str)],
    shared_stderr: bool,
) -> (
    tokio::process::Child,
    tokio::net::UnixStream,
    tokio::net::UnixStream,
) {
    let (client_in, server_in) = UnixStream::pair().unwrap();
    let (client_out, server_out) = UnixStream::pair().unwrap();
    let stderr = match shared_stderr {
        true => Stdio::from(OwnedFd::from(server_out.try_clone().unwrap())),
        false => Stdio::null(),
    };
    let child = Command::new(FIXTURE)
        .envs(env.iter().copied())
        .stdin(Stdio::from(OwnedFd::from(server_in)))
        .stdout(Stdio::from(OwnedFd::from(server_out)))
        .stderr(stderr)
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let tokio_end = |s: UnixStream| {
        s.set_nonblocking(true).unwrap();
        tokio::net::UnixStream::from_std(s).unwrap()
    };
    (child, tokio_end(client_in), tokio_end(client_out))
}

async fn write_line(stream: &mut tokio::net::UnixStream, message: &Value) {
    stream
        .write_all(format!("{message}\n").as_bytes())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_detached_grandchild_does_not_keep_the_clients_stream_open() {
    let (mut child, mut input, output) = on_sockets(&[], false);
    let mut lines = BufReader::new(output).lines();
    write_line(&mut input, &toolsmith_tests::initialize(0, "2025-11-25")).await;
    write_line(&mut input, &call(1, "detach", json!({}))).await;
    let mut answered = 0;
    while answered < 2 {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("an answer")
            .unwrap()
            .expect("a line");
        answered += usize::from(line.contains("\"id\":0") || line.contains("\"id\":1"));
    }
    drop(input);
    ends_within(&mut child, Duration::from_secs(10)).await;
    // `sleep 30` still runs; the client must see the end of its stream all the same.
    let end = tokio::time::timeout(Duration::from_secs(5), lines.next_line()).await;
    assert!(
        matches!(end, Ok(Ok(None))),
        "the stream ended with the server: {end:?}"
    );
}

#[tokio::test]
async fn hundreds_of_sync_calls_on_sockets_do_not_starve_the_reader() {
    let (_child, mut input, output) = on_sockets(&[], false);
    let mut lines = BufReader::new(output).lines();
    write_line(&mut input, &toolsmith_tests::initialize(0, "2025-11-25")).await;
    let mut burst = String::new();
    for id in 1..=520 {
        burst.push_str(&format!("{}\n", call(id, "slow_sync", json!({"ms": 3000}))));
    }
    input.write_all(burst.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let start = Instant::now();
    write_line(&mut input, &call(9999, "echo", json!({"text": "through"}))).await;
    loop {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("the quick call is answered")
            .unwrap()
            .unwrap();
        if line.contains("\"id\":9999") {
            break;
        }
    }
    let took = start.elapsed();
    assert!(took < Duration::from_secs(1), "answered in {took:?}");
}

#[tokio::test]
async fn the_end_of_input_ends_the_process_within_the_drain_limit() {
    let mut server = Raw::program(FIXTURE, &[]);
    server.init().await;
    server
        .send(&call(1, "stubborn", json!({"ms": 30_000})))
        .await;
    server.send(&call(2, "echo", json!({"text": "done"}))).await;
    server.until(&json!(2)).await;
    server.close();
    let took = ends_within(&mut server.child, Duration::from_secs(20)).await;
    assert!(
        took < Duration::from_secs(9),
        "ended in {took:?}, not after the tool"
    );
}

#[tokio::test]
async fn a_client_that_closes_its_reading_end_ends_the_session() {
    let mut server = Raw::program(FIXTURE, &[]);
    server.init().await;
    // The client stops reading: its end of the server's stdout closes.
    let Raw {
        mut child,
        stdin,
        stdout,
    } = server;
    drop(stdout);
    let mut stdin = stdin.unwrap();
    for id in 1..=50 {
        let line = format!("{}\n", call(id, "count", json!({})));
        if stdin.write_all(line.as_bytes()).await.is_err() {
            break; // the server is gone already
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // stdin is still open: only the failed output can have ended the server.
    ends_within(&mut child, Duration::from_secs(10)).await;
    drop(stdin);
}

/// Peak resident memory of `pid`, in kB.
fn peak_kb(pid: u32) -> u64 {
    toolsmith_tests::proc_status_kib(pid, "VmHWM")
}

#[tokio::test]
async fn notifications_to_a_client_that_does_not_read_are_bounded() {
    let mut server = Raw::program(FIXTURE, &[]);
    server.init().await;
    let mut request = call(1, "steps_sync", json!({"steps": 1_000_000}));
    request["params"]["_meta"] = json!({"progressToken": "flood"});
    server.send(&request).await;
    // The client reads nothing while the tool reports a million steps.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let (_, answer) = server.until(&json!(1)).await;
    assert_eq!(result_value(&answer), 1_000_000);
    let peak = peak_kb(server.child.id().unwrap());
    eprintln!("peak RSS {peak} kB");
    assert!(peak < 60_000, "peak RSS {peak} kB");
}

#[tokio::test]
async fn a_client_that_stops_reading_cannot_hold_up_the_end() {
    let mut server = Raw::program(FIXTURE, &[]);
    server.init().await;
    let mut burst = String::new();
    for id in 1..=500 {
        burst.push_str(&format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})
        ));
    }
    server.line(burst.trim_end()).await;
    server.close();
    // stdout stays open, unread.
    let took = ends_within(&mut server.child, Duration::from_secs(20)).await;
    assert!(took < Duration::from_secs(9), "ended in {took:?}");
}

#[tokio::test]
async fn serving_stdio_twice_in_one_process_is_an_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_serve_twice"))
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("already being served"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[tokio::test]
async fn the_call_command_logs_the_reason_behind_a_masked_failure() {
    let mut child = Command::new(FIXTURE)
        .args(["call", "failing", "--args", "{}"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .await
        .unwrap();
    let status = child.wait().await.unwrap();
    assert_eq!(status.code(), Some(1));
    assert!(stderr.contains("Error calling tool 'failing'"), "{stderr}");
    assert!(stderr.contains("disk on fire"), "the real reason: {stderr}");
}

#[tokio::test]
async fn a_socket_that_stderr_shares_keeps_stderr_blocking() {
    // stdout and stderr are one socket (`2>&1` on a socket): a tool's prints to stderr must
    // wait for the client rather than fail with EAGAIN.
    let (mut child, mut input, output) = on_sockets(&[("TOOLSMITH_LOG", "off")], true);
    write_line(&mut input, &toolsmith_tests::initialize(0, "2025-11-25")).await;
    write_line(&mut input, &call(1, "noisy", json!({"lines": 20_000}))).await;
    // The client reads nothing for a while: the socket's buffer fills with the noise.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut lines = BufReader::new(output).lines();
    let answer = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Ok(frame) = serde_json::from_str::<Value>(&line)
                && frame["id"] == 1
            {
                return frame;
            }
        }
        panic!("the stream ended before the answer");
    })
    .await
    .expect("an answer");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(result_value(&answer), 20_000);
    drop(input);
    ends_within(&mut child, Duration::from_secs(10)).await;
}

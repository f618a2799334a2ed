//! The processes of a run: starting them (killed when dropped), waiting for a server to
//! answer, and what they use.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process, killed when dropped.
pub(super) struct Running(pub(super) Child);

impl Drop for Running {
    fn drop(&mut self) {
        // SIGTERM first, so that a server can stop as it would in production.
        // SAFETY: kill has no memory preconditions.
        unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM) };
        for _ in 0..50 {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(super) fn free_addr() -> Result<String, String> {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(probe.local_addr().map_err(|e| e.to_string())?.to_string())
}

pub(super) fn sibling(name: &str) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let path = exe.with_file_name(name);
    match path.exists() {
        true => Ok(path),
        false => Err(format!(
            "{} is missing: build it with `cargo build --release -p toolsmith-bench`",
            path.display()
        )),
    }
}

pub(super) fn spawn(
    program: &Path,
    args: &[String],
    env: &[(&str, String)],
) -> Result<Running, String> {
    let mut command = Command::new(program);
    command
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("TOOLSMITH_LOG", "warn")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    let child = command
        .spawn()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    Ok(Running(child))
}

/// Resident memory of `pid`, kB.
pub(super) fn rss_kb(pid: u32) -> u64 {
    crate::load::status_kb(pid, "VmRSS:")
}

/// Waits (at most 20 s) until `url` answers an `initialize`.
pub(super) async fn ready(label: &str, url: &str) -> Result<(), String> {
    let http = reqwest::Client::new();
    let initialize =
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1.0"}}})
        .to_string();
    wait_until(label, Duration::from_secs(20), || {
        let post = http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize.clone())
            .send();
        async move { post.await.is_ok_and(|r| r.status().is_success()) }
    })
    .await
}

/// Polls until `ready` holds, at most `limit`.
pub(super) async fn wait_until<F, Fut>(
    what: &str,
    limit: Duration,
    mut ready: F,
) -> Result<(), String>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if ready().await {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("{what} did not get ready within {limit:?}"))
}

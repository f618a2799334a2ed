//! IBM's ContextForge (`mcp-contextforge-gateway` from PyPI) in the gateway benchmark: its
//! documented single-process set-up (`mcpgateway`, SQLite, one uvicorn worker), in front of
//! the same fixture over Streamable HTTP, registered through its REST API (`POST /gateways`)
//! and called through its MCP endpoint (`/mcp/`) under the name it gives the tool.
//!
//! Started afresh for each run, in its own scratch folder (its database, its working
//! directory: it reads a `.env` there), with secrets made for the run, authentication off
//! for MCP clients (`AUTH_REQUIRED=false`; its REST API still takes a token, made with its
//! own `create_jwt_token`), loopback upstreams allowed (`SSRF_ALLOW_LOCALHOST`) and its
//! rate limits off; every other setting its default.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Running, free_addr, probe};

/// The fixture's tool the runs call, and its answer to `{"a": 1, "b": 2}`.
const TOOL: &str = "tool_7";
const ANSWER: &str = r#"{"tool":7,"sum":3,"label":""}"#;

/// ContextForge running in front of one upstream, ready to be called.
pub(super) struct ContextForge {
    pub(super) running: Running,
    /// Its MCP endpoint's path.
    pub(super) path: &'static str,
    /// The name it lists the fixture's tool under.
    pub(super) tool: String,
}

/// Starts `mcpgateway` (the executable of the venv ContextForge is installed in), registers
/// `upstream` (`http://ADDR/mcp`) and checks that a call through it answers as the fixture.
pub(super) fn start(
    mcpgateway: &Path,
    upstream: &str,
    scratch: &Path,
) -> Result<ContextForge, String> {
    let dir = scratch.join(format!("contextforge-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let secret = random_hex()?;
    let addr = free_addr()?;
    let (host, port) = addr.rsplit_once(':').ok_or("no port")?;
    let log = std::fs::File::create(dir.join("contextforge.log")).map_err(|e| e.to_string())?;
    let env = environment(&dir, &secret)?;
    let child = Command::new(mcpgateway)
        .args(["--host", host, "--port", port])
        .current_dir(&dir)
        .envs(env.clone())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("{}: {e}", mcpgateway.display()))?;
    let running = Running { child, addr };
    let until = Instant::now() + Duration::from_secs(90);
    while probe::get(&running.addr, "/health").is_err() {
        if Instant::now() > until {
            return Err(format!(
                "ContextForge did not answer /health within 90 s (log: {})",
                dir.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let token = token(mcpgateway, &dir, &env, &secret)?;
    let gateway = json!({"name": "fixture", "url": upstream, "transport": "STREAMABLEHTTP"});
    let (status, body) = probe::request(
        &running.addr,
        "POST",
        "/gateways",
        &token,
        Some(&gateway.to_string()),
    )?;
    if !(200..300).contains(&status) {
        return Err(format!(
            "ContextForge refused the upstream: {status} {body}"
        ));
    }
    let (status, body) = probe::request(&running.addr, "GET", "/tools", &token, None)?;
    let tools: Value = serde_json::from_str(&body)
        .map_err(|e| format!("ContextForge's /tools ({status}): {e}"))?;
    let tool = tools
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["originalName"] == TOOL)
        .and_then(|t| t["name"].as_str())
        .ok_or_else(|| format!("ContextForge lists no {TOOL}: {body:.300}"))?
        .to_owned();
    let forge = ContextForge {
        running,
        path: "/mcp/",
        tool,
    };
    let call = forge.call_body();
    let answer = probe::post_to(&forge.running.addr, forge.path, &call, &headers(), None)?;
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    if text != ANSWER || answer["result"]["isError"] == true {
        return Err(format!("ContextForge answered the call with {answer}"));
    }
    Ok(forge)
}

impl ContextForge {
    /// The `tools/call` every run sends (2025-11-25).
    pub(super) fn call_body(&self) -> String {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": self.tool, "arguments": {"a": 1, "b": 2}}})
        .to_string()
    }
}

/// The headers of a 2025-11-25 request.
pub(super) fn headers() -> Vec<(String, String)> {
    vec![("MCP-Protocol-Version".into(), "2025-11-25".into())]
}

/// What it is told: secrets of this run, a database of its own, MCP without authentication.
fn environment(dir: &Path, secret: &str) -> Result<Vec<(String, String)>, String> {
    let database = PathBuf::from(dir).join("mcp.db");
    Ok([
        ("JWT_SECRET_KEY", secret.to_owned()),
        ("AUTH_ENCRYPTION_SECRET", random_hex()?),
        ("BASIC_AUTH_PASSWORD", format!("B{}!x", random_hex()?)),
        ("PLATFORM_ADMIN_PASSWORD", format!("P{}!x", random_hex()?)),
        ("AUTH_REQUIRED", "false".into()),
        ("MCPGATEWAY_UI_ENABLED", "false".into()),
        ("MCPGATEWAY_ADMIN_API_ENABLED", "false".into()),
        ("SSRF_ALLOW_LOCALHOST", "true".into()),
        // Its rate limits (100 calls a minute, then the caller locked out for 15 minutes)
        // would refuse a benchmark's calls: off, and nothing else changed.
        ("RATE_LIMITING_ENABLED", "false".into()),
        ("RATE_LIMIT_LOCKOUT_ENABLED", "false".into()),
        ("TOOL_RATE_LIMIT", "100000000".into()),
        ("LOG_LEVEL", "ERROR".into()),
        ("DATABASE_URL", format!("sqlite:///{}", database.display())),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect())
}

/// A token for its REST API, made by its own tool (the venv's Python beside `mcpgateway`,
/// which reads the same settings).
fn token(
    mcpgateway: &Path,
    dir: &Path,
    env: &[(String, String)],
    secret: &str,
) -> Result<String, String> {
    let python = mcpgateway.with_file_name("python");
    let out = Command::new(&python)
        .args([
            "-m",
            "mcpgateway.utils.create_jwt_token",
            "--username",
            "admin@example.com",
        ])
        .args(["--exp", "120", "--secret", secret])
        .current_dir(dir)
        .envs(env.iter().cloned())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", python.display()))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .map(str::trim)
        .filter(|t| t.starts_with("ey"))
        .map(str::to_owned)
        .ok_or_else(|| "create_jwt_token printed no token".to_owned())
}

fn random_hex() -> Result<String, String> {
    let mut bytes = [0u8; 24];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .map_err(|e| e.to_string())?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

//! IBM's ContextForge (`mcp-contextforge-gateway` from PyPI) in the gateway benchmark: its
//! documented single-process set-up (`mcpgateway`, SQLite, one uvicorn worker), in front of
//! the same fixture over Streamable HTTP, registered through its REST API (`POST /gateways`)
//! and called through its MCP endpoint (`/mcp/`) under the names it gives the tools.
//!
//! Started afresh for each run, in its own scratch folder (its database, its working
//! directory: it reads a `.env` there), with secrets made for the run, authentication off
//! for MCP clients (`AUTH_REQUIRED=false`; its REST API still takes a token, made with its
//! own `create_jwt_token`), loopback upstreams allowed (`SSRF_ALLOW_LOCALHOST`) and its
//! rate limits off; every other setting its default.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{free_addr, probe};

/// ContextForge running in front of one upstream (stopped when dropped).
pub(crate) struct ContextForge {
    child: Child,
    /// Where it listens.
    pub(crate) addr: String,
    /// The name it lists each of the upstream's tools under, by the tool's own.
    pub(crate) names: BTreeMap<String, String>,
}

/// Its MCP endpoint's path.
pub(crate) const PATH: &str = "/mcp/";

impl ContextForge {
    /// Its MCP endpoint.
    pub(crate) fn url(&self) -> String {
        format!("http://{}{PATH}", self.addr)
    }

    /// Its process's id (its CPU and memory are measured).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for ContextForge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `mcpgateway` (the executable of the venv ContextForge is installed in) with
/// `upstream` (`http://ADDR/mcp`) registered, once it lists the upstream's tools.
pub(crate) fn start(
    mcpgateway: &Path,
    upstream: &str,
    scratch: &Path,
) -> Result<ContextForge, String> {
    let dir = scratch.join(format!("contextforge-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let secret = random_secret()?;
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
    let mut forge = ContextForge {
        child,
        addr,
        names: BTreeMap::new(),
    };
    let until = Instant::now() + Duration::from_secs(90);
    while probe::get(&forge.addr, "/health").is_err() {
        if let Ok(Some(status)) = forge.child.try_wait() {
            return Err(format!(
                "ContextForge exited at start ({status}; log: {})",
                dir.display()
            ));
        }
        if Instant::now() > until {
            return Err(format!(
                "ContextForge did not answer /health within 90 s (log: {})",
                dir.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let token = token(mcpgateway, &dir, &env)?;
    let gateway = json!({"name": "fixture", "url": upstream, "transport": "STREAMABLEHTTP"});
    let (status, body) = probe::request(
        &forge.addr,
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
    let (status, body) = probe::request(&forge.addr, "GET", "/tools?limit=0", &token, None)?;
    let tools: Value = serde_json::from_str(&body)
        .map_err(|e| format!("ContextForge's /tools ({status}): {e}"))?;
    forge.names = tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            Some((
                t["originalName"].as_str()?.to_owned(),
                t["name"].as_str()?.to_owned(),
            ))
        })
        .collect();
    if forge.names.is_empty() {
        return Err(format!(
            "ContextForge lists no tool of the upstream: {body:.300}"
        ));
    }
    Ok(forge)
}

/// What it is told: secrets of this run, a database of its own, MCP without authentication.
fn environment(dir: &Path, secret: &str) -> Result<Vec<(String, String)>, String> {
    let database = PathBuf::from(dir).join("mcp.db");
    Ok([
        ("JWT_SECRET_KEY", secret.to_owned()),
        ("AUTH_ENCRYPTION_SECRET", random_secret()?),
        ("BASIC_AUTH_PASSWORD", format!("B{}!x", random_secret()?)),
        (
            "PLATFORM_ADMIN_PASSWORD",
            format!("P{}!x", random_secret()?),
        ),
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
/// which reads the same settings: the secret from the environment, never a command line).
fn token(mcpgateway: &Path, dir: &Path, env: &[(String, String)]) -> Result<String, String> {
    let python = mcpgateway.with_file_name("python");
    let out = Command::new(&python)
        .args([
            "-m",
            "mcpgateway.utils.create_jwt_token",
            "--username",
            "admin@example.com",
        ])
        .args(["--exp", "120"])
        .current_dir(dir)
        .envs(env.iter().cloned())
        .output()
        .map_err(|e| format!("{}: {e}", python.display()))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .map(str::trim)
        .filter(|t| t.starts_with("ey"))
        .map(str::to_owned)
        .ok_or_else(|| {
            let stderr = String::from_utf8_lossy(&out.stderr);
            format!(
                "create_jwt_token ({}) printed no token: {}",
                out.status,
                stderr.trim()
            )
        })
}

/// 48 random letters and digits: a secret (and passwords) its strength checks accept (it
/// refuses a hex string whose character entropy falls under 3.5 bits).
fn random_secret() -> Result<String, String> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut bytes = [0u8; 48];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .map_err(|e| e.to_string())?;
    Ok(bytes
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect())
}

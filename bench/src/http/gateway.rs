//! The gateway benchmark (`toolsmith-bench gateway`): the bench's 200-tool toolsmith fixture
//! called directly and through `toolsmith gateway` (one upstream, prefix `""`, so the tool
//! names are the same) by the same client and the same calls, over stdio (the load
//! generator) and over stateless Streamable HTTP (wrk, gateway and upstream both on HTTP);
//! and through FastMCP's proxy in front of the same fixture (over stdio, and over HTTP at
//! 2025-11-25); over HTTP through IBM's ContextForge (`contextforge.rs`) in front of it.
//! Interleaved in rounds.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Serialize;

use super::report::median;
use super::runs::{Scripts, check};
use super::{HttpKind, Running, contextforge, free_addr, probe, workspace_scratch, wrk};
use crate::build::Workspace;
use crate::load::{self, Config};
use crate::revision::Revision;

/// What to run.
pub struct GatewayOptions {
    pub rounds: usize,
    pub tools: usize,
    /// The `toolsmith` binary (a release build).
    pub toolsmith: PathBuf,
    /// A Python with `fastmcp` installed, for FastMCP's proxy (skipped otherwise).
    pub fastmcp_python: Option<String>,
    /// ContextForge's `mcpgateway` executable (in the venv it is installed in), for
    /// ContextForge over HTTP (skipped otherwise).
    pub contextforge: Option<PathBuf>,
    /// Pipelined calls per stdio run (FastMCP's proxy gets a tenth).
    pub calls: usize,
    /// Seconds per wrk run.
    pub duration: Duration,
}

/// One measured configuration in one round.
#[derive(Debug, Clone, Serialize)]
pub struct GatewaySample {
    pub round: usize,
    /// `stdio` or `http`.
    pub transport: &'static str,
    pub revision: Revision,
    /// `direct`, `gateway`, `fastmcp-proxy` or `contextforge`.
    pub server: &'static str,
    /// Calls per second with 64 in flight (stdio: pipelined; HTTP: 64 connections).
    pub per_second: f64,
    /// Median latency of one call at a time, microseconds.
    pub p50_us: f64,
    /// The 99th percentile of latency with 64 in flight, microseconds (HTTP runs).
    pub p99_us: Option<f64>,
    /// Server CPU per call with 64 in flight (the gateway's own, not its upstream's),
    /// microseconds.
    pub cpu_us: Option<f64>,
    /// The server's peak resident memory, MB (HTTP runs).
    pub rss_mb: Option<f64>,
}

/// Builds the fixture, then runs the rounds.
pub fn gateway(options: &GatewayOptions) -> Result<Vec<GatewaySample>, String> {
    let workspace = Workspace::current();
    let root = workspace.root.display().to_string();
    let kind = HttpKind::Toolsmith;
    eprintln!("building {} ({} tools)", kind.crate_name(), options.tools);
    let fixture = workspace.release_program(
        &format!("{}-{}", kind.crate_name(), options.tools),
        &kind.dependencies(&root),
        &kind.source(options.tools),
    )?;
    let fixture = fixture.display().to_string();
    let toolsmith = options.toolsmith.display().to_string();
    let wrk = wrk::ensure()?;
    let scratch = workspace_scratch()?;
    let stdio_config = scratch.join("gateway-stdio.toml");
    std::fs::write(
        &stdio_config,
        format!("[servers.fixture]\ncommand = \"{fixture}\"\nprefix = \"\"\n"),
    )
    .map_err(|e| e.to_string())?;
    let stdio_config = stdio_config.display().to_string();
    let proxy = workspace.root.join("bench/gateway/fastmcp_proxy.py");

    let mut samples = Vec::new();
    for round in 1..=options.rounds {
        eprintln!("round {round}/{}", options.rounds);
        let revision = Revision::V2025_11_25;
        let gateway = [&toolsmith, "gateway", "--config", &stdio_config];
        let mut stdio = vec![
            ("direct", vec![fixture.as_str()], options.calls),
            ("gateway", gateway.to_vec(), options.calls),
        ];
        if let Some(python) = &options.fastmcp_python {
            let script = proxy.to_str().unwrap_or_default();
            stdio.push((
                "fastmcp-proxy",
                vec![python.as_str(), script, fixture.as_str()],
                options.calls / 10,
            ));
        }
        for (server, command, calls) in stdio {
            let sample = stdio_run(server, &command, revision, calls, options.tools, round)?;
            samples.push(sample);
        }
        for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
            let scripts = Scripts::write(&scratch, revision)?;
            let upstream = serve(&fixture, &[], &scratch, "direct")?;
            let http_config = scratch.join("gateway-http.toml");
            let upstream_url = format!("http://{}/mcp", upstream.addr);
            std::fs::write(
                &http_config,
                format!(
                    "[servers.fixture]\ntype = \"http\"\nurl = \"{upstream_url}\"\nprefix = \"\"\n"
                ),
            )
            .map_err(|e| e.to_string())?;
            let config = http_config.display().to_string();
            let gateway = serve(&toolsmith, &["gateway", "--config", &config], &scratch, "")?;
            // FastMCP's proxy over HTTP at 2025-11-25 only (as ContextForge below).
            let fastmcp = match (&options.fastmcp_python, revision) {
                (Some(python), Revision::V2025_11_25) => {
                    Some(fastmcp_http(python, &proxy, &upstream_url, &scratch)?)
                }
                _ => None,
            };
            let servers = [("direct", Some(&upstream)), ("gateway", Some(&gateway))]
                .into_iter()
                .chain([("fastmcp-proxy", fastmcp.as_ref())]);
            for (server, running) in servers.filter_map(|(s, r)| Some((s, r?))) {
                check(running, options.tools, None, server, revision)?;
                let url = format!("http://{}/mcp", running.addr);
                let sample = http_run(
                    &wrk,
                    (&url, scripts.call()),
                    running.child.id(),
                    options,
                    (server, revision, round),
                )?;
                samples.push(sample);
            }
            if let (Some(mcpgateway), Revision::V2025_11_25) = (&options.contextforge, revision) {
                let forge = contextforge::start(mcpgateway, &upstream_url, &scratch)?;
                let (body, headers) = forge_call(&forge)?;
                let script = wrk::script(&scratch, "contextforge-call", &body, &headers, None)?;
                let sample = http_run(
                    &wrk,
                    (&forge.url(), &script),
                    forge.pid(),
                    options,
                    ("contextforge", revision, round),
                )?;
                samples.push(sample);
            }
        }
    }
    Ok(samples)
}

/// `wrk` against `url` with `script`: one connection (latency), then 64 (calls/s, the
/// server's CPU per call: over the calls answered in the run, its peak memory).
fn http_run(
    wrk: &str,
    (url, script): (&str, &str),
    pid: u32,
    options: &GatewayOptions,
    (server, revision, round): (&'static str, Revision, usize),
) -> Result<GatewaySample, String> {
    let one = wrk::run(wrk, url, script, 1, options.duration)?;
    let before = load::cpu_time(pid);
    // ContextForge answers 64 calls at once in batches of seconds each: long enough for
    // many batches to end (its figures move by a batch's share).
    let duration = match server {
        "contextforge" => options.duration.max(Duration::from_secs(60)),
        _ => options.duration,
    };
    let many = wrk::run(wrk, url, script, 64, duration)?;
    let cpu = load::cpu_time(pid).saturating_sub(before).as_secs_f64() * 1e6
        / many.requests.max(1) as f64;
    let rss = load::peak_rss(pid) as f64 / 1024.0;
    eprintln!(
        "  http  {revision} {server:<13} {:>9.0}/s (64)  p50 {:>6.0} µs (1)  cpu {cpu:>5.1} µs  {rss:.1} MB",
        many.per_second, one.p50_us
    );
    Ok(GatewaySample {
        round,
        transport: "http",
        revision,
        server,
        per_second: many.per_second,
        p50_us: one.p50_us,
        p99_us: Some(many.p99_us),
        cpu_us: Some(cpu),
        rss_mb: Some(rss),
    })
}

/// FastMCP's proxy (`bench/gateway/fastmcp_proxy.py --http`) in front of `upstream`, served
/// over stateless Streamable HTTP, started and answering.
fn fastmcp_http(
    python: &str,
    proxy: &Path,
    upstream: &str,
    scratch: &Path,
) -> Result<Running, String> {
    let addr = free_addr()?;
    let mut command = Command::new(python);
    command.arg(proxy).args(["--http", &addr, upstream]);
    started(
        command,
        addr,
        &scratch.join("gateway-bench-fastmcp.log"),
        30,
    )
}

/// The `tools/call` of the fixture's `tool_7` through ContextForge (2025-11-25), checked
/// once to answer as the fixture does: its body and headers.
fn forge_call(
    forge: &contextforge::ContextForge,
) -> Result<(String, Vec<(String, String)>), String> {
    let tool = forge
        .names
        .get("tool_7")
        .ok_or("ContextForge lists no tool_7")?;
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {"a": 1, "b": 2}}})
    .to_string();
    let headers = vec![("MCP-Protocol-Version".to_owned(), "2025-11-25".to_owned())];
    let answer = probe::post_to(&forge.addr, contextforge::PATH, &body, &headers, None)?;
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    if text != r#"{"tool":7,"sum":3,"label":""}"# || answer["result"]["isError"] == true {
        return Err(format!("ContextForge answered the call with {answer}"));
    }
    Ok((body, headers))
}

fn stdio_run(
    server: &'static str,
    command: &[&str],
    revision: Revision,
    calls: usize,
    tools: usize,
    round: usize,
) -> Result<GatewaySample, String> {
    let config = Config {
        command: command.iter().map(|s| (*s).to_owned()).collect(),
        revision,
        tools,
        list_reps: 20,
        call_reps: if server == "fastmcp-proxy" {
            200
        } else {
            2_000
        },
        throughput_calls: calls,
        in_flight: 64,
        extra_startups: 0,
        call: None,
    };
    let m = load::measure(&config).map_err(|e| format!("{server} over stdio: {e}"))?;
    eprintln!(
        "  stdio {revision} {server:<13} {:>9.0}/s (64)  p50 {:>6.0} µs (1)  cpu {:>5.1} µs",
        m.calls_per_sec, m.call_median_us, m.cpu_per_call_us
    );
    Ok(GatewaySample {
        round,
        transport: "stdio",
        revision,
        server,
        per_second: m.calls_per_sec,
        p50_us: m.call_median_us,
        p99_us: None,
        cpu_us: Some(m.cpu_per_call_us),
        rss_mb: None,
    })
}

/// `program ARGS serve --http ADDR` (stateless), started and answering.
fn serve(program: &str, args: &[&str], scratch: &Path, label: &str) -> Result<Running, String> {
    let addr = free_addr()?;
    let mut command = Command::new(program);
    command
        .args(args)
        .args(["serve", "--http", &addr])
        .args(super::stateless(Path::new(program), args))
        .env("TOOLSMITH_LOG", "warn");
    started(
        command,
        addr,
        &scratch.join(format!("gateway-bench{label}.log")),
        20,
    )
}

/// `command` (a server that will listen at `addr`) started, its stderr in `log`, once it
/// accepts connections (within `limit` seconds).
fn started(mut command: Command, addr: String, log: &Path, limit: u64) -> Result<Running, String> {
    let log = std::fs::File::create(log).map_err(|e| e.to_string())?;
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("{:?}: {e}", command.get_program()))?;
    let running = Running { child, addr };
    probe::wait_ready(&running.addr, Duration::from_secs(limit))?;
    Ok(running)
}

/// The results as a Markdown table: medians over rounds, and the gateway's ratios to direct
/// and to FastMCP's proxy (medians of the per-round ratios).
pub fn gateway_table(samples: &[GatewaySample]) -> String {
    let mut out = String::from(
        "| transport | revision | server | calls/s (64 in flight) | median latency (1 at a time) | p99 (64 in flight) | CPU per call | peak RSS |\n|---|---|---|--:|--:|--:|--:|--:|\n",
    );
    let mut keys: Vec<(&str, Revision, &str)> = samples
        .iter()
        .map(|s| (s.transport, s.revision, s.server))
        .collect();
    keys.sort_by_key(|(t, r, s)| (*t != "stdio", r.to_string(), server_order(s)));
    keys.dedup();
    let of = |t: &str, r: Revision, s: &str| -> Vec<&GatewaySample> {
        samples
            .iter()
            .filter(|x| x.transport == t && x.revision == r && x.server == s)
            .collect()
    };
    for &(transport, revision, server) in &keys {
        let these = of(transport, revision, server);
        let cpu: Vec<f64> = these.iter().filter_map(|s| s.cpu_us).collect();
        let rss: Vec<f64> = these.iter().filter_map(|s| s.rss_mb).collect();
        let p99: Vec<f64> = these.iter().filter_map(|s| s.p99_us).collect();
        out.push_str(&format!(
            "| {transport} | {revision} | {server} | {:.0} | {:.0} µs | {} | {} | {} |\n",
            median(these.iter().map(|s| s.per_second).collect()),
            median(these.iter().map(|s| s.p50_us).collect()),
            if p99.is_empty() {
                "".to_owned()
            } else {
                format!("{:.0} µs", median(p99))
            },
            if cpu.is_empty() {
                "".to_owned()
            } else {
                format!("{:.1} µs", median(cpu))
            },
            if rss.is_empty() {
                "".to_owned()
            } else {
                format!("{:.1} MB", median(rss))
            }
        ));
    }
    out.push_str("\n| transport | revision | peer | gateway / peer calls/s | gateway / peer median latency | gateway / peer CPU per call |\n|---|---|---|--:|--:|--:|\n");
    let mut pairs: Vec<(&str, Revision)> = keys.iter().map(|(t, r, _)| (*t, *r)).collect();
    pairs.dedup();
    for (transport, revision) in pairs {
        let per_round = |other: &str, f: fn(&GatewaySample, &GatewaySample) -> Option<f64>| {
            let ours = of(transport, revision, "gateway");
            let theirs = of(transport, revision, other);
            median(
                ours.iter()
                    .filter_map(|o| f(o, theirs.iter().find(|t| t.round == o.round)?))
                    .collect(),
            )
        };
        let shown = |v: f64, unit: &str| {
            if v.is_nan() {
                "".to_owned()
            } else {
                format!("{v:.2}{unit}")
            }
        };
        for peer in ["direct", "fastmcp-proxy", "contextforge"] {
            if of(transport, revision, peer).is_empty() {
                continue;
            }
            out.push_str(&format!(
                "| {transport} | {revision} | {peer} | {} | {} | {} |\n",
                shown(
                    per_round(peer, |o, t| Some(o.per_second / t.per_second)),
                    "×"
                ),
                shown(per_round(peer, |o, t| Some(o.p50_us / t.p50_us)), "×"),
                shown(per_round(peer, |o, t| Some(o.cpu_us? / t.cpu_us?)), "×"),
            ));
        }
    }
    out
}

fn server_order(server: &str) -> usize {
    ["direct", "gateway", "fastmcp-proxy", "contextforge"]
        .iter()
        .position(|s| *s == server)
        .unwrap_or(3)
}

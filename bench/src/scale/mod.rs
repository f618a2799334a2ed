//! How toolsmith scales with the tool count (`toolsmith-bench scale`): a server of N tools
//! made at run time (`fixture-scale`, stateless HTTP) for each N asked for, measured for
//! startup (spawn to the first `tools/list` answered), resident memory, `tools/list` page
//! latency (the first page and a later one, one connection, `wrk`), registry search (in this
//! process), and tool-call latency at 64 connections without and with the tool set changing
//! (a tool added, then removed, every few milliseconds). See BENCHMARKS.md.

pub mod tools;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;
use toolsmith::registry::Search;

use crate::http::{probe, wrk};

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    pub counts: Vec<usize>,
    /// Seconds per `wrk` run.
    pub seconds: u64,
    /// Milliseconds between changes of the tool set in the churn run.
    pub churn_ms: u64,
    pub connections: usize,
}

/// The figures at one tool count.
#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    pub tools: usize,
    pub startup_ms: f64,
    pub rss_mb: f64,
    pub first_page_p50_us: f64,
    pub first_page_p99_us: f64,
    /// A page reached by a cursor (none when every tool fits on the first).
    pub later_page_p50_us: Option<f64>,
    pub later_page_p99_us: Option<f64>,
    /// In-process `Registry::search`: by text, and by hints; median µs.
    pub search_text_us: f64,
    pub search_hints_us: f64,
    pub calls_per_second: f64,
    pub calls_p99_us: f64,
    pub churn_calls_per_second: f64,
    pub churn_calls_p99_us: f64,
}

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_addr() -> Result<String, String> {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(probe.local_addr().map_err(|e| e.to_string())?.to_string())
}

const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tool_1","arguments":{"a":2,"b":3}}}"#;

fn version() -> Vec<(String, String)> {
    vec![("MCP-Protocol-Version".into(), "2025-11-25".into())]
}

/// Starts `fixture-scale` with `tools` tools (and `churn_ms`, when not zero): the server, its
/// address, and how long until its first `tools/list` was answered.
fn start(tools: usize, churn_ms: u64) -> Result<(Running, String, Duration), String> {
    let program = std::env::current_exe()
        .map_err(|e| e.to_string())?
        .with_file_name("fixture-scale");
    let addr = free_addr()?;
    let began = Instant::now();
    let child = Command::new(&program)
        .args([addr.clone(), tools.to_string(), churn_ms.to_string()])
        .env("TOOLSMITH_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| {
            format!(
                "{}: {e} (cargo build --release -p toolsmith-bench)",
                program.display()
            )
        })?;
    let running = Running(child);
    loop {
        if probe::post(&addr, LIST, &version(), None).is_ok() {
            return Ok((running, addr, began.elapsed()));
        }
        if began.elapsed() > Duration::from_secs(60) {
            return Err(format!(
                "fixture-scale with {tools} tools did not answer within 60 s"
            ));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn median_us(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1e6
}

/// Median time of `Registry::search` for `query` over a registry of `tools` tools.
fn search_us(tools: usize, query: &Search) -> Result<f64, String> {
    let registry = tools::registry(tools);
    let samples = (0..51)
        .map(|_| {
            let began = Instant::now();
            let page = registry.search(query).map_err(|e| e.to_string())?;
            std::hint::black_box(page.tools.len());
            Ok(began.elapsed())
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(median_us(samples))
}

/// Runs every tool count.
pub fn run(options: &Options) -> Result<Vec<Figures>, String> {
    let wrk_path = wrk::ensure()?;
    let scratch = std::env::temp_dir().join(format!("toolsmith-scale-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let script = |name: &str, body: &str| wrk::script(&scratch, name, body, &version(), None);
    let duration = Duration::from_secs(options.seconds);
    let mut all = Vec::new();
    for &tools in &options.counts {
        let (server, addr, startup) = start(tools, 0)?;
        let rss_kb = crate::load::peak_rss(server.0.id());
        let url = format!("http://{addr}/mcp");
        let first = probe::post(&addr, LIST, &version(), None)?;
        let listed = first["result"]["tools"].as_array().map_or(0, Vec::len);
        if listed == 0 {
            return Err(format!("tools/list of {tools} tools: {first}"));
        }
        let first_page = wrk::run(&wrk_path, &url, &script("list", LIST)?, 1, duration)?;
        let later_page = match first["result"]["nextCursor"].as_str() {
            Some(cursor) => {
                let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                    "params": {"cursor": cursor}})
                .to_string();
                probe::post(&addr, &body, &version(), None)?;
                Some(wrk::run(
                    &wrk_path,
                    &url,
                    &script("later", &body)?,
                    1,
                    duration,
                )?)
            }
            None => None,
        };
        let answer = probe::post(&addr, CALL, &version(), None)?;
        if answer["result"]["content"][0]["text"] != "{\"tool\":1,\"sum\":5}" {
            return Err(format!("tool_1 answered {answer}"));
        }
        let call_script = script("call", CALL)?;
        let calls = wrk::run(&wrk_path, &url, &call_script, options.connections, duration)?;
        drop(server);
        let (server, addr, _) = start(tools, options.churn_ms)?;
        let url = format!("http://{addr}/mcp");
        let churn = wrk::run(&wrk_path, &url, &call_script, options.connections, duration)?;
        drop(server);
        let figures = Figures {
            tools,
            startup_ms: startup.as_secs_f64() * 1e3,
            rss_mb: rss_kb as f64 / 1024.0,
            first_page_p50_us: first_page.p50_us,
            first_page_p99_us: first_page.p99_us,
            later_page_p50_us: later_page.as_ref().map(|r| r.p50_us),
            later_page_p99_us: later_page.as_ref().map(|r| r.p99_us),
            search_text_us: search_us(tools, &Search::new().text("TOOL 9"))?,
            search_hints_us: search_us(tools, &Search::new().read_only(true).open_world(false))?,
            calls_per_second: calls.per_second,
            calls_p99_us: calls.p99_us,
            churn_calls_per_second: churn.per_second,
            churn_calls_p99_us: churn.p99_us,
        };
        eprintln!("{figures:?}");
        all.push(figures);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(all)
}

/// The Markdown table of `figures`.
pub fn table(figures: &[Figures], churn_ms: u64) -> String {
    let mut out = String::from(
        "| tools | startup | RSS | first page p50 / p99 | later page p50 / p99 | search: text / hints | calls/s, p99 | with a change every ",
    );
    out.push_str(&format!(
        "{churn_ms} ms: calls/s, p99 |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    ));
    for f in figures {
        let later = match (f.later_page_p50_us, f.later_page_p99_us) {
            (Some(p50), Some(p99)) => format!("{p50:.0} / {p99:.0} µs"),
            _ => "(one page)".into(),
        };
        out.push_str(&format!(
            "| {} | {:.1} ms | {:.1} MB | {:.0} / {:.0} µs | {later} | {:.1} / {:.1} µs | {:.0}, {:.0} µs | {:.0}, {:.0} µs |\n",
            f.tools,
            f.startup_ms,
            f.rss_mb,
            f.first_page_p50_us,
            f.first_page_p99_us,
            f.search_text_us,
            f.search_hints_us,
            f.calls_per_second,
            f.calls_p99_us,
            f.churn_calls_per_second,
            f.churn_calls_p99_us,
        ));
    }
    out
}

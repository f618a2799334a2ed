//! TM Dev Lab v2's MCP server benchmark (`toolsmith-bench tmdevlab`; its repository is
//! `http4k/benchmark-mcp-servers-v2`), reproduced on loopback: its Redis data and API service,
//! its three I/O-bound tools served by toolsmith (`fixture-tmdevlab`), its virtual users and
//! checks, and, when given, the benchmark's own Rust server (rmcp) built from its repository
//! as the comparison. Every run starts its own `redis-server` and API service and stops them;
//! Redis is emptied and seeded again before each server's run, as the benchmark does; servers
//! take turns within each round. Figures: requests per second as the benchmark counts them,
//! tool-call latency, server CPU per request, and the server's resident memory. See
//! BENCHMARKS.md.

pub mod catalog;
mod fronts;
mod process;
mod report;
pub mod seed;
pub mod users;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use process::{free_addr, ready, rss_kb, sibling, spawn, wait_until};

pub use report::table;

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    pub rounds: usize,
    /// Virtual-user levels, each run against every server.
    pub vus: Vec<usize>,
    /// Load before the measured window.
    pub warmup: Duration,
    /// The measured window.
    pub window: Duration,
    /// The benchmark's own Rust server (`rust-server` of its repository, built with
    /// `--release`), if it is to be compared; it listens where `compare_url` says.
    pub compare: Option<PathBuf>,
    pub compare_url: String,
    /// Also toolsmith with sessions.
    pub sessions: bool,
    /// An earlier build of `fixture-tmdevlab`, measured beside this one as
    /// `toolsmith (before)` (and, with sessions, `toolsmith --sessions (before)`).
    pub before: Option<PathBuf>,
    /// The `toolsmith` program, to measure `toolsmith gateway` in front of the toolsmith
    /// server (stateless both).
    pub gateway: Option<PathBuf>,
    /// A Python with `fastmcp` installed, to measure FastMCP's proxy in front of it.
    pub fastmcp_python: Option<String>,
    /// ContextForge's `mcpgateway`, to measure ContextForge in front of it.
    pub contextforge: Option<PathBuf>,
}

/// One server's run at one load.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    pub round: usize,
    pub vus: usize,
    pub server: String,
    pub requests: u64,
    pub http_requests: u64,
    pub errors: u64,
    pub rps: f64,
    pub avg_ms: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub initialize_avg_ms: f64,
    /// Server CPU per counted request, µs.
    pub cpu_us: f64,
    /// Resident memory, sampled every 500 ms in the window: mean and peak, MB.
    pub rss_mb: f64,
    pub rss_peak_mb: f64,
    /// CPU per counted request of what shares the cores with the server: the virtual users
    /// (this process) and the backends (Redis and the API service), µs.
    pub generator_cpu_us: f64,
    pub backends_cpu_us: f64,
}

/// A server under test.
struct Contender {
    label: &'static str,
    program: PathBuf,
    args: Vec<String>,
    url: String,
    /// A gateway in front of it, measured instead (`fronts.rs`).
    front: Option<fronts::Front>,
}

/// The dependencies of the toolsmith server's crate: toolsmith with `http` only, as a user's
/// crate has it (this crate's own `fixture-tmdevlab` is the same source with every feature the
/// rest of the benchmark needs).
const DEPENDENCIES: &str = r#"toolsmith = { path = "{root}/runtime", features = ["http"] }
redis = { version = "1.8.1", default-features = false, features = ["tokio-comp", "connection-manager"] }
reqwest = { version = "0.13.5", default-features = false, features = ["rustls-no-provider"] }
rustls = { version = "0.23.46", default-features = false, features = ["ring", "std"] }
serde = { version = "1.0.229", features = ["derive"] }
serde_json = "1.0.154"
schemars = { version = "1.2.3", features = ["derive"] }
tokio = { version = "1.54.1", features = ["rt-multi-thread", "macros"] }
"#;

/// Builds (release) the toolsmith server as a crate of its own; its program.
fn build_toolsmith() -> Result<PathBuf, String> {
    let workspace = crate::build::Workspace::current();
    let root = workspace.root.display().to_string();
    eprintln!("building the toolsmith server (release, feature http)");
    workspace.release_program(
        "tmdevlab-toolsmith",
        &DEPENDENCIES.replace("{root}", &root),
        include_str!("../bin/fixture_tmdevlab.rs"),
    )
}

/// Runs the rounds; the samples of every server at every load.
pub fn run(options: &Options) -> Result<Vec<Sample>, String> {
    // Plain HTTP only; reqwest still wants a TLS provider installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(run_async(options))
}

async fn run_async(options: &Options) -> Result<Vec<Sample>, String> {
    let redis_port = free_addr()?
        .rsplit_once(':')
        .map(|(_, port)| port.to_owned())
        .unwrap_or_default();
    let redis_server = spawn(
        Path::new("redis-server"),
        &[
            "--port",
            &redis_port,
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--loglevel",
            "warning",
        ]
        .map(str::to_owned),
        &[],
    )
    .map_err(|e| format!("{e} (install Debian's redis-server)"))?;
    let redis_url = format!("redis://127.0.0.1:{redis_port}");
    let client = redis::Client::open(redis_url.as_str()).map_err(|e| e.to_string())?;
    let until = Instant::now() + Duration::from_secs(10);
    let mut redis = loop {
        match client.get_multiplexed_async_connection().await {
            Ok(connection) => break connection,
            Err(err) if Instant::now() > until => return Err(format!("redis-server: {err}")),
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    let api_addr = free_addr()?;
    let api = spawn(
        &sibling("tmdevlab-api")?,
        std::slice::from_ref(&api_addr),
        &[],
    )?;
    let backends = [redis_server.0.id(), api.0.id()];
    let http = reqwest::Client::new();
    let health = format!("http://{api_addr}/health");
    wait_until("the API service", Duration::from_secs(20), || {
        let get = http.get(&health).send();
        async move { get.await.is_ok_and(|r| r.status().is_success()) }
    })
    .await?;
    let env = [
        ("REDIS_URL", redis_url.clone()),
        ("API_SERVICE_URL", format!("http://{api_addr}")),
    ];
    let toolsmith = build_toolsmith()?;
    let mut contenders = Vec::new();
    if let Some(program) = &options.compare {
        contenders.push(Contender {
            label: "rmcp (the benchmark's server)",
            program: program.clone(),
            args: Vec::new(),
            url: options.compare_url.clone(),
            front: None,
        });
    }
    let addr = free_addr()?;
    contenders.push(Contender {
        label: "toolsmith",
        program: toolsmith.clone(),
        args: vec![addr.clone()],
        url: format!("http://{addr}/mcp"),
        front: None,
    });
    if let Some(program) = &options.before {
        let addr = free_addr()?;
        contenders.push(Contender {
            label: "toolsmith (before)",
            program: program.clone(),
            args: vec![addr.clone()],
            url: format!("http://{addr}/mcp"),
            front: None,
        });
    }
    if options.sessions {
        let addr = free_addr()?;
        contenders.push(Contender {
            label: "toolsmith --sessions",
            program: toolsmith.clone(),
            args: vec![addr.clone(), "--sessions".into()],
            url: format!("http://{addr}/mcp"),
            front: None,
        });
        if let Some(program) = &options.before {
            let addr = free_addr()?;
            contenders.push(Contender {
                label: "toolsmith --sessions (before)",
                program: program.clone(),
                args: vec![addr.clone(), "--sessions".into()],
                url: format!("http://{addr}/mcp"),
                front: None,
            });
        }
    }
    let fronts = [
        (
            "toolsmith gateway",
            options.gateway.clone().map(fronts::Front::Toolsmith),
        ),
        (
            "FastMCP proxy",
            options.fastmcp_python.clone().map(fronts::Front::FastMcp),
        ),
        (
            "ContextForge",
            options
                .contextforge
                .clone()
                .map(fronts::Front::ContextForge),
        ),
    ];
    for (label, front) in fronts {
        if let Some(front) = front {
            let addr = free_addr()?;
            contenders.push(Contender {
                label,
                program: toolsmith.clone(),
                args: vec![addr.clone()],
                url: format!("http://{addr}/mcp"),
                front: Some(front),
            });
        }
    }
    let mut samples = Vec::new();
    for round in 1..=options.rounds {
        for &vus in &options.vus {
            // Each round starts with the next server.
            let n = contenders.len();
            for k in 0..n {
                let contender = &contenders[(k + round - 1) % n];
                seed::seed(&mut redis)
                    .await
                    .map_err(|e| format!("seeding Redis: {e}"))?;
                let sample = measure(contender, &env, (vus, round), backends, options).await?;
                eprintln!(
                    "round {round}, {vus} users, {}: {:.0} req/s, avg {:.2} ms, p99 {:.2} ms, {:.0} µs CPU/request, {:.1} MB, {} errors",
                    sample.server,
                    sample.rps,
                    sample.avg_ms,
                    sample.p99_ms,
                    sample.cpu_us,
                    sample.rss_mb,
                    sample.errors
                );
                samples.push(sample);
            }
        }
    }
    Ok(samples)
}

async fn measure(
    contender: &Contender,
    env: &[(&str, String)],
    (vus, round): (usize, usize),
    backends: [u32; 2],
    options: &Options,
) -> Result<Sample, String> {
    let server = spawn(&contender.program, &contender.args, env)?;
    ready(contender.label, &contender.url).await?;
    let front = match &contender.front {
        Some(front) => {
            let scratch = std::env::temp_dir()
                .join(format!("toolsmith-bench-tmdevlab-{}", std::process::id()));
            std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
            let fronted =
                tokio::task::block_in_place(|| fronts::start(front, &contender.url, &scratch))?;
            ready(contender.label, &fronted.url).await?;
            Some(fronted)
        }
        None => None,
    };
    // Through a gateway: the gateway is measured, its upstream counts with the backends.
    let (pid, url, names, upstream) = match &front {
        Some(front) => (
            front.pid,
            front.url.clone(),
            front.names.clone(),
            Some(server.0.id()),
        ),
        None => (
            server.0.id(),
            contender.url.clone(),
            Default::default(),
            None,
        ),
    };
    let load = users::Load {
        url,
        vus,
        warmup: options.warmup,
        window: options.window,
        names,
    };
    let users = tokio::spawn(async move { users::run(&load).await });
    tokio::time::sleep(options.warmup).await;
    let cpu_time = crate::load::cpu_time;
    let backends_cpu = || {
        backends
            .iter()
            .chain(&upstream)
            .map(|&pid| cpu_time(pid))
            .sum::<Duration>()
    };
    let generator = std::process::id();
    let cpu_before = (cpu_time(pid), cpu_time(generator), backends_cpu());
    let began = Instant::now();
    let mut rss = Vec::new();
    while began.elapsed() < options.window {
        tokio::time::sleep(Duration::from_millis(500)).await;
        rss.push(rss_kb(pid));
    }
    let cpu = cpu_time(pid).saturating_sub(cpu_before.0);
    let generator_cpu = cpu_time(generator).saturating_sub(cpu_before.1);
    let backends_cpu = backends_cpu().saturating_sub(cpu_before.2);
    let seen = users.await.map_err(|e| e.to_string())?;
    drop(front);
    drop(server);
    if let Some(why) = &seen.first_error {
        eprintln!(
            "{}: {} errors; the first: {why}",
            contender.label, seen.errors
        );
    }
    let mut calls = seen.calls_us.clone();
    calls.sort_unstable();
    let at = |p: f64| {
        calls
            .get(((calls.len().saturating_sub(1)) as f64 * p).round() as usize)
            .map_or(0.0, |&us| us as f64 / 1000.0)
    };
    let per_request = |cpu: Duration| cpu.as_secs_f64() * 1e6 / seen.requests.max(1) as f64;
    let mean =
        |v: &[u32]| v.iter().map(|&x| x as f64).sum::<f64>() / v.len().max(1) as f64 / 1000.0;
    Ok(Sample {
        round,
        vus,
        server: contender.label.to_owned(),
        requests: seen.requests,
        http_requests: seen.http_requests,
        errors: seen.errors,
        rps: seen.requests as f64 / options.window.as_secs_f64(),
        avg_ms: mean(&calls),
        p50_ms: at(0.50),
        p99_ms: at(0.99),
        initialize_avg_ms: mean(&seen.initialize_us),
        cpu_us: per_request(cpu),
        generator_cpu_us: per_request(generator_cpu),
        backends_cpu_us: per_request(backends_cpu),
        rss_mb: rss.iter().sum::<u64>() as f64 / rss.len().max(1) as f64 / 1024.0,
        rss_peak_mb: rss.iter().copied().max().unwrap_or(0) as f64 / 1024.0,
    })
}

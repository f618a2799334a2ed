//! The HTTP benchmark (`toolsmith-bench http`): the 200-tool fixture served over stateless
//! Streamable HTTP by toolsmith, rmcp (best and default configurations), FastMCP and a bare
//! hyper ceiling, loaded by `wrk` with 1 to 256 keep-alive connections, `tools/call` and
//! `tools/list`, JSON and SSE responses, at each protocol revision (2025-11-25, and the
//! stateless 2026-07-28 with its `_meta` and `Mcp-Method` / `Mcp-Name` headers),
//! interleaved in rounds. Also: server CPU per request, peak RSS with 1,000 open
//! connections, and the CPU cost of authorization, per revision.

pub(crate) mod contextforge;
pub mod fixtures;
mod gateway;
mod observe;
pub mod probe;
mod report;
mod runs;
pub mod wrk;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde::Serialize;

use crate::build::Workspace;
use crate::revision::Revision;
pub use fixtures::HttpKind;
use runs::{Context, Scripts, auth_overhead};

/// What to run.
pub struct Options {
    pub rounds: usize,
    pub tools: usize,
    pub revisions: Vec<Revision>,
    pub connections: Vec<usize>,
    pub duration: Duration,
    /// Connections held open for the memory figure.
    pub rss_connections: usize,
    pub fastmcp_python: Option<String>,
}

/// One server configuration: an implementation and its response mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Setup {
    pub kind: HttpKind,
    /// `json` or `sse`.
    pub mode: &'static str,
}

impl Setup {
    pub fn label(&self) -> String {
        format!("{} ({})", self.kind.name(), self.mode)
    }
}

/// One measured load.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    pub round: usize,
    pub revision: Revision,
    pub server: String,
    pub method: &'static str,
    pub connections: usize,
    pub per_second: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    /// Server CPU per request, microseconds.
    pub cpu_us: f64,
}

/// Everything measured.
#[derive(Debug, Default, Serialize)]
pub struct Results {
    pub tools: usize,
    pub samples: Vec<Sample>,
    /// Connections held open for the memory figure.
    pub rss_connections: usize,
    /// Peak RSS (kB) with `rss_connections` open connections, by revision and server, per
    /// round.
    pub rss_kb: BTreeMap<Revision, BTreeMap<String, Vec<u64>>>,
    /// Server CPU per call (µs) at 64 connections without and with authorization, by
    /// revision, per round.
    pub auth_cpu_us: BTreeMap<Revision, Vec<(f64, f64)>>,
}

const ISSUER: &str = "https://issuer.bench.test";

/// A running server, killed when dropped.
struct Running {
    child: Child,
    addr: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `--stateless` for a toolsmith server built since sessions became the default (its
/// `serve --help`, after `before` (a subcommand and its options, if any), names the flag),
/// nothing for an earlier build, which is stateless without it: the HTTP benchmarks
/// measure stateless requests, with no session opened first.
pub(crate) fn stateless(program: &std::path::Path, before: &[&str]) -> Option<&'static str> {
    let help = Command::new(program)
        .args(before)
        .args(["serve", "--help"])
        .env("TOOLSMITH_LOG", "off")
        .output()
        .ok()?;
    String::from_utf8_lossy(&help.stdout)
        .contains("--stateless")
        .then_some("--stateless")
}

fn free_addr() -> Result<String, String> {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(probe.local_addr().map_err(|e| e.to_string())?.to_string())
}

/// Raises this process's open-file limit (children inherit it): 1,000 connections need
/// more than the usual 1,024 descriptors between the load generator and the server.
fn raise_fd_limit() {
    // SAFETY: getrlimit/setrlimit write and read the struct they are given.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max.min(1 << 16);
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// The programs of every implementation, built.
struct Programs {
    by_kind: BTreeMap<HttpKind, PathBuf>,
    python: Option<String>,
}

impl Programs {
    fn command(&self, setup: Setup, addr: &str, auth: Option<(&str, &str)>) -> Command {
        let program = &self.by_kind[&setup.kind];
        let mut args = setup.kind.args(addr, setup.mode, auth);
        if setup.kind == HttpKind::Toolsmith {
            args.extend(stateless(program, &[]).map(str::to_owned));
        }
        let mut command = match (setup.kind, &self.python) {
            (HttpKind::FastMcp, Some(python)) => {
                let mut c = Command::new(python);
                c.arg(program);
                c
            }
            _ => Command::new(program),
        };
        command
            .args(args)
            .env("TOOLSMITH_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        command
    }

    fn start(&self, setup: Setup, auth: Option<(&str, &str)>) -> Result<Running, String> {
        let addr = free_addr()?;
        let child = self
            .command(setup, &addr, auth)
            .spawn()
            .map_err(|e| format!("{}: {e}", setup.label()))?;
        let running = Running { child, addr };
        let limit = if setup.kind == HttpKind::FastMcp {
            30
        } else {
            10
        };
        probe::wait_ready(&running.addr, Duration::from_secs(limit))?;
        Ok(running)
    }
}

/// Builds everything, then runs the rounds.
pub fn run(options: &Options) -> Result<Results, String> {
    raise_fd_limit();
    let wrk = wrk::ensure()?;
    let workspace = Workspace::current();
    let mut kinds = vec![HttpKind::Toolsmith, HttpKind::RmcpBest, HttpKind::Ceiling];
    if options.fastmcp_python.is_some() {
        kinds.push(HttpKind::FastMcp);
    } else {
        eprintln!("FastMCP skipped: pass --fastmcp-python PATH (a Python with fastmcp installed)");
    }
    let root = workspace.root.display().to_string();
    let mut by_kind = BTreeMap::new();
    for &kind in &kinds {
        eprintln!("building {} ({} tools)", kind.crate_name(), options.tools);
        let name = format!("{}-{}", kind.crate_name(), options.tools);
        let program = workspace.release_program(
            &name,
            &kind.dependencies(&root),
            &kind.source(options.tools),
        )?;
        by_kind.insert(kind, program);
    }
    by_kind.insert(HttpKind::RmcpDefault, by_kind[&HttpKind::RmcpBest].clone());
    let programs = Programs {
        by_kind,
        python: options.fastmcp_python.clone(),
    };
    let mut setups = vec![
        Setup {
            kind: HttpKind::Toolsmith,
            mode: "json",
        },
        Setup {
            kind: HttpKind::Toolsmith,
            mode: "sse",
        },
        Setup {
            kind: HttpKind::RmcpBest,
            mode: "json",
        },
        Setup {
            kind: HttpKind::RmcpBest,
            mode: "sse",
        },
        Setup {
            kind: HttpKind::RmcpDefault,
            mode: "sse",
        },
        Setup {
            kind: HttpKind::Ceiling,
            mode: "json",
        },
    ];
    if options.fastmcp_python.is_some() {
        setups.push(Setup {
            kind: HttpKind::FastMcp,
            mode: "json",
        });
        setups.push(Setup {
            kind: HttpKind::FastMcp,
            mode: "sse",
        });
    }

    let scratch = workspace_scratch()?;
    let mut results = Results {
        tools: options.tools,
        rss_connections: options.rss_connections,
        ..Results::default()
    };
    let mut unserved = Vec::new();
    for round in 1..=options.rounds {
        eprintln!("round {round}/{}", options.rounds);
        for &revision in &options.revisions {
            let scripts = Scripts::write(&scratch, revision)?;
            let context = Context {
                programs: &programs,
                wrk: &wrk,
                scripts: &scripts,
                options,
                round,
                revision,
            };
            for &setup in &setups {
                if unserved.contains(&(setup.kind, revision)) {
                    continue;
                }
                match context.load(setup, &mut results.samples) {
                    // FastMCP is optional, and may not speak the newer revision.
                    Err(e) if setup.kind == HttpKind::FastMcp && revision.stateless() => {
                        eprintln!("FastMCP skipped at {revision}: {e}");
                        unserved.push((setup.kind, revision));
                    }
                    other => other?,
                }
            }
            // Memory: a fresh server, `rss_connections` connections calling for a few seconds.
            for &setup in setups.iter().filter(|s| s.mode == "json") {
                if unserved.contains(&(setup.kind, revision)) {
                    continue;
                }
                let rss = context.rss(setup)?;
                results
                    .rss_kb
                    .entry(revision)
                    .or_default()
                    .entry(setup.label())
                    .or_default()
                    .push(rss);
            }
            let auth = auth_overhead(&context, &scratch)?;
            results.auth_cpu_us.entry(revision).or_default().push(auth);
        }
    }
    Ok(results)
}

fn workspace_scratch() -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("toolsmith-bench-http-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    Ok(dir)
}

pub use gateway::{GatewayOptions, GatewaySample, gateway, gateway_table};
pub use observe::{ObserveOptions, Observed, observe, observe_table};
pub use report::table;

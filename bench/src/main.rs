//! `toolsmith-bench`: runs the benchmark (see BENCHMARKS.md), or measures any server command.

use clap::{Parser, Subcommand};
use toolsmith_bench::build::Workspace;
use toolsmith_bench::fixtures::{self, Kind};
use toolsmith_bench::load::{self, Config};
use toolsmith_bench::report::Results;
use toolsmith_bench::revision::Revision;

#[derive(Parser)]
#[command(about = "Benchmark toolsmith against rmcp's macros (and FastMCP) over stdio.")]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
    /// Rounds; each runs every implementation once per tool count, interleaved.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Tool counts of the fixture servers.
    #[arg(long, value_delimiter = ',', default_value = "1,50,200")]
    tools: Vec<usize>,
    /// Protocol revisions, each run against every server, interleaved in each round.
    #[arg(long, value_delimiter = ',', default_value = "2025-11-25,2026-07-28")]
    revisions: Vec<Revision>,
    /// Pipelined calls per run.
    #[arg(long, default_value_t = 50_000)]
    calls: usize,
    /// Calls in flight during the throughput phase.
    #[arg(long, default_value_t = 64)]
    in_flight: usize,
    /// Sequential tools/list requests per run.
    #[arg(long, default_value_t = 300)]
    list_reps: usize,
    /// Sequential tools/call requests per run.
    #[arg(long, default_value_t = 3_000)]
    call_reps: usize,
    /// Extra spawns per run for the startup figure (the median is reported; FastMCP gets
    /// none, its startup takes a second).
    #[arg(long, default_value_t = 4)]
    extra_startups: usize,
    /// Skip the build figures.
    #[arg(long)]
    no_build: bool,
    /// A Python with `fastmcp` installed, to include FastMCP (skipped otherwise).
    #[arg(long)]
    fastmcp_python: Option<String>,
    /// Tiny counts, one round, no builds: checks that the benchmark works.
    #[arg(long)]
    smoke: bool,
    /// Where to write the JSON results.
    #[arg(long, default_value = "target/bench/results.json")]
    json: String,
}

#[derive(Subcommand)]
enum Cmd {
    /// The HTTP benchmark: toolsmith, rmcp, FastMCP and a hyper ceiling over Streamable HTTP,
    /// loaded by wrk (see BENCHMARKS.md).
    Http {
        /// Rounds; each runs every server once, interleaved.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Tools of the fixture.
        #[arg(long, default_value_t = 200)]
        tools: usize,
        /// Protocol revisions, each run against every server, interleaved in each round.
        #[arg(long, value_delimiter = ',', default_value = "2025-11-25,2026-07-28")]
        revisions: Vec<Revision>,
        /// Keep-alive connections of the load runs.
        #[arg(long, value_delimiter = ',', default_value = "1,16,64,256")]
        connections: Vec<usize>,
        /// Seconds per load run.
        #[arg(long, default_value_t = 3)]
        seconds: u64,
        /// Connections held open for the memory figure.
        #[arg(long, default_value_t = 1000)]
        rss_connections: usize,
        /// A Python with `fastmcp` installed, to include FastMCP (skipped otherwise).
        #[arg(long)]
        fastmcp_python: Option<String>,
        /// Where to write the JSON results.
        #[arg(long, default_value = "target/bench/http-results.json")]
        json: String,
    },
    /// The cost of metrics: toolsmith's server CPU per HTTP call built without and with the
    /// `metrics` feature, interleaved in rounds.
    Observe {
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// Tools of the fixture.
        #[arg(long, default_value_t = 200)]
        tools: usize,
        #[arg(long, value_delimiter = ',', default_value = "2025-11-25,2026-07-28")]
        revisions: Vec<Revision>,
        /// Keep-alive connections of the load runs.
        #[arg(long, default_value_t = 64)]
        connections: usize,
        /// Seconds per load run.
        #[arg(long, default_value_t = 3)]
        seconds: u64,
        /// Another checkout of toolsmith (e.g. a `git worktree` of an earlier commit) to
        /// measure as `before`.
        #[arg(long)]
        before: Option<std::path::PathBuf>,
        /// Where to write the JSON results.
        #[arg(long, default_value = "target/bench/observe-results.json")]
        json: String,
    },
    /// The gateway's overhead: the fixture called directly and through `toolsmith gateway`
    /// over stdio and HTTP, through FastMCP's proxy over stdio and through ContextForge over
    /// HTTP (see BENCHMARKS.md).
    Gateway {
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Tools of the fixture.
        #[arg(long, default_value_t = 200)]
        tools: usize,
        /// The `toolsmith` binary to measure (build it with `--release`).
        #[arg(long, default_value = "target/release/toolsmith")]
        toolsmith: std::path::PathBuf,
        /// A Python with `fastmcp` installed, to include FastMCP's proxy (skipped otherwise).
        #[arg(long)]
        fastmcp_python: Option<String>,
        /// ContextForge's `mcpgateway` (in the venv `pip install mcp-contextforge-gateway`
        /// made), to include ContextForge over HTTP (skipped otherwise).
        #[arg(long)]
        contextforge: Option<std::path::PathBuf>,
        /// Pipelined calls per stdio run (FastMCP's proxy gets a tenth).
        #[arg(long, default_value_t = 20_000)]
        calls: usize,
        /// Seconds per HTTP load run.
        #[arg(long, default_value_t = 3)]
        seconds: u64,
        /// Where to write the JSON results.
        #[arg(long, default_value = "target/bench/gateway-results.json")]
        json: String,
    },
    /// TM Dev Lab v2's benchmark (`http4k/benchmark-mcp-servers-v2`) on loopback: its Redis
    /// data, API service, three tools and virtual users; toolsmith against the benchmark's own
    /// Rust server when `--compare` gives it (see BENCHMARKS.md; `bench/tmdevlab` runs this).
    Tmdevlab {
        /// Rounds; each runs every server once per user level, interleaved.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Virtual-user levels.
        #[arg(long, value_delimiter = ',', default_value = "50,16")]
        vus: Vec<usize>,
        /// Seconds of load before the measured window.
        #[arg(long, default_value_t = 5)]
        warmup: u64,
        /// Seconds measured.
        #[arg(long, default_value_t = 20)]
        seconds: u64,
        /// The benchmark's Rust server (its `rust-server`, built with `--release`), to compare.
        #[arg(long)]
        compare: Option<std::path::PathBuf>,
        /// Where the compared server listens (its address is fixed in its source).
        #[arg(long, default_value = "http://127.0.0.1:8095/mcp")]
        compare_url: String,
        /// Leave out toolsmith with sessions.
        #[arg(long)]
        no_sessions: bool,
        /// An earlier build of `fixture-tmdevlab` to measure beside this one.
        #[arg(long)]
        before: Option<std::path::PathBuf>,
        /// The `toolsmith` program (release), to measure `toolsmith gateway` in front of the
        /// toolsmith server.
        #[arg(long)]
        gateway: Option<std::path::PathBuf>,
        /// A Python with `fastmcp` installed, to measure FastMCP's proxy in front of the
        /// toolsmith server.
        #[arg(long)]
        fastmcp_python: Option<String>,
        /// ContextForge's `mcpgateway` (see `toolsmith-bench gateway`), to measure it in
        /// front of the toolsmith server.
        #[arg(long)]
        contextforge: Option<std::path::PathBuf>,
        /// Where to write the JSON results.
        #[arg(long, default_value = "target/bench/tmdevlab-results.json")]
        json: String,
    },
    /// Scaling with the tool count: startup, memory, list pages, search, and calls while the
    /// tool set changes, for servers of tools made at run time (see BENCHMARKS.md).
    Scale {
        /// Tool counts.
        #[arg(long, value_delimiter = ',', default_value = "100,1000,10000")]
        tools: Vec<usize>,
        /// Seconds per load run.
        #[arg(long, default_value_t = 3)]
        seconds: u64,
        /// Milliseconds between changes of the tool set in the churn run.
        #[arg(long, default_value_t = 10)]
        churn_ms: u64,
        /// Keep-alive connections calling tools.
        #[arg(long, default_value_t = 64)]
        connections: usize,
        /// Where to write the JSON results.
        #[arg(long, default_value = "target/bench/scale-results.json")]
        json: String,
    },
    /// Rewrite the small fixture binaries of this crate (src/bin/fixture_*.rs, 3 tools).
    WriteSmallFixtures,
    /// Measure one server command (`-- CMD ARGS...`) whose tools are `tool_0`..`tool_{T-1}`.
    Load {
        /// How many tools it has.
        #[arg(long)]
        tools: usize,
        /// The protocol revision to speak.
        #[arg(long, default_value = "2025-11-25")]
        revision: Revision,
        #[arg(long, default_value_t = 20_000)]
        calls: usize,
        #[arg(long, default_value_t = 64)]
        in_flight: usize,
        /// Sequential tools/list requests.
        #[arg(long, default_value_t = 200)]
        list_reps: usize,
        /// Sequential tools/call requests.
        #[arg(long, default_value_t = 2_000)]
        call_reps: usize,
        /// Call this tool every time instead of `tool_0`..`tool_{T-1}` (a server of its own:
        /// the notes example's `get_note`).
        #[arg(long)]
        call: Option<String>,
        /// The arguments of `--call`, a JSON object.
        #[arg(long, default_value = "{}", requires = "call")]
        arguments: String,
        /// How the answer's first text block of `--call` starts.
        #[arg(long, default_value = "", requires = "call")]
        expect: String,
        #[arg(required = true, last = true)]
        command: Vec<String>,
    },
}

/// Writes `results` as pretty JSON to `json`, its folder made if needed.
fn save(json: &str, results: &impl serde::Serialize) -> Result<(), String> {
    if let Some(parent) = std::path::Path::new(json).parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    let text = serde_json::to_string_pretty(results).map_err(|e| e.to_string())?;
    std::fs::write(json, text).map_err(|e| e.to_string())?;
    eprintln!("results written to {json}");
    Ok(())
}

fn main() {
    if let Err(err) = run(Cli::parse()) {
        eprintln!("toolsmith-bench: {err}");
        std::process::exit(1);
    }
}

fn run(mut cli: Cli) -> Result<(), String> {
    if let Some(Cmd::WriteSmallFixtures) = cli.command {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bin");
        for kind in [Kind::Toolsmith, Kind::Rmcp, Kind::Echo] {
            let path = dir.join(format!("fixture_{}.rs", kind.name()));
            std::fs::write(&path, fixtures::source(kind, fixtures::SMALL))
                .map_err(|e| e.to_string())?;
            eprintln!("wrote {}", path.display());
        }
        for (name, source) in [
            ("granted", fixtures::granted(fixtures::SMALL)),
            ("toolsmith_sync", fixtures::toolsmith_sync(fixtures::SMALL)),
            ("toolsmith_run", fixtures::toolsmith_run(fixtures::SMALL)),
        ] {
            let path = dir.join(format!("fixture_{name}.rs"));
            std::fs::write(&path, source).map_err(|e| e.to_string())?;
            eprintln!("wrote {}", path.display());
        }
        return Ok(());
    }
    if let Some(Cmd::Http { .. }) = cli.command
        && let Some(Cmd::Http {
            rounds,
            tools,
            revisions,
            connections,
            seconds,
            rss_connections,
            fastmcp_python,
            json,
        }) = cli.command.take()
    {
        let options = toolsmith_bench::http::Options {
            rounds,
            tools,
            revisions,
            connections,
            duration: std::time::Duration::from_secs(seconds),
            rss_connections,
            fastmcp_python,
        };
        let results = toolsmith_bench::http::run(&options)?;
        print!("{}", toolsmith_bench::http::table(&results));
        save(&json, &results)?;
        return Ok(());
    }
    if let Some(Cmd::Gateway { .. }) = cli.command
        && let Some(Cmd::Gateway {
            rounds,
            tools,
            toolsmith,
            fastmcp_python,
            contextforge,
            calls,
            seconds,
            json,
        }) = cli.command.take()
    {
        let options = toolsmith_bench::http::GatewayOptions {
            rounds,
            tools,
            toolsmith,
            fastmcp_python,
            contextforge,
            calls,
            duration: std::time::Duration::from_secs(seconds),
        };
        let samples = toolsmith_bench::http::gateway(&options)?;
        print!("{}", toolsmith_bench::http::gateway_table(&samples));
        save(&json, &samples)?;
        return Ok(());
    }
    if let Some(Cmd::Observe { .. }) = cli.command
        && let Some(Cmd::Observe {
            rounds,
            tools,
            revisions,
            connections,
            seconds,
            before,
            json,
        }) = cli.command.take()
    {
        let options = toolsmith_bench::http::ObserveOptions {
            rounds,
            tools,
            revisions,
            connections,
            duration: std::time::Duration::from_secs(seconds),
            before,
        };
        let observed = toolsmith_bench::http::observe(&options)?;
        print!(
            "{}",
            toolsmith_bench::http::observe_table(&observed, connections)
        );
        save(&json, &observed)?;
        return Ok(());
    }
    if let Some(Cmd::Scale {
        tools,
        seconds,
        churn_ms,
        connections,
        json,
    }) = cli.command.take_if(|c| matches!(c, Cmd::Scale { .. }))
    {
        let options = toolsmith_bench::scale::Options {
            counts: tools,
            seconds,
            churn_ms,
            connections,
        };
        let figures = toolsmith_bench::scale::run(&options)?;
        print!("{}", toolsmith_bench::scale::table(&figures, churn_ms));
        save(&json, &figures)?;
        return Ok(());
    }
    if let Some(Cmd::Tmdevlab { .. }) = cli.command
        && let Some(Cmd::Tmdevlab {
            rounds,
            vus,
            warmup,
            seconds,
            compare,
            compare_url,
            no_sessions,
            before,
            gateway,
            fastmcp_python,
            contextforge,
            json,
        }) = cli.command.take()
    {
        use toolsmith_bench::tmdevlab;
        let options = tmdevlab::Options {
            rounds,
            vus,
            warmup: std::time::Duration::from_secs(warmup),
            window: std::time::Duration::from_secs(seconds),
            compare,
            compare_url,
            sessions: !no_sessions,
            before,
            gateway,
            fastmcp_python,
            contextforge,
        };
        let samples = tmdevlab::run(&options)?;
        let baseline = match options.compare {
            Some(_) => "rmcp (the benchmark's server)",
            None => "toolsmith",
        };
        print!("{}", tmdevlab::table(&samples, baseline));
        save(&json, &samples)?;
        return Ok(());
    }
    if let Some(Cmd::Load {
        tools,
        revision,
        calls,
        in_flight,
        list_reps,
        call_reps,
        call,
        arguments,
        expect,
        command,
    }) = cli.command.take()
    {
        let call = call.map(|name| load::FixedCall {
            name,
            arguments,
            expect,
        });
        let config = Config {
            command,
            revision,
            tools,
            list_reps,
            call_reps,
            throughput_calls: calls,
            in_flight,
            extra_startups: 4,
            call,
        };
        let m = load::measure(&config)?;
        println!(
            "{}",
            serde_json::to_string_pretty(&m).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    if cli.smoke {
        (
            cli.rounds,
            cli.calls,
            cli.list_reps,
            cli.call_reps,
            cli.no_build,
        ) = (1, 300, 10, 30, true);
        cli.extra_startups = 0;
    }
    let workspace = Workspace::current();
    let python = cli.fastmcp_python.clone().unwrap_or_default();
    let mut kinds = vec![Kind::Toolsmith, Kind::Rmcp, Kind::Echo];
    if cli.fastmcp_python.is_some() {
        kinds.push(Kind::FastMcp);
    } else {
        eprintln!("FastMCP skipped: pass --fastmcp-python PATH (a Python with fastmcp installed)");
    }
    let mut commands = Vec::new();
    for &tools in &cli.tools {
        for &kind in &kinds {
            eprintln!("building {} with {tools} tools", kind.name());
            commands.push((
                tools,
                kind,
                workspace.release_command(kind, tools, &python)?,
            ));
        }
    }
    let mut results = rounds(&cli, &commands)?;
    if !cli.no_build {
        let largest = cli.tools.iter().copied().max().unwrap_or(1);
        for kind in [Kind::Toolsmith, Kind::Rmcp] {
            eprintln!("build figures of {} with {largest} tools", kind.name());
            results
                .builds
                .insert(kind.name(), workspace.build_figures(kind, largest)?);
        }
    }
    print!("{}", results.table());
    if let Some(parent) = std::path::Path::new(&cli.json).parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    let json = serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?;
    std::fs::write(&cli.json, json).map_err(|e| e.to_string())?;
    eprintln!("results written to {}", cli.json);
    Ok(())
}

/// The rounds: in each, per tool count, every revision, and per revision every
/// implementation, once. FastMCP is left out of a revision it cannot serve.
fn rounds(cli: &Cli, commands: &[(usize, Kind, Vec<String>)]) -> Result<Results, String> {
    let mut results = Results::default();
    let mut unserved = Vec::new();
    for round in 1..=cli.rounds {
        eprintln!("round {round}/{}", cli.rounds);
        for &tools in &cli.tools {
            for &revision in &cli.revisions {
                for (_, kind, command) in commands.iter().filter(|c| c.0 == tools) {
                    if unserved.contains(&(*kind, revision)) {
                        continue;
                    }
                    let fastmcp = *kind == Kind::FastMcp;
                    let calls = if fastmcp { cli.calls / 20 } else { cli.calls };
                    let config = Config {
                        command: command.clone(),
                        revision,
                        tools,
                        list_reps: cli.list_reps,
                        call_reps: cli.call_reps,
                        throughput_calls: calls.max(1),
                        in_flight: cli.in_flight,
                        extra_startups: if fastmcp { 0 } else { cli.extra_startups },
                        call: None,
                    };
                    match load::measure(&config) {
                        Ok(m) => results.record(revision, tools, *kind, m),
                        // FastMCP is optional, and may not speak the newer revision.
                        Err(e) if fastmcp && revision.stateless() => {
                            eprintln!("FastMCP skipped at {revision}: {e}");
                            unserved.push((*kind, revision));
                        }
                        Err(e) => {
                            return Err(format!(
                                "{} with {tools} tools at {revision}: {e}",
                                kind.name()
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(results)
}

//! The cost of watching a server: toolsmith's server CPU per `tools/call` over HTTP at 64
//! connections, built without either feature, with `metrics` (which then records every call
//! and request, `/metrics` served beside the endpoint), and with `otel` exporting at a sample
//! ratio of 0 (`OTEL_TRACES_SAMPLER=parentbased_traceidratio`, `OTEL_TRACES_SAMPLER_ARG=0`,
//! an OTLP endpoint set), interleaved in rounds, per revision.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Serialize;

use super::runs::{call_request, check};
use super::{HttpKind, Running, free_addr, probe, wrk};
use crate::build::Workspace;
use crate::load::cpu_time;
use crate::revision::Revision;

/// A build compared: its label, its toolsmith features, its environment.
type Variant = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// The builds compared: their label, the toolsmith features they turn on, and their
/// environment.
const VARIANTS: [Variant; 3] = [
    ("plain", "\"auth\"", &[]),
    ("metrics", "\"auth\", \"metrics\"", &[]),
    (
        "otel",
        "\"auth\", \"otel\"",
        &[
            // Nothing listens there: at a ratio of 0 nothing is sent.
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
            ("OTEL_TRACES_SAMPLER", "parentbased_traceidratio"),
            ("OTEL_TRACES_SAMPLER_ARG", "0"),
        ],
    ),
];

/// What `observe` measures.
pub struct ObserveOptions {
    pub rounds: usize,
    pub tools: usize,
    pub revisions: Vec<Revision>,
    pub connections: usize,
    pub duration: Duration,
    /// Another checkout of toolsmith (an earlier commit), measured as `before`: the plain
    /// build's code before the features existed.
    pub before: Option<std::path::PathBuf>,
}

/// Server CPU per call (µs), by revision and variant, one figure per round.
#[derive(Debug, Default, Serialize)]
pub struct Observed {
    pub cpu_us: BTreeMap<Revision, BTreeMap<String, Vec<f64>>>,
    pub per_second: BTreeMap<Revision, BTreeMap<String, Vec<f64>>>,
}

/// Builds every variant, then runs the rounds.
pub fn observe(options: &ObserveOptions) -> Result<Observed, String> {
    super::raise_fd_limit();
    let wrk = wrk::ensure()?;
    let workspace = Workspace::current();
    let root = workspace.root.display().to_string();
    let source = HttpKind::Toolsmith.source(options.tools);
    let mut programs = Vec::new();
    let before = options
        .before
        .as_ref()
        .map(|root| ("before", "\"auth\"", &[][..], root.display().to_string()));
    let variants = before
        .into_iter()
        .chain(VARIANTS.iter().map(|&(l, f, e)| (l, f, e, root.clone())));
    for (label, features, env, root) in variants {
        eprintln!("building toolsmith ({label}, {} tools)", options.tools);
        let dependencies = HttpKind::Toolsmith
            .dependencies(&root)
            .replace("features = [\"auth\"]", &format!("features = [{features}]"));
        let name = format!("toolsmith-observe-{label}-{}", options.tools);
        let program = workspace.release_program(&name, &dependencies, &source)?;
        programs.push((label, env, program));
    }
    let scratch =
        std::env::temp_dir().join(format!("toolsmith-bench-observe-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let mut observed = Observed::default();
    for round in 1..=options.rounds {
        eprintln!("round {round}/{}", options.rounds);
        for &revision in &options.revisions {
            let call = call_request(revision);
            let script = wrk::script(
                &scratch,
                &format!("observe-{revision}"),
                &call.body,
                &call.headers,
                None,
            )?;
            for (label, env, program) in &programs {
                let addr = free_addr()?;
                let child = Command::new(program)
                    .args(HttpKind::Toolsmith.args(&addr, "json", None))
                    .args(super::stateless(program, &[]))
                    .env("TOOLSMITH_LOG", "warn")
                    .envs(env.iter().copied())
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .map_err(|e| format!("{label}: {e}"))?;
                let server = Running { child, addr };
                probe::wait_ready(&server.addr, Duration::from_secs(10))?;
                check(
                    &server,
                    options.tools,
                    None,
                    &format!("toolsmith ({label})"),
                    revision,
                )?;
                let url = format!("http://{}/mcp", server.addr);
                let pid = server.child.id();
                let before = cpu_time(pid);
                let run = wrk::run(&wrk, &url, &script, options.connections, options.duration)?;
                let cpu = cpu_time(pid).saturating_sub(before);
                let cpu_us = cpu.as_secs_f64() * 1e6 / run.requests.max(1) as f64;
                if *label == "metrics" {
                    let scraped = probe::get(&server.addr, "/metrics")?;
                    if !scraped
                        .contains("toolsmith_tool_calls_total{tool=\"tool_7\",outcome=\"ok\"}")
                    {
                        return Err(format!(
                            "the metrics build counted no call of tool_7:\n{scraped}"
                        ));
                    }
                }
                eprintln!(
                    "  toolsmith ({label:<7}) {revision} c={} {:>9.0}/s cpu {cpu_us:>6.2} µs per call",
                    options.connections, run.per_second
                );
                let by = |map: &mut BTreeMap<Revision, BTreeMap<String, Vec<f64>>>, value| {
                    map.entry(revision)
                        .or_default()
                        .entry((*label).to_owned())
                        .or_default()
                        .push(value);
                };
                by(&mut observed.cpu_us, cpu_us);
                by(&mut observed.per_second, run.per_second);
            }
        }
    }
    Ok(observed)
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// A Markdown table: medians of rounds, and each build's CPU per call against the plain
/// one's (the median of per-round ratios).
pub fn observe_table(observed: &Observed, connections: usize) -> String {
    let mut out = String::from(
        "| revision | build | calls/s | CPU per call | CPU / plain |\n| --- | --- | ---: | ---: | ---: |\n",
    );
    let mut rounds = 0;
    for (revision, cpu) in &observed.cpu_us {
        let rate = &observed.per_second[revision];
        let plain = &cpu["plain"];
        rounds = plain.len();
        let labels = std::iter::once("before").chain(VARIANTS.iter().map(|v| v.0));
        for label in labels {
            let Some(figures) = cpu.get(label) else {
                continue;
            };
            let ratios: Vec<f64> = plain.iter().zip(figures).map(|(p, m)| m / p).collect();
            out.push_str(&format!(
                "| {revision} | {label} | {:.1}k/s | {:.2} µs | {:.3}× |\n",
                median(&rate[label]) / 1e3,
                median(figures),
                median(&ratios),
            ));
        }
    }
    out.push_str(&format!(
        "\n({connections} connections, medians of {rounds} rounds)\n"
    ));
    out
}

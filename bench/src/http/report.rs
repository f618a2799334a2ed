//! The HTTP results as Markdown tables, one set per protocol revision: medians over rounds,
//! and the ratios to rmcp's best configuration (at the same revision) that the targets are
//! about (the median of the per-round ratios).

use std::collections::BTreeSet;
use std::fmt::Write;

use super::{Results, Sample};
use crate::revision::Revision;

pub(super) fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

fn pick<'a>(
    results: &'a Results,
    revision: Revision,
    server: &str,
    method: &str,
    connections: usize,
) -> Vec<&'a Sample> {
    results
        .samples
        .iter()
        .filter(|s| {
            s.revision == revision
                && s.server == server
                && s.method == method
                && s.connections == connections
        })
        .collect()
}

/// The per-round ratio `f(toolsmith) / f(rmcp)` at `revision`, median over rounds.
fn ratio(
    results: &Results,
    revision: Revision,
    method: &str,
    connections: usize,
    f: fn(&Sample) -> f64,
) -> f64 {
    let ours = pick(results, revision, "toolsmith (json)", method, connections);
    let theirs = pick(results, revision, "rmcp (json)", method, connections);
    median(
        ours.iter()
            .filter_map(|o| {
                let t = theirs.iter().find(|t| t.round == o.round)?;
                Some(f(o) / f(t))
            })
            .collect(),
    )
}

/// The tables, revision by revision.
pub fn table(results: &Results) -> String {
    let revisions: BTreeSet<Revision> = results.samples.iter().map(|s| s.revision).collect();
    let mut out = String::new();
    for revision in revisions {
        let _ = writeln!(out, "\n## Revision {revision}");
        revision_tables(results, revision, &mut out);
    }
    out
}

fn revision_tables(results: &Results, revision: Revision, out: &mut String) {
    let samples = || results.samples.iter().filter(|s| s.revision == revision);
    let servers: BTreeSet<&str> = samples().map(|s| s.server.as_str()).collect();
    let connections: BTreeSet<usize> = samples().map(|s| s.connections).collect();
    let pick = |server: &str, method: &str, c: usize| pick(results, revision, server, method, c);
    let ratio =
        |method: &str, c: usize, f: fn(&Sample) -> f64| ratio(results, revision, method, c, f);
    for method in ["tools/call", "tools/list"] {
        let _ = writeln!(
            out,
            "\n`{method}`, {} tools, {revision}: requests/s, p50 / p99 latency (median of rounds)\n",
            results.tools
        );
        let mut header = "| server |".to_owned();
        let mut rule = "| --- |".to_owned();
        for c in &connections {
            let _ = write!(header, " {c} conn. |");
            rule.push_str(" ---: |");
        }
        let _ = writeln!(out, "{header}\n{rule}");
        for server in &servers {
            let mut row = format!("| {server} |");
            for &c in &connections {
                let samples = pick(server, method, c);
                if samples.is_empty() {
                    row.push_str(" - |");
                    continue;
                }
                let rps = median(samples.iter().map(|s| s.per_second).collect());
                let p50 = median(samples.iter().map(|s| s.p50_us).collect());
                let p99 = median(samples.iter().map(|s| s.p99_us).collect());
                let _ = write!(row, " {} ({} / {}) |", count(rps), micros(p50), micros(p99));
            }
            let _ = writeln!(out, "{row}");
        }
    }
    let _ = writeln!(
        out,
        "\nServer CPU per `tools/call` at 64 connections, {revision} (µs, median of rounds)\n"
    );
    let _ = writeln!(out, "| server | CPU per call |\n| --- | ---: |");
    for server in &servers {
        let samples = pick(server, "tools/call", 64);
        if !samples.is_empty() {
            let _ = writeln!(
                out,
                "| {server} | {:.1} |",
                median(samples.iter().map(|s| s.cpu_us).collect())
            );
        }
    }
    let _ = writeln!(
        out,
        "\nPeak RSS with {} open connections calling, {revision} (MiB, median of rounds)\n",
        results.rss_connections
    );
    let _ = writeln!(out, "| server | peak RSS |\n| --- | ---: |");
    let no_rss = Default::default();
    let rss_kb = results.rss_kb.get(&revision).unwrap_or(&no_rss);
    for (server, kb) in rss_kb {
        let _ = writeln!(
            out,
            "| {server} | {:.1} |",
            median(kb.iter().map(|&k| k as f64).collect()) / 1024.0
        );
    }
    let auth_cpu_us = results
        .auth_cpu_us
        .get(&revision)
        .map_or(&[][..], Vec::as_slice);
    let (plain, auth): (Vec<f64>, Vec<f64>) = auth_cpu_us.iter().copied().unzip();
    let overhead = median(auth_cpu_us.iter().map(|(p, a)| a / p - 1.0).collect());
    let _ = writeln!(
        out,
        "\nAuthorization, {revision}: server CPU per call at 64 connections {:.1} µs without, {:.1} µs with (overhead {:+.1}%, median of per-round ratios)\n",
        median(plain),
        median(auth),
        overhead * 100.0
    );
    let rss = |server: &str| {
        rss_kb.get(server).map_or(f64::NAN, |kb| {
            median(kb.iter().map(|&k| k as f64).collect())
        })
    };
    let _ = writeln!(
        out,
        "Targets against rmcp's best configuration (JSON responses), toolsmith (JSON), {revision}:\n"
    );
    let _ = writeln!(
        out,
        "| measure | toolsmith / rmcp | target |\n| --- | ---: | --- |"
    );
    let _ = writeln!(
        out,
        "| calls/s at 64 connections | {:.2}× | ≥ 2× |",
        ratio("tools/call", 64, |s| s.per_second)
    );
    let _ = writeln!(
        out,
        "| p99 latency at 64 connections | {:.2}× | ≤ 1× |",
        ratio("tools/call", 64, |s| s.p99_us)
    );
    let _ = writeln!(
        out,
        "| p50 latency at 1 connection | {:.2}× | ≤ 1× |",
        ratio("tools/call", 1, |s| s.p50_us)
    );
    let _ = writeln!(
        out,
        "| peak RSS, {} connections | {:.2}× | ≤ 1× |",
        results.rss_connections,
        rss("toolsmith (json)") / rss("rmcp (json)")
    );
    let _ = writeln!(
        out,
        "| CPU per call at 64 connections | {:.2}× | |",
        ratio("tools/call", 64, |s| s.cpu_us)
    );
}

fn count(per_second: f64) -> String {
    if per_second >= 1000.0 {
        format!("{:.1}k", per_second / 1000.0)
    } else {
        format!("{per_second:.0}")
    }
}

fn micros(us: f64) -> String {
    if us >= 1000.0 {
        format!("{:.1} ms", us / 1000.0)
    } else {
        format!("{us:.0} µs")
    }
}

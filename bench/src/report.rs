//! Medians across rounds, per-round ratios against rmcp, and the printed tables: one per
//! revision and tool count.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::build::BuildFigures;
use crate::fixtures::Kind;
use crate::load::Measurement;
use crate::revision::Revision;

/// A metric of [`Measurement`]: its name, how to read it, and whether more is better.
pub struct Metric {
    pub name: &'static str,
    pub get: fn(&Measurement) -> f64,
    pub higher_is_better: bool,
}

/// Every runtime metric, in table order.
pub const METRICS: &[Metric] = &[
    Metric {
        name: "tools/call per s (pipelined)",
        get: |m| m.calls_per_sec,
        higher_is_better: true,
    },
    Metric {
        name: "server CPU per call (us)",
        get: |m| m.cpu_per_call_us,
        higher_is_better: false,
    },
    Metric {
        name: "call latency median (us)",
        get: |m| m.call_median_us,
        higher_is_better: false,
    },
    Metric {
        name: "call latency p99 (us)",
        get: |m| m.call_p99_us,
        higher_is_better: false,
    },
    Metric {
        name: "tools/list median (us)",
        get: |m| m.list_median_us,
        higher_is_better: false,
    },
    Metric {
        name: "server CPU per tools/list (us)",
        get: |m| m.list_cpu_us,
        higher_is_better: false,
    },
    Metric {
        name: "tools/list p99 (us)",
        get: |m| m.list_p99_us,
        higher_is_better: false,
    },
    Metric {
        name: "spawn to tools/list (ms)",
        get: |m| m.startup_ms,
        higher_is_better: false,
    },
    Metric {
        name: "peak RSS (kB)",
        get: |m| m.peak_rss_kb as f64,
        higher_is_better: false,
    },
    Metric {
        name: "generator CPU per call (us)",
        get: |m| m.client_cpu_per_call_us,
        higher_is_better: false,
    },
];

/// Every run, by revision, tool count and implementation, in round order.
#[derive(Default, Serialize)]
pub struct Results {
    pub runs: BTreeMap<Revision, BTreeMap<usize, BTreeMap<&'static str, Vec<Measurement>>>>,
    pub builds: BTreeMap<&'static str, BuildFigures>,
}

pub fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    }
}

/// How many times better toolsmith is than rmcp on `metric` in each round (>1: better).
pub fn round_ratios(toolsmith: &[Measurement], rmcp: &[Measurement], metric: &Metric) -> Vec<f64> {
    toolsmith
        .iter()
        .zip(rmcp)
        .map(|(t, r)| {
            let (t, r) = ((metric.get)(t), (metric.get)(r));
            if metric.higher_is_better {
                t / r
            } else {
                r / t
            }
        })
        .collect()
}

impl Results {
    pub fn record(&mut self, revision: Revision, tools: usize, kind: Kind, m: Measurement) {
        self.runs
            .entry(revision)
            .or_default()
            .entry(tools)
            .or_default()
            .entry(kind.name())
            .or_default()
            .push(m);
    }

    /// The tables, one per revision and tool count: medians per implementation and the
    /// median per-round ratio vs rmcp (at that revision).
    pub fn table(&self) -> String {
        let mut out = String::new();
        let tables = self
            .runs
            .iter()
            .flat_map(|(r, by_tools)| by_tools.iter().map(move |(t, kinds)| (r, t, kinds)));
        for (revision, tools, kinds) in tables {
            let _ = writeln!(out, "\n{tools} tools, revision {revision}");
            let names: Vec<&&str> = kinds.keys().collect();
            let _ = write!(out, "  {:<30}", "metric (median of rounds)");
            for name in &names {
                let _ = write!(out, "{name:>12}");
            }
            let _ = writeln!(out, "{:>20}", "toolsmith vs rmcp");
            for metric in METRICS {
                let _ = write!(out, "  {:<30}", metric.name);
                for name in &names {
                    let values = kinds[**name].iter().map(metric.get).collect();
                    let _ = write!(out, "{:>12.1}", median(values));
                }
                let ratio = match (kinds.get("toolsmith"), kinds.get("rmcp")) {
                    (Some(t), Some(r)) => median(round_ratios(t, r, metric)),
                    _ => f64::NAN,
                };
                let ratio = if ratio.is_finite() {
                    format!("{ratio:.2}x")
                } else {
                    "-".into()
                };
                let _ = writeln!(out, "{ratio:>20}");
            }
        }
        if !self.builds.is_empty() {
            let _ = writeln!(
                out,
                "\nbuild of the largest fixture (dependencies prebuilt)"
            );
            for (name, b) in &self.builds {
                let _ = writeln!(
                    out,
                    "  {name:<10} clean release {:>6.1} s   dev rebuild after one edit {:>5.1} s   binary {:>5.1} MB",
                    b.clean_release_s,
                    b.dev_rebuild_s,
                    b.binary_bytes as f64 / 1e6
                );
            }
            if let (Some(t), Some(r)) = (self.builds.get("toolsmith"), self.builds.get("rmcp")) {
                let _ = writeln!(
                    out,
                    "  toolsmith / rmcp: clean release {:.2}x, dev rebuild {:.2}x, binary {:.2}x (lower is better)",
                    t.clean_release_s / r.clean_release_s,
                    t.dev_rebuild_s / r.dev_rebuild_s,
                    t.binary_bytes as f64 / r.binary_bytes as f64
                );
            }
        }
        out
    }
}

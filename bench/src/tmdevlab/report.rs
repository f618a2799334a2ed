//! The tables of BENCHMARKS.md: per virtual-user level, each server's medians over the
//! rounds, and its ratio to the comparison (the median of the per-round ratios: rounds
//! differ more than servers within a round).

use std::fmt::Write;

use super::Sample;

fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    match values.len() % 2 {
        1 => values[mid],
        _ => (values[mid - 1] + values[mid]) / 2.0,
    }
}

/// The Markdown tables of `samples`; ratios are to `baseline` when it ran.
pub fn table(samples: &[Sample], baseline: &str) -> String {
    let mut out = String::new();
    let mut levels: Vec<usize> = samples.iter().map(|s| s.vus).collect();
    levels.sort_unstable();
    levels.dedup();
    for vus in levels {
        let at: Vec<&Sample> = samples.iter().filter(|s| s.vus == vus).collect();
        let mut servers: Vec<&str> = at.iter().map(|s| s.server.as_str()).collect();
        servers.dedup();
        servers.sort_unstable();
        servers.dedup();
        let rounds = at.iter().map(|s| s.round).max().unwrap_or(0);
        let _ = writeln!(
            out,
            "\n{vus} virtual users (medians of {rounds} rounds; ratios to {baseline}, per round)\n"
        );
        out.push_str("| server | requests/s | avg / p99 (ms) | initialize avg (ms) | RSS mean / peak (MB) | server CPU per request | users / backends CPU per request | errors |\n");
        out.push_str("|---|---|---|---|---|---|---|---|\n");
        for server in servers {
            let mine: Vec<&&Sample> = at.iter().filter(|s| s.server == server).collect();
            let pick = |f: fn(&Sample) -> f64| median(mine.iter().map(|s| f(s)).collect());
            let ratio = |f: fn(&Sample) -> f64| {
                let per_round = mine
                    .iter()
                    .filter_map(|s| {
                        let base = at
                            .iter()
                            .find(|b| b.server == baseline && b.round == s.round)?;
                        Some(f(s) / f(base))
                    })
                    .collect::<Vec<_>>();
                match per_round.is_empty() || server == baseline {
                    true => String::new(),
                    false => format!(" ({:.2}x)", median(per_round)),
                }
            };
            let _ = writeln!(
                out,
                "| {server} | {:.0}{} | {:.2} / {:.2}{} | {:.2} | {:.1} / {:.1}{} | {:.0} µs{} | {:.0} / {:.0} µs | {} |",
                pick(|s| s.rps),
                ratio(|s| s.rps),
                pick(|s| s.avg_ms),
                pick(|s| s.p99_ms),
                ratio(|s| s.p99_ms),
                pick(|s| s.initialize_avg_ms),
                pick(|s| s.rss_mb),
                pick(|s| s.rss_peak_mb),
                ratio(|s| s.rss_mb),
                pick(|s| s.cpu_us),
                ratio(|s| s.cpu_us),
                pick(|s| s.generator_cpu_us),
                pick(|s| s.backends_cpu_us),
                mine.iter().map(|s| s.errors).sum::<u64>(),
            );
        }
    }
    out
}

//! The flags every `audit` command shares (the `toolsmith` binary's and each toolsmith
//! server's), and printing a report as they ask.

use std::io::Write;
use std::path::PathBuf;

use crate::{Baseline, FailOn, Report};

/// How to print the audit and when it fails.
///
/// ```
/// use clap::Parser;
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     audit: toolsmith_audit::Options,
/// }
/// let cli = Cli::parse_from(["audit", "--sarif", "--fail-on", "warning"]);
/// assert!(cli.audit.sarif);
/// assert_eq!(cli.audit.fail_on, toolsmith_audit::FailOn::Warning);
/// ```
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Options {
    /// Print the report as JSON (also the format `--baseline` reads).
    #[arg(long, conflicts_with = "sarif")]
    pub json: bool,
    /// Print the report as SARIF 2.1.0 (for GitHub code scanning).
    #[arg(long)]
    pub sarif: bool,
    /// With --sarif: the repository file each result is located at (GitHub code scanning
    /// shows only results in a file), e.g. the server's entry point.
    #[arg(long, value_name = "PATH", requires = "sarif")]
    pub sarif_file: Option<String>,
    /// Exit with status 1 on a finding of this severity or worse.
    #[arg(long, value_enum, value_name = "SEVERITY", default_value = "error")]
    pub fail_on: FailOn,
    /// Accept the findings listed in FILE (an earlier `--json` report): they are still shown,
    /// but fail nothing.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
}

impl Options {
    /// Applies the baseline, prints `report` to `out` in the format asked for (and on stderr
    /// the baseline entries no finding matched), and returns the exit status: 0, 1 for a
    /// failing finding, 2 for a baseline that cannot be read.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolsmith_audit::{Options, Report, Server};
    ///
    /// let report = Report::new(Server::named("s"), vec![json!({"name": "x"})]);
    /// let mut out = Vec::new();
    /// let status = Options { json: true, ..Options::default() }.finish(report, &mut out).unwrap();
    /// assert_eq!(status, 1);
    /// let printed: serde_json::Value = serde_json::from_slice(&out).unwrap();
    /// assert!(printed["summary"]["errors"].as_u64().unwrap() > 0);
    /// ```
    pub fn finish(&self, mut report: Report, out: &mut dyn Write) -> std::io::Result<u8> {
        if let Some(path) = &self.baseline {
            match Baseline::read(path) {
                Ok(baseline) => report.apply_baseline(&baseline),
                Err(err) => {
                    eprintln!("{err}");
                    return Ok(2);
                }
            }
        }
        let pretty = |value: serde_json::Value| {
            serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string())
        };
        if self.json {
            writeln!(out, "{}", pretty(report.to_json()))?;
        } else if self.sarif {
            writeln!(
                out,
                "{}",
                pretty(report.to_sarif(self.sarif_file.as_deref()))
            )?;
        } else {
            write!(out, "{}", report.to_table())?;
        }
        if !report.stale.is_empty() {
            eprintln!(
                "{} baseline entries match no finding any more (fixed, or renamed): {}; refresh the baseline with `audit --json ... > FILE`",
                report.stale.len(),
                report.stale.join(", ")
            );
        }
        Ok(report.exit_code(self.fail_on))
    }
}

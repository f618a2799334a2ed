//! The benchmark cannot rot: its generator still writes the fixtures built with this crate,
//! and the load generator measures both small fixture servers end to end (tiny counts; the
//! real run is `cargo run --release -p toolsmith-bench`, see BENCHMARKS.md).

use toolsmith_bench::fixtures::{self, Kind};
use toolsmith_bench::load::{Config, measure};
use toolsmith_bench::report::Results;

#[test]
fn the_small_fixtures_are_what_the_generator_writes() {
    for (kind, committed) in [
        (
            Kind::Toolsmith,
            include_str!("../src/bin/fixture_toolsmith.rs"),
        ),
        (Kind::Rmcp, include_str!("../src/bin/fixture_rmcp.rs")),
    ] {
        assert_eq!(
            fixtures::source(kind, fixtures::SMALL),
            committed,
            "regenerate with `cargo run -p toolsmith-bench --bin toolsmith-bench -- write-small-fixtures`"
        );
    }
    let python = fixtures::source(Kind::FastMcp, 2);
    assert!(python.contains("def tool_1(a: int, b: int, label: Optional[str] = None) -> str:"));
}

#[test]
fn both_servers_are_measured_and_compared() {
    let mut results = Results::default();
    for (kind, binary) in [
        (Kind::Toolsmith, env!("CARGO_BIN_EXE_fixture-toolsmith")),
        (Kind::Rmcp, env!("CARGO_BIN_EXE_fixture-rmcp")),
    ] {
        let config = Config {
            command: vec![binary.to_owned()],
            tools: fixtures::SMALL,
            list_reps: 5,
            call_reps: 20,
            throughput_calls: 200,
            in_flight: 16,
            extra_startups: 1,
        };
        let m = measure(&config).unwrap_or_else(|e| panic!("{}: {e}", kind.name()));
        assert!(
            m.calls_per_sec > 0.0 && m.startup_ms > 0.0 && m.call_median_us > 0.0,
            "{m:?}"
        );
        assert!(m.peak_rss_kb > 0, "{m:?}");
        results.record(fixtures::SMALL, kind, m);
    }
    let table = results.table();
    assert!(table.contains("tools/call per s (pipelined)"), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.contains("peak RSS") && l.trim_end().ends_with('x')),
        "{table}"
    );
}

#[test]
fn a_wrong_tool_count_fails_loudly() {
    let config = Config {
        command: vec![env!("CARGO_BIN_EXE_fixture-toolsmith").to_owned()],
        tools: 7,
        list_reps: 1,
        call_reps: 1,
        throughput_calls: 1,
        in_flight: 1,
        extra_startups: 0,
    };
    let err = measure(&config).unwrap_err();
    assert!(
        err.contains("tools/list returned 3 tools, expected 7"),
        "{err}"
    );
}

//! The benchmark cannot rot: its generator still writes the fixtures built with this crate,
//! and the load generator measures the small fixture servers (toolsmith, rmcp, the echo
//! ceiling) end to end at both revisions, every response validated (tiny counts; the real
//! run is `cargo run --release -p toolsmith-bench`, see BENCHMARKS.md).

use toolsmith_bench::fixtures::{self, Kind};
use toolsmith_bench::load::{Config, FixedCall, measure};
use toolsmith_bench::report::Results;
use toolsmith_bench::revision::{self, Revision};

const SERVERS: [(Kind, &str); 3] = [
    (Kind::Toolsmith, env!("CARGO_BIN_EXE_fixture-toolsmith")),
    (Kind::Rmcp, env!("CARGO_BIN_EXE_fixture-rmcp")),
    (Kind::Echo, env!("CARGO_BIN_EXE_fixture-echo")),
];

fn tiny(binary: &str, revision: Revision) -> Config {
    Config {
        command: vec![binary.to_owned()],
        revision,
        tools: fixtures::SMALL,
        list_reps: 5,
        call_reps: 20,
        throughput_calls: 200,
        in_flight: 16,
        extra_startups: 1,
        call: None,
    }
}

#[test]
fn the_small_fixtures_are_what_the_generator_writes() {
    for (kind, committed) in [
        (
            Kind::Toolsmith,
            include_str!("../src/bin/fixture_toolsmith.rs"),
        ),
        (Kind::Rmcp, include_str!("../src/bin/fixture_rmcp.rs")),
        (Kind::Echo, include_str!("../src/bin/fixture_echo.rs")),
    ] {
        assert_eq!(
            fixtures::source(kind, fixtures::SMALL),
            committed,
            "regenerate with `cargo run -p toolsmith-bench --bin toolsmith-bench -- write-small-fixtures`"
        );
    }
    for (generated, committed) in [
        (
            fixtures::granted(fixtures::SMALL),
            include_str!("../src/bin/fixture_granted.rs"),
        ),
        (
            fixtures::toolsmith_sync(fixtures::SMALL),
            include_str!("../src/bin/fixture_toolsmith_sync.rs"),
        ),
        (
            fixtures::toolsmith_run(fixtures::SMALL),
            include_str!("../src/bin/fixture_toolsmith_run.rs"),
        ),
    ] {
        assert_eq!(
            generated, committed,
            "regenerate with `cargo run -p toolsmith-bench --bin toolsmith-bench -- write-small-fixtures`"
        );
    }
    assert!(fixtures::toolsmith_sync(2).contains("\nfn tool_1(a: i64"));
    let python = fixtures::source(Kind::FastMcp, 2);
    assert!(python.contains("def tool_1(a: int, b: int, label: Optional[str] = None) -> str:"));
}

#[test]
fn every_server_is_measured_and_compared_at_both_revisions() {
    let mut results = Results::default();
    for revision in revision::ALL {
        for (kind, binary) in SERVERS {
            let m = measure(&tiny(binary, revision))
                .unwrap_or_else(|e| panic!("{} at {revision}: {e}", kind.name()));
            assert!(
                m.calls_per_sec > 0.0 && m.startup_ms > 0.0 && m.call_median_us > 0.0,
                "{m:?}"
            );
            assert!(m.peak_rss_kb > 0, "{m:?}");
            results.record(revision, fixtures::SMALL, kind, m);
        }
    }
    let table = results.table();
    for revision in revision::ALL {
        let heading = format!("{} tools, revision {revision}", fixtures::SMALL);
        let at = table.find(&heading).unwrap_or_else(|| panic!("{table}"));
        // Its own table: the implementations, and the ratio to rmcp at that revision.
        let own = &table[at..];
        let own = &own[..own.find("\n\n").unwrap_or(own.len())];
        assert!(own.contains("tools/call per s (pipelined)"), "{own}");
        for (kind, _) in SERVERS {
            assert!(own.lines().nth(1).unwrap().contains(kind.name()), "{own}");
        }
        assert!(
            own.lines()
                .any(|l| l.contains("peak RSS") && l.trim_end().ends_with('x')),
            "{own}"
        );
    }
    let json = serde_json::to_value(&results).unwrap();
    assert!(json["runs"]["2026-07-28"]["3"]["echo"].is_array(), "{json}");
}

/// The same tools written as sync `fn`s, and as async ones served by `toolsmith::run()`,
/// answer every call, validated, at both revisions.
#[test]
fn the_sync_fixture_and_its_async_side_are_measured_at_both_revisions() {
    for revision in revision::ALL {
        for binary in [
            env!("CARGO_BIN_EXE_fixture-toolsmith-sync"),
            env!("CARGO_BIN_EXE_fixture-toolsmith-run"),
        ] {
            let m = measure(&tiny(binary, revision))
                .unwrap_or_else(|e| panic!("{binary} at {revision}: {e}"));
            assert!(m.calls_per_sec > 0.0 && m.call_median_us > 0.0, "{m:?}");
        }
    }
}

/// `--call`: one call made every time, its answer checked against what it must start with.
#[test]
fn a_fixed_call_is_made_every_time_and_its_answer_checked() {
    let fixed = |expect: &str| Config {
        call: Some(FixedCall {
            name: "tool_1".into(),
            arguments: r#"{"a":40,"b":2}"#.into(),
            expect: expect.into(),
        }),
        ..tiny(
            env!("CARGO_BIN_EXE_fixture-toolsmith"),
            Revision::V2025_11_25,
        )
    };
    measure(&fixed(r#"{"tool":1,"sum":42,"#)).unwrap();
    let err = measure(&fixed(r#"{"tool":1,"sum":43,"#)).unwrap_err();
    assert!(err.contains("unexpected result"), "{err}");
}

/// A server answering in the other revision's shapes (here, a 2026-07-28 session asked
/// 2025-11-25 questions: every result lacks `resultType`) fails the run.
#[test]
fn results_of_the_wrong_revision_fail_loudly() {
    let binary = env!("CARGO_BIN_EXE_fixture-echo");
    // A wrapper that rewrites each request into 2025-11-25's shape before the echo sees it.
    let strip = format!(r#"sed -u 's|,"_meta":{{[^}}]*}}}}||' | {binary}"#);
    let config = Config {
        command: vec!["sh".into(), "-c".into(), strip],
        ..tiny(binary, Revision::V2026_07_28)
    };
    let err = measure(&config).unwrap_err();
    assert!(err.contains("resultType"), "{err}");
}

#[test]
fn a_wrong_tool_count_fails_loudly() {
    let config = Config {
        tools: 7,
        ..tiny(
            env!("CARGO_BIN_EXE_fixture-toolsmith"),
            Revision::V2026_07_28,
        )
    };
    let err = measure(&config).unwrap_err();
    assert!(
        err.contains("tools/list returned 3 tools, expected 7"),
        "{err}"
    );
}

/// The granted fixture confirms every tool that is not read-only and holds a grant for each:
/// every call runs, at both revisions (without the grants, a call of tool_1 or tool_2 would
/// be asked, and the measurement would fail on its answer).
#[test]
fn the_granted_fixture_runs_every_call_on_its_grants() {
    for revision in revision::ALL {
        let m = measure(&tiny(env!("CARGO_BIN_EXE_fixture-granted"), revision))
            .unwrap_or_else(|e| panic!("granted at {revision}: {e}"));
        assert!(m.calls_per_sec > 0.0, "{m:?}");
    }
}

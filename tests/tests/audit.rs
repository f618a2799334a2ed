//! `audit`: every toolsmith server's own (`notes audit`, in-process) and the `toolsmith`
//! binary's (`toolsmith audit`, as a client over stdio and Streamable HTTP), on the notes
//! example and on the fixture server.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use toolsmith_tests::example_binary;
use toolsmith_tests::http::HttpServer;

/// Builds the `toolsmith` binary of toolsmith-cli and returns its path.
fn toolsmith() -> PathBuf {
    toolsmith_tests::built("toolsmith-cli", "--bin", "toolsmith")
}

fn run(program: &Path, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .env("TOOLSMITH_LOG", "off")
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "not JSON ({err}): {}\nstderr: {}",
            stdout(output),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The findings of a `--json` report as `severity code tool`.
fn findings(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{} {} {}", f["severity"], f["code"], f["tool"]))
        .collect()
}

#[test]
fn notes_audit_finds_nothing_in_its_own_tools() {
    let notes = example_binary("notes");
    let out = run(&notes, &["audit", "--fail-on", "note"]);
    assert!(out.status.success(), "{}", stdout(&out));
    let table = stdout(&out);
    assert!(table.starts_with("NAME "), "{table}");
    assert!(
        table.contains("delete_note   Delete note   no         yes"),
        "{table}"
    );
    assert!(
        table.ends_with("7 tools: 0 errors, 0 warnings, 0 notes\n"),
        "{table}"
    );

    let report = json(&run(&notes, &["audit", "--json"]));
    assert_eq!(report["server"]["name"], "toolsmith-examples");
    assert_eq!(report["tools"].as_array().unwrap().len(), 7);
    assert_eq!(findings(&report), Vec::<String>::new());
}

#[test]
fn a_toolsmith_server_has_no_error_by_construction() {
    // The fixture server has 31 tools of every shape toolsmith supports (context parameters,
    // serde_json::Value results, images, streams, ...): warnings, but never an error.
    let fixture = PathBuf::from(env!("CARGO_BIN_EXE_fixture_server"));
    let out = run(&fixture, &["audit", "--json"]);
    assert!(out.status.success(), "{}", stdout(&out));
    let report = json(&out);
    assert_eq!(report["summary"]["errors"], 0, "{:#?}", findings(&report));
    let out = run(&fixture, &["audit", "--fail-on", "warning"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a warning fails with --fail-on warning"
    );
}

#[test]
fn sarif_has_every_rule_and_a_result_per_finding() {
    let fixture = PathBuf::from(env!("CARGO_BIN_EXE_fixture_server"));
    let log = json(&run(
        &fixture,
        &["audit", "--sarif", "--sarif-file", "src/main.rs"],
    ));
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        readme_rule_codes(),
        "the guide's rule table lists every rule, in order"
    );
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for result in results {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let location = &result["locations"][0];
        assert_eq!(
            location["physicalLocation"]["artifactLocation"]["uri"],
            "src/main.rs"
        );
        assert!(location["logicalLocations"][0]["name"].is_string());
    }
}

/// The codes of the guide's rule table (its page on auditing), in order.
fn readme_rule_codes() -> Vec<&'static str> {
    let page = include_str!("../../runtime/src/guide/audit.md");
    page.lines()
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| {
            [" | error | ", " | warning | ", " | note | "]
                .iter()
                .any(|s| l.contains(s))
        })
        .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
        .collect()
}

#[test]
fn a_baseline_accepts_known_findings_and_reports_stale_ones() {
    let fixture = PathBuf::from(env!("CARGO_BIN_EXE_fixture_server"));
    let dir = std::env::temp_dir().join(format!("toolsmith-audit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let baseline = dir.join("baseline.json");
    let out = run(&fixture, &["audit", "--json"]);
    let mut report = json(&out);
    // One accepted finding that no longer occurs.
    report["findings"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"code": "hints-missing", "tool": "gone", "path": null}));
    std::fs::write(&baseline, report.to_string()).unwrap();
    let path = baseline.to_str().unwrap();
    let out = run(
        &fixture,
        &["audit", "--fail-on", "warning", "--baseline", path],
    );
    assert!(
        out.status.success(),
        "every warning is accepted: {}",
        stdout(&out)
    );
    let table = stdout(&out);
    assert!(table.contains("0 errors, 0 warnings, 0 notes ("), "{table}");
    assert!(table.contains(" more accepted by the baseline)"), "{table}");
    assert!(
        table.contains("warning  whoami  schema-untyped (accepted)"),
        "{table}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 baseline entries match no finding any more"),
        "{stderr}"
    );
    assert!(stderr.contains("hints-missing gone"), "{stderr}");

    let out = run(
        &fixture,
        &["audit", "--baseline", "/nonexistent/audit.json"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("write one with `audit --json ... > FILE`"),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn toolsmith_audit_over_stdio_sees_what_the_server_sees_itself() {
    let notes = example_binary("notes");
    let notes = notes.to_str().unwrap();
    let own = json(&run(Path::new(notes), &["audit", "--json"]));
    // In pages of 2: every page is listed.
    let out = Command::new(toolsmith())
        .args(["audit", "--json", "--", notes])
        .env("TOOLSMITH_PAGE_SIZE", "2")
        .env("TOOLSMITH_LOG", "off")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let remote = json(&out);
    assert_eq!(remote["tools"], own["tools"]);
    assert_eq!(remote["findings"], own["findings"]);
    assert_eq!(remote["server"]["name"], "toolsmith-examples");
    assert_eq!(remote["server"]["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn toolsmith_audit_over_http_with_headers_and_a_protocol_version() {
    let notes = example_binary("notes");
    let server = HttpServer::start(notes.to_str().unwrap(), &[]).await;
    let url = format!("http://{}{}", server.addr, server.path);
    let out = tokio::process::Command::new(toolsmith())
        .args(["audit", "--json", &url, "--header", "X-Audit: yes"])
        .args(["--protocol-version", "2025-06-18"])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["server"]["protocolVersion"], "2025-06-18");
    assert_eq!(report["tools"].as_array().unwrap().len(), 7);
    assert_eq!(report["summary"]["errors"], 0);

    for (args, expected) in [
        (
            vec!["audit", url.as_str(), "--header", "no colon"],
            "write it as 'Name: value'",
        ),
        (
            vec!["audit", url.as_str(), "--protocol-version", "1999-01-01"],
            "choose one of",
        ),
        (vec!["audit", "notes.example"], "is not an http(s) URL"),
    ] {
        let out = Command::new(toolsmith()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn toolsmith_audit_says_when_a_server_cannot_be_started() {
    let out = Command::new(toolsmith())
        .args(["audit", "--", "/nonexistent/mcp-server"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot start `/nonexistent/mcp-server`"),
        "{stderr}"
    );
}

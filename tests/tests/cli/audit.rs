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
fn a_server_audit_names_the_cli_for_another_server() {
    let notes = example_binary("notes");
    let out = run(&notes, &["audit", "--", "npx", "-y", "some-server"]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("audits this server's own tools")
            && said.contains("toolsmith audit -- npx -y some-server"),
        "{said}"
    );
    assert!(out.stdout.is_empty(), "nothing audited: {}", stdout(&out));
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
    let page = include_str!("../../../runtime/src/guide/audit.md");
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

/// The hostile stdio server of `tests/fixtures/hostile_server.py`, in `mode`.
fn hostile(mode: &str, count: usize) -> Vec<String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/hostile_server.py");
    vec![
        "python3".to_owned(),
        script.to_owned(),
        mode.to_owned(),
        count.to_string(),
    ]
}

/// A server's terminal control sequences in its names and titles reach the text report
/// escaped: it cannot clear the screen, retitle the window or plant a hyperlink.
#[test]
fn the_text_report_escapes_a_servers_terminal_controls() {
    let mut args = vec!["audit".to_owned(), "--".to_owned()];
    args.extend(hostile("escapes", 0));
    let out = Command::new(toolsmith()).args(&args).output().unwrap();
    let report = stdout(&out);
    assert!(report.contains("hints-missing"), "{report}");
    for c in ['\u{1b}', '\u{7}', '\u{202e}'] {
        assert!(!report.contains(c), "{c:?} reached the terminal:\n{report}");
    }
    assert!(report.contains("get_x\\x1b[2J\\x1b[H"), "{report}");
    assert!(report.contains("rtl\\u{202e}txt"), "{report}");
}

/// 20,000 tools on one page: the rules are linear, the listing is cut at `--max-tools`
/// (10,000 by default) with a finding that says so, and all of it within the timeout.
#[test]
fn twenty_thousand_tools_are_audited_within_the_timeout_and_cut_at_the_cap() {
    let mut args: Vec<String> = ["audit", "--json", "--timeout", "60"]
        .map(str::to_owned)
        .to_vec();
    args.push("--".to_owned());
    args.extend(hostile("many", 20_000));
    let started = std::time::Instant::now();
    let out = Command::new(toolsmith()).args(&args).output().unwrap();
    let report = json(&out);
    eprintln!("20,000 tools: {:?}", started.elapsed());
    assert_eq!(report["tools"].as_array().map(Vec::len), Some(10_000));
    let cut: Vec<String> = findings(&report)
        .into_iter()
        .filter(|f| f.contains("listing-cut"))
        .collect();
    assert_eq!(cut.len(), 1, "{cut:?}");

    let mut all: Vec<String> = ["audit", "--json", "--max-tools", "20000", "--"]
        .map(str::to_owned)
        .to_vec();
    all.extend(hostile("many", 20_000));
    let out = Command::new(toolsmith()).args(&all).output().unwrap();
    let report = json(&out);
    assert_eq!(report["tools"].as_array().map(Vec::len), Some(20_000));
    assert!(!findings(&report).iter().any(|f| f.contains("listing-cut")));
}

/// `--timeout` ends a server that never answers, with everything it started: the audit's
/// stderr reaches its end at once, and no process of the server's group is left.
#[test]
fn the_timeout_ends_the_server_and_its_whole_process_group() {
    use std::io::Read;
    let dir = std::env::temp_dir().join(format!("toolsmith-audit-group-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("pid");
    let script = format!("echo $$ > {}; sleep 1000 & sleep 1000", pid_file.display());
    let toolsmith = toolsmith();
    let started = std::time::Instant::now();
    let mut child = Command::new(toolsmith)
        .args(["audit", "--timeout", "1", "--", "sh", "-c", &script])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    let took = started.elapsed();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("did not finish within 1 s"), "{stderr}");
    assert!(
        took < std::time::Duration::from_secs(10),
        "stderr stayed open for {took:?}"
    );
    let group: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let alive: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let stat = std::fs::read_to_string(entry.ok()?.path().join("stat")).ok()?;
            // pid (comm) state ppid pgrp ...: the fields after the command's closing paren.
            let rest = &stat[stat.rfind(')')? + 2..];
            let pgrp: i32 = rest.split(' ').nth(2)?.parse().ok()?;
            let zombie = rest.starts_with('Z');
            (pgrp == group && !zombie).then_some(stat)
        })
        .collect();
    assert!(alive.is_empty(), "left running: {alive:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

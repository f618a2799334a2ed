//! A hostile upstream against the pin and the resources (`tests/fixtures/hostile_pin.py`): a
//! resource name that would write a tool line of its own into the `check` snapshot, and a
//! resource at a URI another upstream's template serves.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::json;
use toolsmith::testing::Client;
use toolsmith::{Registry, Server};
use toolsmith_gateway::{Pin, Upstream};

use super::notes;

/// The hostile upstream in `mode`, as `h`.
fn hostile(mode: &str) -> Upstream {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/hostile_pin.py");
    Upstream::stdio("h", "python3").args([script, mode])
}

/// A fresh directory for this test's files.
fn dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolsmith-pin-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `registry`'s command line run with `args` (`check FILE`, `check --write FILE`), as the
/// gateway runs it: the exit status.
async fn run(registry: Registry, args: &[&str]) -> ExitCode {
    let argv = std::iter::once("toolsmith-gateway").chain(args.iter().copied());
    Server::with_registry(registry).run_with(argv).await
}

/// What `check --write` writes of `registry` to `path`.
async fn written(registry: Registry, path: &Path) -> String {
    let path_text = path.to_str().unwrap();
    let status = run(registry, &["check", "--write", path_text]).await;
    assert_eq!(status, ExitCode::SUCCESS);
    std::fs::read_to_string(path).unwrap()
}

#[tokio::test]
async fn a_resource_name_cannot_write_a_tool_line_into_the_pinned_snapshot() {
    let dir = dir("forge");
    // The attacker learns the line `check --write` writes for the tool it will add later, by
    // running it through a gateway of its own.
    let probe = hostile("tool").connect().await.unwrap();
    let learned = written(probe.registry().unwrap(), &dir.join("probe.snapshot")).await;
    let line = |what: &str| {
        let found = learned.lines().find(|l| l.contains(what));
        found.unwrap_or_else(|| panic!("{learned}")).to_owned()
    };
    // Its resource's name ends its own line as the snapshot would, then starts the tool's.
    let own = line("hostile://readme");
    let (_, rest) = own.split_once(" template=").unwrap();
    let forged = format!(" template={rest}\n{}", line("h_exfiltrate"));
    drop(probe);

    // As reviewed: no such tool, but a resource whose name holds a line feed and that line.
    let forge = |mode: &str| hostile(mode).env("FORGED", &forged);
    let reviewed = forge("forge").connect().await.unwrap();
    let pinned = dir.join("pinned.snapshot");
    let snapshot = written(reviewed.registry().unwrap(), &pinned).await;
    assert!(snapshot.contains("h_echo"), "{snapshot}");
    let path = pinned.to_str().unwrap();
    let checked = run(reviewed.registry().unwrap(), &["check", path]).await;
    assert_eq!(checked, ExitCode::SUCCESS, "as reviewed");
    drop(reviewed);

    // Later the upstream lists the tool its resource's name spoke for: not in the snapshot,
    // so it is refused, and its description never reaches the client.
    let pin = Pin::from_path(&pinned).unwrap();
    let later = forge("forge+tool").pin(pin).connect().await.unwrap();
    let client = Client::connect(Server::with_registry(later.registry().unwrap()))
        .await
        .unwrap();
    let tools = client.tools().await.unwrap();
    let exfiltrate = tools.iter().find(|t| t.name == "h_exfiltrate").unwrap();
    let description = exfiltrate.description.as_deref().unwrap_or_default();
    assert!(!description.contains("id_rsa"), "{description}");
    let refused = client
        .call("h_exfiltrate", json!({"secret": "hunter2"}))
        .await
        .unwrap_err();
    assert!(
        refused.message().contains("not in the snapshot"),
        "{refused:?}"
    );
    // The reviewed tool still answers; the resource whose name holds a line feed is not
    // served (named in a warning), and nothing else was stopped for it.
    let echoed = client.call("h_echo", json!({"text": "hi"})).await.unwrap();
    assert!(echoed.text().contains("hi"), "{}", echoed.text());
    let served = later.registry().unwrap();
    assert!(served.resources().is_empty(), "{:?}", served.resources());
    assert!(!snapshot.contains("exfiltrate"), "{snapshot}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_resource_another_upstreams_template_matches_is_a_startup_error() {
    let notes = notes().connect().await.unwrap();
    let hostile = hostile("shadow").connect().await.unwrap();
    for merged in [
        notes.registry().unwrap().merge(hostile.registry().unwrap()),
        hostile.registry().unwrap().merge(notes.registry().unwrap()),
    ] {
        let said = merged.err().expect("a conflict").to_string();
        for named in [
            "'notes://1'",
            "'notes://{note_id}'",
            "of upstream 'notes'",
            "of upstream 'h'",
        ] {
            assert!(said.contains(named), "{named}: {said}");
        }
    }
}

#[tokio::test]
async fn a_resource_listed_later_at_a_uri_another_upstreams_template_matches_is_left_out() {
    let notes = notes().connect().await.unwrap();
    let hostile = hostile("later").connect().await.unwrap();
    let registry = notes
        .registry()
        .unwrap()
        .merge(hostile.registry().unwrap())
        .unwrap();
    let server = Server::with_registry(registry);
    hostile.follow(server.registry_handle());
    let client = Client::connect(server).await.unwrap();
    let before = client.read_resource("notes://1").await.unwrap();
    assert!(before.text().contains("Groceries"), "{}", before.text());

    // It now lists `notes://1` (and `hostile://flipped`), and says so.
    client
        .call("h_echo", json!({"text": "flip"}))
        .await
        .unwrap();
    let mut uris = Vec::new();
    for _ in 0..100 {
        uris = client
            .list_resources()
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.uri)
            .collect();
        if uris.iter().any(|uri| uri == "hostile://flipped") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        uris.iter().any(|uri| uri == "hostile://flipped"),
        "its new list is served within 5 s: {uris:?}"
    );
    assert!(!uris.iter().any(|uri| uri == "notes://1"), "{uris:?}");
    // A read of `notes://1` still reaches the notes upstream.
    let after = client.read_resource("notes://1").await.unwrap();
    assert!(after.text().contains("Groceries"), "{}", after.text());
    assert!(!after.text().contains("hostile"), "{}", after.text());
}

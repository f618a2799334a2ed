//! An upstream mounted under its prefix, over stdio or HTTP: its tools with the hints it
//! states, the gateway's policy and confirmation over them, its calls counted by upstream.

use serde_json::json;
use toolsmith::testing::{CallError, Client};
use toolsmith::{Hints, Server, server::Confirm, server::Policy};
use toolsmith_gateway::{Error, Upstream};

use super::{notes, served_over_http};

#[tokio::test]
async fn an_upstreams_tools_are_served_under_its_prefix_with_its_hints() {
    let mounted = notes().connect().await.unwrap();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap();
    let tools = client.tools().await.unwrap();
    let hints = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name);
        tool.unwrap_or_else(|| panic!("no {name} in {tools:?}"))
            .hints
    };
    assert!(
        tools.iter().all(|t| t.name.starts_with("notes_")),
        "{tools:?}"
    );
    assert_eq!(hints("notes_search_notes"), Hints::READ_ONLY.closed_world());
    assert_eq!(
        hints("notes_delete_note"),
        Hints::DESTRUCTIVE.idempotent().closed_world()
    );
    assert_eq!(hints("notes_create_note"), Hints::ADDITIVE.closed_world());
    let create = tools
        .iter()
        .find(|t| t.name == "notes_create_note")
        .unwrap();
    assert_eq!(create.title.as_deref(), Some("Create note"));

    // A call goes to the upstream, and its result comes back as the upstream gave it.
    let created = client
        .call(
            "notes_create_note",
            json!({"title": "Through the gateway", "body": "hello"}),
        )
        .await
        .unwrap();
    let note = created.structured().expect("structured content").clone();
    assert_eq!(note["title"], "Through the gateway", "{note}");
    let link = created
        .content()
        .iter()
        .find_map(|block| block.as_resource_link())
        .expect("the upstream's resource link");
    assert_eq!(link.uri, format!("notes://{}", note["id"]));
    let found = client
        .call("notes_search_notes", json!({"query": "gateway"}))
        .await
        .unwrap();
    assert!(
        found.text().contains("Through the gateway"),
        "{}",
        found.text()
    );
    // The upstream's own error result: a tool error with its text.
    let missing = client
        .call("notes_get_note", json!({"note_id": 999}))
        .await
        .unwrap_err();
    assert!(
        matches!(&missing, CallError::Tool { .. }) && missing.message().contains("999"),
        "{missing:?}"
    );
}

#[tokio::test]
async fn the_gateways_policy_and_confirmation_govern_an_upstream() {
    let mounted = notes().connect().await.unwrap();
    // Read-only: the writing tools are neither offered nor run.
    let server =
        Server::with_registry(mounted.registry().unwrap()).policy(Policy::new().read_only(true));
    let client = Client::connect(server).await.unwrap();
    let names: Vec<String> = client
        .tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(
        names.contains(&"notes_search_notes".to_owned()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"notes_create_note".to_owned()),
        "{names:?}"
    );
    let refused = client
        .call("notes_create_note", json!({"title": "no", "body": "no"}))
        .await
        .unwrap_err();
    assert!(refused.message().contains("read-only"), "{refused:?}");

    // Confirmation of destructive calls: the upstream confirms its deletes itself, so it is
    // the one asked (the gateway does not ask again); declined, the note is still there.
    let server = Server::with_registry(mounted.registry().unwrap()).confirm(Confirm::Destructive);
    let client = Client::connect(server).await.unwrap();
    let kept = client
        .call(
            "notes_create_note",
            json!({"title": "Keep me", "body": "."}),
        )
        .await
        .unwrap();
    let id = kept.structured().unwrap()["id"].clone();
    let declined = client
        .call("notes_delete_note", json!({"note_id": id}))
        .await
        .unwrap_err();
    assert!(
        matches!(&declined, CallError::Tool { .. }),
        "declined: {declined:?}"
    );
    let still = client
        .call("notes_get_note", json!({"note_id": id}))
        .await
        .unwrap();
    assert_eq!(still.structured().unwrap()["title"], "Keep me");
}

#[tokio::test]
async fn an_upstream_over_streamable_http_is_mounted_alike() {
    let notes = toolsmith_tests::example_binary("notes");
    let served = toolsmith_tests::http::HttpServer::start(notes.to_str().unwrap(), &[]).await;
    let url = format!("http://{}{}", served.addr, served.path);
    let mounted = Upstream::http("remote", &url)
        .header("X-Upstream-Key", "only-for-this-upstream")
        .connect()
        .await
        .unwrap();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap();
    let tools = client.tools().await.unwrap();
    let search = tools
        .iter()
        .find(|t| t.name == "remote_search_notes")
        .unwrap();
    assert_eq!(search.hints, Hints::READ_ONLY.closed_world());
    let found = client
        .call("remote_search_notes", json!({"query": "standup"}))
        .await
        .unwrap();
    assert!(found.text().contains("Standup notes"), "{}", found.text());
    // A header that is not one is refused, naming the upstream.
    let err = Upstream::http("remote", &url)
        .header("Bad Header", "x")
        .connect()
        .await
        .unwrap_err();
    assert!(err.to_string().contains("upstream 'remote'"), "{err}");
    // A credential named in the environment that is not there is refused, naming it.
    let err = Upstream::http("remote", &url)
        .header("Authorization", "Bearer ${TOOLSMITH_TEST_UNSET_TOKEN}")
        .connect()
        .await
        .unwrap_err();
    let said = err.to_string();
    assert!(
        said.contains("Authorization") && said.contains("TOOLSMITH_TEST_UNSET_TOKEN is not set"),
        "{said}"
    );
    let err = Upstream::stdio("fx", env!("CARGO_BIN_EXE_fixture_server"))
        .env("API_KEY", "${file:/no/such/secret}")
        .connect()
        .await
        .unwrap_err();
    assert!(err.to_string().contains("/no/such/secret"), "{err}");
}

#[tokio::test]
async fn an_upstream_that_cannot_start_is_an_error_naming_it() {
    let err = Upstream::stdio("ghost", "/no/such/mcp-server")
        .connect()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Start { .. }), "{err:?}");
    let said = err.to_string();
    assert!(
        said.contains("cannot start upstream 'ghost'") && said.contains("/no/such/mcp-server"),
        "{said}"
    );
}

#[tokio::test]
async fn a_gateways_calls_are_counted_and_labelled_with_their_upstream() {
    let fixture = env!("CARGO_BIN_EXE_fixture_server");
    let fx = Upstream::stdio("fx", fixture)
        .env("TOOLSMITH_LOG", "off")
        .connect()
        .await
        .unwrap();
    let server = Server::with_registry(fx.registry().unwrap());
    let addr = served_over_http(server).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "fx_add", "arguments": {"a": 1, "b": 2}}});
    let version = ("MCP-Protocol-Version", "2025-11-25");
    let answer = toolsmith_tests::http::post(&addr, "/mcp", &call, &[version]).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let scraped = toolsmith_tests::http::request(&addr, "GET", "/metrics", &[], "").await;
    let series = r#"toolsmith_tool_calls_total{tool="fx_add",outcome="ok",category="fx"} 1"#;
    assert!(scraped.body.contains(series), "{}", scraped.body);
}

/// `include` and `exclude` choose the tools served, by the names the upstream lists them by:
/// the others are not listed and a call of one is an unknown tool.
#[tokio::test]
async fn only_the_chosen_tools_are_served_and_callable() {
    let served = |mounted: &toolsmith_gateway::Mounted| -> Vec<String> {
        let registry = mounted.registry().unwrap();
        let mut names: Vec<String> = registry
            .tools()
            .iter()
            .map(|t| t.name().to_owned())
            .collect();
        names.sort();
        names
    };
    let reading = notes()
        .include(["search_*", "get_note"])
        .connect()
        .await
        .unwrap();
    assert_eq!(served(&reading), ["notes_get_note", "notes_search_notes"]);
    let all = served(&notes().connect().await.unwrap());
    let but_delete = served(&notes().exclude(["delete_*"]).connect().await.unwrap());
    assert!(all.contains(&"notes_delete_note".to_owned()), "{all:?}");
    assert_eq!(but_delete.len(), all.len() - 1, "{but_delete:?}");
    assert!(!but_delete.contains(&"notes_delete_note".to_owned()));
    // Excluded wins over included.
    let none = notes()
        .include(["*_note"])
        .exclude(["*"])
        .connect()
        .await
        .unwrap();
    assert!(served(&none).is_empty());

    let client = Client::connect(Server::with_registry(reading.registry().unwrap()))
        .await
        .unwrap();
    let refused = client
        .call("notes_delete_note", json!({"note_id": 1}))
        .await
        .unwrap_err();
    assert!(matches!(refused, CallError::Protocol { .. }), "{refused:?}");

    // A pattern that is not a glob names itself.
    let err = notes()
        .exclude(["delete_[*"])
        .connect()
        .await
        .err()
        .unwrap();
    assert!(matches!(err, Error::Config { .. }), "{err}");
    assert!(
        err.to_string().contains("`exclude` pattern \"delete_[*\""),
        "{err}"
    );
}

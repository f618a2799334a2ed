//! An upstream that stops, and one whose lists change while the gateway serves.

use serde_json::json;
use toolsmith::Server;
use toolsmith::prompt::PromptDescription;
use toolsmith::resource::ResourceDescription;
use toolsmith::testing::Client;
use toolsmith_gateway::Upstream;

use super::{notes, served_over_http};

/// The pid of the process whose environment holds `marker` (an upstream started with it).
fn pid_with(marker: &str) -> Option<i32> {
    let needle = format!("GATEWAY_MARKER={marker}");
    std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            environ
                .split(|&b| b == 0)
                .any(|var| var == needle.as_bytes())
                .then_some(pid)
        })
        .next()
}

#[tokio::test]
async fn an_upstream_killed_mid_call_is_named_restarted_and_the_others_keep_answering() {
    let marker = format!("{}-{:?}", std::process::id(), std::time::Instant::now());
    // `slow` is read-only and idempotent: a call the loss cuts off is sent once more.
    // `slow_sync`, made not idempotent here, is never sent twice.
    let overrides =
        toolsmith_gateway::Overrides::from_toml("[tools.fx_slow_sync]\nidempotent = false\n")
            .unwrap();
    let fixture = env!("CARGO_BIN_EXE_fixture_server");
    let fx = Upstream::stdio("fx", fixture)
        .env("TOOLSMITH_LOG", "off")
        .env("GATEWAY_MARKER", &marker)
        .overrides(overrides)
        .connect()
        .await
        .unwrap();
    let notes = notes().connect().await.unwrap();
    let registry = fx
        .registry()
        .unwrap()
        .merge(notes.registry().unwrap())
        .unwrap();
    let server = Server::with_registry(registry);
    fx.follow(server.registry_handle());
    let client = Client::connect(server).await.unwrap();
    let first = pid_with(&marker).expect("the upstream runs");

    let kill = |pid: i32| {
        // SAFETY: kill(2) with a pid this test started.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    };
    let after = |ms: u64| tokio::time::sleep(std::time::Duration::from_millis(ms));

    // Not idempotent: cut off, it is an error naming the upstream, never sent again.
    let (cut, ()) = tokio::join!(client.call("fx_slow_sync", json!({"ms": 5000})), async {
        after(400).await;
        kill(first);
    });
    let cut = cut.unwrap_err();
    assert!(
        cut.message()
            .contains("upstream 'fx' did not answer the call"),
        "{cut:?}"
    );
    // While it restarts, or once it is back: its tools answer again, the other upstream
    // never stopped answering.
    let found = client
        .call("notes_search_notes", json!({"query": "standup"}))
        .await
        .unwrap();
    assert!(found.text().contains("Standup notes"), "{}", found.text());
    let mut restarted = None;
    for _ in 0..100 {
        match client.call("fx_add", json!({"a": 2, "b": 3})).await {
            Ok(sum) => {
                restarted = Some(sum.text());
                break;
            }
            Err(err) => {
                assert!(
                    err.message().contains("upstream 'fx' is not running")
                        && err.message().contains("restarting it"),
                    "{err:?}"
                );
                after(100).await;
            }
        }
    }
    assert_eq!(restarted.as_deref(), Some("5"), "restarted within 10 s");
    let second = pid_with(&marker).expect("a new process");
    assert_ne!(first, second);

    // Read-only and idempotent: the call the loss cut off is answered by the restarted one.
    let (answered, ()) = tokio::join!(client.call("fx_slow", json!({"ms": 1000})), async {
        after(400).await;
        kill(second);
    });
    let answered = answered.unwrap();
    assert_eq!(answered.text(), "1000");
    assert_ne!(
        pid_with(&marker),
        Some(second),
        "answered by a third process"
    );
}

#[tokio::test]
async fn an_upstreams_new_tools_are_served_once_it_says_its_list_changed() {
    // The plugins example adds `reverse_text` while it serves, and says so.
    let plugins = toolsmith_tests::example_binary("plugins");
    let mounted = Upstream::stdio("plugins", plugins.display().to_string())
        .env("TOOLSMITH_LOG", "off")
        .connect()
        .await
        .unwrap();
    let server = Server::with_registry(mounted.registry().unwrap());
    mounted.follow(server.registry_handle());
    let client = Client::connect(server).await.unwrap();
    let names = |tools: Vec<toolsmith::testing::ListedTool>| -> Vec<String> {
        tools.into_iter().map(|t| t.name).collect()
    };
    let before = names(client.tools().await.unwrap());
    assert!(
        !before.contains(&"plugins_reverse_text".to_owned()),
        "{before:?}"
    );
    let loaded = client.call("plugins_load_plugin", json!({})).await.unwrap();
    assert_eq!(loaded.text(), "loaded reverse_text");
    let mut served = false;
    for _ in 0..100 {
        if names(client.tools().await.unwrap()).contains(&"plugins_reverse_text".to_owned()) {
            served = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(served, "the new tool was not served within 5 s");
    assert!(client.tool_list_changes() >= 1, "the client heard of it");
    let reversed = client
        .call("plugins_reverse_text", json!({"text": "gateway"}))
        .await
        .unwrap();
    assert_eq!(reversed.text(), "yawetag");
}

/// A resource at `uri` whose text is its URI.
struct Page(&'static str);

impl toolsmith::resource::Resource for Page {
    fn describe(&self) -> ResourceDescription {
        ResourceDescription::new(self.0, self.0.trim_end_matches("://today"))
    }
    fn read(
        &self,
        uri: &str,
        _: toolsmith::rmcp::model::JsonObject,
        _: &toolsmith::CallContext,
    ) -> toolsmith::resource::ResourceFuture {
        let contents = toolsmith::rmcp::model::ResourceContents::text(uri, uri);
        Box::pin(async move { Ok(Some(vec![contents])) })
    }
}

/// A prompt that says hello.
struct Greet;

impl toolsmith::prompt::Prompt for Greet {
    fn describe(&self) -> PromptDescription {
        PromptDescription::new("greet")
    }
    fn get(
        &self,
        _: toolsmith::rmcp::model::JsonObject,
        _: &toolsmith::CallContext,
    ) -> toolsmith::prompt::PromptFuture {
        Box::pin(async { Ok(vec![toolsmith::prompt::PromptMessage::user("hello")]) })
    }
}

#[tokio::test]
async fn an_upstreams_new_resources_and_prompts_are_served_once_it_says_so() {
    // The upstream: a toolsmith server over HTTP that adds a resource and a prompt while
    // it serves (and says so: `notifications/resources/list_changed`, `prompts/...`).
    let upstream = Server::with_registry(
        toolsmith::Registry::new()
            .with_resource(Page("motd://today"))
            .unwrap(),
    );
    let handle = upstream.registry_handle();
    let addr = served_over_http(upstream).await;
    // Stateless over HTTP: the upstream's notifications come on a 2026-07-28 listen stream.
    let mounted = Upstream::http("up", format!("http://{addr}/mcp"))
        .discover(true)
        .connect()
        .await
        .unwrap();
    let server = Server::with_registry(mounted.registry().unwrap());
    mounted.follow(server.registry_handle());
    let client = Client::connect(server).await.unwrap();
    let uris = |listed: Vec<toolsmith::rmcp::model::Resource>| -> Vec<String> {
        listed.into_iter().map(|r| r.uri).collect()
    };
    assert_eq!(
        uris(client.list_resources().await.unwrap()),
        ["motd://today"]
    );
    assert!(client.list_prompts().await.unwrap().is_empty());

    handle.add_resource(Page("news://today")).unwrap();
    handle.add_prompt(Greet).unwrap();
    let mut served = (Vec::new(), Vec::new());
    for _ in 0..100 {
        let resources = uris(client.list_resources().await.unwrap());
        let prompts: Vec<String> = client
            .list_prompts()
            .await
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        served = (resources, prompts);
        if served.0.len() == 2 && served.1.len() == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(served.0, ["motd://today", "news://today"], "within 5 s");
    assert_eq!(served.1, ["up_greet"], "within 5 s");
    let news = client.read_resource("news://today").await.unwrap();
    assert_eq!(news.text(), "news://today");
    let greeting = client.get_prompt("up_greet", json!({})).await.unwrap();
    assert_eq!(greeting.text(), "hello");

    // And one the upstream takes away is no longer served.
    assert!(handle.remove_resource("motd://today"));
    let mut left = Vec::new();
    for _ in 0..100 {
        left = uris(client.list_resources().await.unwrap());
        if left.len() == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(left, ["news://today"]);
}

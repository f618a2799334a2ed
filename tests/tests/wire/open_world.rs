//! `serve --deny-open-world` (`TOOLSMITH_DENY_OPEN_WORLD`): the notes server offers no tool
//! that reaches outside it (`import_url`), over stdio and HTTP, and refuses a call to one;
//! `tools --open-world` lists just those.

use serde_json::{Value, json};
use toolsmith_tests::example_binary;
use toolsmith_tests::http::HttpServer;
use toolsmith_tests::raw::{Raw, call};

fn names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

fn assert_refused(answer: &Value) {
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("--deny-open-world"), "{text}");
}

#[tokio::test]
async fn deny_open_world_hides_and_refuses_import_url_over_stdio_and_http() {
    let notes = example_binary("notes");
    let notes = notes.to_str().unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let import = call(2, "import_url", json!({"url": "http://127.0.0.1:9/"}));

    // Offered by default.
    let mut open = Raw::program(notes, &[]);
    open.init().await;
    assert!(names(&open.ask(&list).await).contains(&"import_url".to_owned()));

    // Over stdio, by flag.
    let mut command = tokio::process::Command::new(notes);
    command.args(["serve", "--deny-open-world"]);
    let mut closed = Raw::spawn(command, std::process::Stdio::null());
    closed.init().await;
    let offered = names(&closed.ask(&list).await);
    assert!(!offered.contains(&"import_url".to_owned()), "{offered:?}");
    assert!(offered.contains(&"search_notes".to_owned()), "{offered:?}");
    assert_refused(&closed.ask(&import).await);

    // Over HTTP, by environment variable.
    let server = HttpServer::start_with(notes, &[], &[("TOOLSMITH_DENY_OPEN_WORLD", "1")]).await;
    let version = [("MCP-Protocol-Version", "2025-11-25")];
    let listed = server.post(&list, &version).await.messages();
    assert!(!names(&listed[0]).contains(&"import_url".to_owned()));
    let refused = server.post(&import, &version).await.messages();
    assert_refused(&refused[0]);
}

#[tokio::test]
async fn tools_open_world_lists_the_tools_that_reach_out() {
    let notes = example_binary("notes");
    let output = tokio::process::Command::new(&notes)
        .args(["tools", "--open-world"])
        .output()
        .await
        .unwrap();
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{table}");
    assert!(table.contains("import_url"), "{table}");
    assert!(!table.contains("search_notes"), "{table}");
}

//! Search mode (`Server::tool_search`): two tools listed, `search_tools` finding what the
//! caller may call (words ranked, filters, pages), and every policy applied to the tool a
//! `call_tool` names: the policy, confirmation, the rate limit by its kind, its arguments
//! checked; and `call_tool`'s hints those of the most cautious tool it reaches.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolsmith::layer::RateLimit;
use toolsmith::server::Policy;
use toolsmith::testing::{Answer, CallError, Client};
use toolsmith::{Registry, Server, error::ErrorKind, tool};

/// Find books whose title holds the text.
#[tool(read_only, closed_world, title = "Find books", tags = ["books"])]
fn find_books(text: String) -> String {
    format!("found {text}")
}

/// Add a book to the shelf.
#[tool(destructive = false, closed_world, tags = ["books"])]
fn add_book(title: String) -> String {
    format!("added {title}")
}

/// Burn a book: it is gone for good.
#[tool(destructive, idempotent, closed_world, confirm)]
fn burn_book(title: String) -> String {
    format!("burned {title}")
}

fn server() -> Server {
    toolsmith_tests::server_of(module_path!()).tool_search(true)
}

async fn search(client: &Client, args: Value) -> Value {
    let found = client.call("search_tools", args).await.unwrap();
    found.structured().unwrap().clone()
}

fn names(found: &Value) -> Vec<&str> {
    found["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

fn hints(tool: &toolsmith::rmcp::model::Tool) -> (bool, bool, bool, bool) {
    let a = tool.annotations.as_ref().unwrap();
    (
        a.read_only_hint.unwrap(),
        a.destructive_hint.unwrap(),
        a.idempotent_hint.unwrap(),
        a.open_world_hint.unwrap(),
    )
}

#[tokio::test]
async fn two_tools_are_listed_and_call_tool_is_as_cautious_as_what_it_reaches() {
    let client = Client::connect(server()).await.unwrap();
    let listed = client.list_tools().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["search_tools", "call_tool"]);
    assert_eq!(hints(&listed[0]), (true, false, true, false));
    // burn_book deletes, add_book is not idempotent, nothing reaches out.
    assert_eq!(hints(&listed[1]), (false, true, false, false));

    let reading = toolsmith_tests::server_of(module_path!())
        .tool_search(true)
        .policy(Policy::new().read_only(true));
    let client = Client::connect(reading).await.unwrap();
    let listed = client.list_tools().await.unwrap();
    assert_eq!(hints(&listed[1]), (true, false, true, false));
}

#[tokio::test]
async fn search_tools_ranks_by_words_filters_and_pages() {
    let client = Client::connect(server()).await.unwrap();
    let found = search(&client, json!({"query": "burn a book"})).await;
    // Every tool names a book; only burn_book burns.
    assert_eq!(names(&found)[0], "burn_book");
    assert_eq!(found["total"], 3);
    let tool = &found["tools"][0];
    assert_eq!(tool["inputSchema"]["required"][0], "title");
    assert_eq!(tool["annotations"]["destructiveHint"], true);

    let reading = search(&client, json!({"read_only": true})).await;
    assert_eq!(names(&reading), ["find_books"]);
    let tagged = search(&client, json!({"tag": "books", "destructive": false})).await;
    assert_eq!(names(&tagged), ["add_book", "find_books"]);
    assert_eq!(search(&client, json!({"query": "sail"})).await["total"], 0);

    let first = search(&client, json!({"page_size": 2})).await;
    assert_eq!(names(&first), ["add_book", "burn_book"]);
    let cursor = first["nextCursor"].as_str().unwrap();
    let next = search(&client, json!({"page_size": 2, "cursor": cursor})).await;
    assert_eq!(names(&next), ["find_books"]);
    assert!(next.get("nextCursor").is_none());
    // The same search with its arguments in another order: the cursor holds.
    let by_tag = search(&client, json!({"tag": "books", "page_size": 1})).await;
    let cursor = by_tag["nextCursor"].as_str().unwrap();
    let again = json!({"page_size": 1, "cursor": cursor, "tag": "books"});
    assert_eq!(names(&search(&client, again).await), ["find_books"]);
    let cursor = first["nextCursor"].as_str().unwrap();
    // A cursor of another search is refused.
    let other = json!({"page_size": 2, "query": "book", "cursor": cursor});
    let refused = client.call("search_tools", other).await.unwrap_err();
    assert!(refused.message().contains("invalid cursor"), "{refused}");
    let too_many = json!({"page_size": 500});
    let refused = client.call("search_tools", too_many).await.unwrap_err();
    assert!(refused.message().contains("page_size"), "{refused}");
    // Its arguments are checked: an unknown one, or one of the wrong type, is named.
    let unknown = client
        .call("search_tools", json!({"querry": "x"}))
        .await
        .unwrap_err();
    assert!(
        unknown.message().contains("no argument querry"),
        "{unknown}"
    );
    let wrong = client
        .call("search_tools", json!({"read_only": "yes"}))
        .await
        .unwrap_err();
    assert!(wrong.message().contains("true or false"), "{wrong}");
}

#[tokio::test]
async fn call_tool_runs_the_tool_it_names_with_its_confirmation() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = Client::connect(server())
        .await
        .unwrap()
        .on_confirm(move |question| {
            seen.lock().unwrap().push(question.message.clone());
            Answer::Accept
        });
    let called = client
        .call(
            "call_tool",
            json!({"name": "find_books", "arguments": {"text": "dune"}}),
        )
        .await
        .unwrap();
    assert_eq!(called.text(), "found dune");
    assert_eq!(called.tool(), "call_tool");
    let burned = client
        .call(
            "call_tool",
            json!({"name": "burn_book", "arguments": {"title": "dune"}}),
        )
        .await
        .unwrap();
    assert_eq!(burned.text(), "burned dune");
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "asked once, for burn_book: {asked:?}");
    assert!(
        asked[0].contains("burn_book") || asked[0].contains("Burn"),
        "{asked:?}"
    );

    // Declined: refused, and it did not burn.
    let client = Client::connect(server())
        .await
        .unwrap()
        .on_confirm(|_| Answer::Decline);
    let refused = client
        .call(
            "call_tool",
            json!({"name": "burn_book", "arguments": {"title": "dune"}}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            refused,
            CallError::Tool {
                kind: ErrorKind::Refused,
                ..
            }
        ),
        "{refused}"
    );
    // Its arguments are checked against its own schema.
    let wrong = client
        .call(
            "call_tool",
            json!({"name": "find_books", "arguments": {"title": "x"}}),
        )
        .await
        .unwrap_err();
    assert!(wrong.message().contains("text"), "{wrong}");
    // A call_tool without a name is answered by call_tool's schema.
    let nameless = client
        .call("call_tool", json!({"arguments": {}}))
        .await
        .unwrap_err();
    assert!(nameless.message().contains("name"), "{nameless}");
}

#[tokio::test]
async fn the_policy_and_the_rate_limit_see_the_tool_called() {
    let reading = toolsmith_tests::server_of(module_path!())
        .tool_search(true)
        .policy(Policy::new().read_only(true));
    let client = Client::connect(reading).await.unwrap();
    assert_eq!(names(&search(&client, json!({})).await), ["find_books"]);
    let refused = client
        .call(
            "call_tool",
            json!({"name": "burn_book", "arguments": {"title": "dune"}}),
        )
        .await
        .unwrap_err();
    assert!(refused.message().contains("read-only"), "{refused}");

    let limited = server().layer(RateLimit::new("write=1/m".parse().unwrap()));
    let client = Client::connect(limited).await.unwrap();
    let add = json!({"name": "add_book", "arguments": {"title": "a"}});
    assert!(client.call("call_tool", add.clone()).await.is_ok());
    let refused = client.call("call_tool", add).await.unwrap_err();
    assert!(refused.message().contains("'add_book'"), "{refused}");
    // Reads have no limit here: searching and finding go on.
    for _ in 0..3 {
        search(&client, json!({"query": "book"})).await;
        let find = json!({"name": "find_books", "arguments": {"text": "x"}});
        assert!(client.call("call_tool", find).await.is_ok());
    }
}

/// A tool made at run time, named as search mode's own.
struct Impostor;

impl toolsmith::Tool for Impostor {
    fn describe(&self) -> toolsmith::ToolDescription {
        let schema = json!({"type": "object"}).as_object().cloned().unwrap();
        toolsmith::ToolDescription::new(
            "search_tools",
            "Search something else.",
            schema,
            toolsmith::Hints::READ_ONLY,
        )
    }
    fn call(
        &self,
        _: toolsmith::JsonObject,
        _: &toolsmith::CallContext,
    ) -> toolsmith::tool::ToolFuture {
        Box::pin(async { Ok(toolsmith::tool::ToolOutput::new().text("else")) })
    }
}

#[tokio::test]
async fn a_tool_named_as_search_modes_own_stops_the_server() {
    let registry = Registry::new().with_tool(Impostor).unwrap();
    let (_client, server_end) = tokio::io::duplex(1024);
    let (read, write) = tokio::io::split(server_end);
    let err = Server::with_registry(registry)
        .tool_search(true)
        .serve_io(read, write)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("search_tools"), "{err}");
    assert!(err.to_string().contains("rename it"), "{err}");
}

#[tokio::test]
async fn approval_rules_decide_by_the_tool_called() {
    let rules = toolsmith::approve::Rules::from_toml(
        "[[rule]]\ntools = [\"burn_*\"]\ndecision = \"deny\"\nreason = \"no burning here\"\n",
    )
    .unwrap();
    let server = server().approver(rules);
    let asked = Arc::new(Mutex::new(0));
    let seen = asked.clone();
    let client = Client::connect(server).await.unwrap().on_confirm(move |_| {
        *seen.lock().unwrap() += 1;
        Answer::Accept
    });
    let refused = client
        .call(
            "call_tool",
            json!({"name": "burn_book", "arguments": {"title": "dune"}}),
        )
        .await
        .unwrap_err();
    assert!(refused.message().contains("no burning here"), "{refused}");
    assert_eq!(
        *asked.lock().unwrap(),
        0,
        "the rule decided: the user was not asked"
    );
}

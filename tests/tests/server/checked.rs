//! A tool made by hand ([`toolsmith::Tool`]) has its arguments checked against its input
//! schema before anything else runs for a call, in a `#[tool]`'s words: no question is asked
//! about a call that is refused for its arguments, and the tool never sees it; over stdio and
//! over HTTP alike. A tool whose hints say read-only and destructive at once is not added.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolsmith::ToolDescription;
use toolsmith::rmcp::model::JsonObject;
use toolsmith::testing::{Answer, CallError, Client};
use toolsmith::{
    CallContext, Hints, Registry, Server, Tool, error::ErrorKind, server::Confirm, server::Policy,
    tool::ToolFuture, tool::ToolOutput,
};

use toolsmith_tests::asking::modern_call;

use super::dynamic::serve_http;

/// Withdraw a book: the `#[tool]` twin of [`Withdraw`], whose words an argument error uses.
#[toolsmith::tool(destructive, idempotent, closed_world)]
fn withdraw_typed(book_id: u64) -> String {
    format!("withdrew {book_id}")
}

/// Withdraws a book from the catalogue: destructive, taking what `withdraw_typed` takes.
struct Withdraw {
    schema: JsonObject,
    calls: Arc<AtomicUsize>,
}

impl Tool for Withdraw {
    fn describe(&self) -> ToolDescription {
        let schema = self.schema.clone();
        ToolDescription::new(
            "withdraw_book",
            "Withdraw a book from the catalogue.",
            schema,
            Hints::DESTRUCTIVE.idempotent().closed_world(),
        )
    }
    fn call(&self, arguments: JsonObject, _: &CallContext) -> ToolFuture {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            let id = arguments.get("book_id").cloned().unwrap_or_default();
            Ok(ToolOutput::new().text(format!("withdrew {id}")))
        })
    }
}

/// The `#[tool]` of this module, and `withdraw_book` with the same input schema, counting
/// the calls it sees.
fn registry(calls: &Arc<AtomicUsize>) -> Registry {
    let typed = Registry::from_module(module_path!()).unwrap();
    let schema = typed.get("withdraw_typed").unwrap().input_schema().clone();
    let withdraw = Withdraw {
        schema,
        calls: calls.clone(),
    };
    typed.with_tool(withdraw).unwrap()
}

/// The message of a call refused for its arguments.
fn invalid(err: CallError) -> String {
    match &err {
        CallError::Tool {
            kind: ErrorKind::InvalidArguments,
            ..
        } => err.message(),
        other => panic!("not refused for its arguments: {other:?}"),
    }
}

#[tokio::test]
async fn wrong_arguments_are_refused_before_the_question_in_a_tool_macros_words() {
    let calls = Arc::new(AtomicUsize::new(0));
    let server = Server::with_registry(registry(&calls)).confirm(Confirm::Destructive);
    let asked = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = asked.clone();
    let client = Client::connect(server).await.unwrap().on_confirm(move |q| {
        seen.lock().unwrap().push(q.message.clone());
        Answer::Accept
    });
    let refused = |name: &'static str, args: Value| {
        let client = &client;
        async move { invalid(client.call(name, args).await.unwrap_err()) }
    };
    // Missing and unknown: word for word what the `#[tool]` says.
    for args in [json!({}), json!({"book_id": 1, "force": true})] {
        let typed = refused("withdraw_typed", args.clone()).await;
        let made = refused("withdraw_book", args).await;
        assert_eq!(made, typed.replace("withdraw_typed", "withdraw_book"));
    }
    assert_eq!(
        refused("withdraw_book", json!({})).await,
        "Invalid arguments for tool 'withdraw_book': missing required argument `book_id` (expected an integer)"
    );
    assert_eq!(
        refused("withdraw_book", json!({"book_id": 1, "force": true})).await,
        "Invalid arguments for tool 'withdraw_book': unknown argument `force` (this tool takes `book_id`)"
    );
    // A wrong type, null, an array, a negative number: the argument and what it expects.
    for (given, said) in [
        (json!("abc"), "got \"abc\""),
        (json!(null), "got null"),
        (json!([1, 2]), "got [1,2]"),
        (json!(-1), "-1 is less than the minimum of 0"),
    ] {
        let message = refused("withdraw_book", json!({ "book_id": given })).await;
        let expected = format!(
            "Invalid arguments for tool 'withdraw_book': argument `book_id` is invalid (expected an integer): {said}"
        );
        assert_eq!(message, expected);
    }
    assert!(asked.lock().unwrap().is_empty(), "{asked:?}");
    assert_eq!(calls.load(Ordering::SeqCst), 0, "the tool saw no call");

    // Arguments that match (`1.0` is an integer): asked, then run.
    let ran = client
        .call("withdraw_book", json!({"book_id": 1.0}))
        .await
        .unwrap();
    assert_eq!(ran.text(), "withdrew 1.0");
    assert_eq!(asked.lock().unwrap().len(), 1, "{asked:?}");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn over_http_wrong_arguments_are_refused_and_nothing_is_asked() {
    let calls = Arc::new(AtomicUsize::new(0));
    let server = Server::with_registry(registry(&calls)).confirm(Confirm::Destructive);
    let addr = serve_http(server).await;
    let call = |id: u64, arguments: Value| {
        // From a client that can ask its user.
        let body = modern_call(id, "withdraw_book", arguments, None);
        let addr = addr.clone();
        async move {
            let headers = [
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "withdraw_book"),
            ];
            let response = toolsmith_tests::http::post(&addr, "/mcp", &body, &headers).await;
            response.messages().pop().expect("one answer")
        }
    };
    let refused = call(1, json!({"book_id": "abc"})).await;
    let result = &refused["result"];
    assert_eq!(result["isError"], true, "{refused}");
    assert_eq!(
        result["content"][0]["text"],
        "Invalid arguments for tool 'withdraw_book': argument `book_id` is invalid (expected an integer): got \"abc\""
    );
    assert_ne!(result["resultType"], "input_required", "{refused}");
    assert_eq!(calls.load(Ordering::SeqCst), 0, "the tool saw no call");
    // Arguments that match: the question comes (on 2026-07-28, as input required).
    let asking = call(2, json!({"book_id": 3})).await;
    assert_eq!(asking["result"]["resultType"], "input_required", "{asking}");
}

/// Purges records, yet says it is read-only.
struct Purge(Arc<AtomicUsize>);

impl Tool for Purge {
    fn describe(&self) -> ToolDescription {
        let schema = json!({"type": "object"}).as_object().cloned().unwrap();
        let hints = Hints {
            read_only: true,
            destructive: true,
            idempotent: true,
            open_world: false,
        };
        ToolDescription::new("purge_records", "Purge the records.", schema, hints)
    }
    fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
        let purged = self.0.clone();
        Box::pin(async move {
            purged.fetch_add(3, Ordering::SeqCst);
            Ok(ToolOutput::new().text("purged 3 records"))
        })
    }
}

#[tokio::test]
async fn a_tool_both_read_only_and_destructive_is_not_added() {
    let purged = Arc::new(AtomicUsize::new(0));
    let said = "tool 'purge_records': `destructive` contradicts `read_only`: a read-only tool \
                changes nothing, so it cannot be destructive; remove one";
    let Err(err) = Registry::new().with_tool(Purge(purged.clone())) else {
        panic!("added");
    };
    assert!(err.to_string().ends_with(said), "{err}");
    // Nor while serving: a read-only server offers nothing, and the call finds no tool.
    let server = Server::with_registry(Registry::new()).policy(Policy::new().read_only(true));
    let handle = server.registry_handle();
    let err = handle.add_tool(Purge(purged.clone())).unwrap_err();
    assert!(err.to_string().ends_with(said), "{err}");
    let client = Client::connect(server).await.unwrap();
    assert!(client.tools().await.unwrap().is_empty());
    let call = client.call("purge_records", json!({})).await.unwrap_err();
    assert!(
        matches!(call, CallError::Protocol { code: -32602, .. }),
        "{call:?}"
    );
    assert_eq!(purged.load(Ordering::SeqCst), 0, "nothing was purged");
}

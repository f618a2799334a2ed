//! The tutorial's contract, through a real rmcp client connected in-process, plus the
//! failure paths: masked errors, panics, bad arguments, unknown tools.

use serde_json::json;
use toolsmith::Server;
use toolsmith::{ToolError, tool};
use toolsmith_examples::store::Notes;
use toolsmith_tests::{call, connect, connect_accepting, text};

/// A server with the notes store and every tool of this test.
fn notes_server() -> Server {
    Server::with_registry(toolsmith_tests::with_examples(module_path!()))
        .state(Notes::seeded())
        .state(toolsmith_examples::fetch::Fetcher::default())
}

/// Fails with an internal error that carries a secret.
#[tool(read_only)]
fn leaky_lookup() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("db password is hunter2"))
}

/// Panics on zero, echoes otherwise.
///
/// # Arguments
/// * `n` - Any number; zero panics.
#[tool(read_only, closed_world)]
fn fragile(n: i64) -> i64 {
    assert!(n != 0, "zero is not allowed");
    n
}

/// Panics inside an async body.
#[tool(read_only, closed_world)]
async fn fragile_async() -> String {
    panic!("async boom")
}

/// Says why it refuses, on purpose, from a boxed error.
#[tool(read_only, closed_world)]
fn refuse() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Err(ToolError::new("Refused on purpose.").into())
}

#[tokio::test]
async fn annotations_follow_the_tutorial() {
    let client = connect(notes_server()).await;
    let tools = client.list_all_tools().await.unwrap();
    let hints = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        let a = tool.annotations.clone().unwrap();
        assert_eq!(a.title, tool.title, "title is in both places");
        (
            tool.title.clone().unwrap(),
            [
                a.read_only_hint.unwrap(),
                a.destructive_hint.unwrap(),
                a.idempotent_hint.unwrap(),
                a.open_world_hint.unwrap(),
            ],
        )
    };
    assert_eq!(
        hints("search_notes"),
        ("Search notes".into(), [true, false, true, false])
    );
    assert_eq!(
        hints("get_note"),
        ("Get note".into(), [true, false, true, false])
    );
    assert_eq!(
        hints("create_note"),
        ("Create note".into(), [false, false, false, false])
    );
    assert_eq!(
        hints("delete_note"),
        ("Delete note".into(), [false, true, true, false])
    );
    assert_eq!(
        hints("tag_chart"),
        ("Tag chart".into(), [true, false, true, false])
    );
    // The one tool that reaches outside the server.
    assert_eq!(
        hints("import_url"),
        ("Import URL".into(), [false, false, false, true])
    );
    let mut in_notes: Vec<&str> = tools
        .iter()
        .filter(|t| {
            t.meta
                .as_ref()
                .and_then(|m| m.get(toolsmith::tool::META_CATEGORY))
                .is_some_and(|c| c == "notes")
        })
        .map(|t| t.name.as_ref())
        .collect();
    in_notes.sort_unstable();
    assert_eq!(
        in_notes,
        [
            "create_note",
            "delete_note",
            "get_note",
            "import_notes",
            "import_url",
            "search_notes",
            "tag_chart"
        ]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn schemas_are_portable() {
    let client = connect(notes_server()).await;
    let tools = client.list_all_tools().await.unwrap();
    let create = tools.iter().find(|t| t.name == "create_note").unwrap();
    let input = serde_json::Value::Object((*create.input_schema).clone());
    assert_eq!(input["required"], json!(["title", "body"]));
    assert_eq!(input["additionalProperties"], false);
    assert_eq!(
        input["properties"]["tags"],
        json!({
            "type": "array", "items": {"type": "string"}, "description": "Optional labels: at most 20, each at most 64 characters."
        })
    );
    assert!(input.get("$schema").is_none());
    assert_eq!(
        create.description.as_deref(),
        Some(
            "Create a note and return it with its new id, and a link to it (`notes://{id}`). A note\n\
             carries at most 20 tags, each at most 64 characters long; more is an error, and nothing\n\
             is created."
        )
    );

    let search = tools.iter().find(|t| t.name == "search_notes").unwrap();
    let output = serde_json::Value::Object((**search.output_schema.as_ref().unwrap()).clone());
    assert_eq!(output["x-fastmcp-wrap-result"], true);
    assert_eq!(output["required"], json!(["result"]));
    assert_eq!(output["properties"]["result"]["type"], "array");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn search_get_and_errors() {
    let client = connect(notes_server()).await;
    let found = call(&client, "search_notes", json!({"query": "parser"}))
        .await
        .unwrap();
    let titles: Vec<String> = found.structured_content.clone().unwrap()["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["title"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(titles, ["Standup notes"]);
    let unwrapped: serde_json::Value = serde_json::from_str(text(&found)).unwrap();
    assert_eq!(
        unwrapped[0]["title"], "Standup notes",
        "text carries the unwrapped value"
    );

    let hit = call(&client, "get_note", json!({"note_id": 3}))
        .await
        .unwrap();
    assert_eq!(hit.structured_content.unwrap()["title"], "Book ideas");

    let miss = call(&client, "get_note", json!({"note_id": 99}))
        .await
        .unwrap();
    assert_eq!(miss.is_error, Some(true));
    assert_eq!(text(&miss), "No note with id 99.");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn create_then_delete_twice() {
    // delete_note asks the user first: this client's user says yes.
    let client = connect_accepting(notes_server()).await;
    let args = json!({"title": "Same", "body": "twice"});
    let first = call(&client, "create_note", args.clone()).await.unwrap();
    let second = call(&client, "create_note", args).await.unwrap();
    assert_eq!(first.structured_content.unwrap()["id"], 4);
    assert_eq!(second.structured_content.unwrap()["id"], 5);

    let deleted = call(&client, "delete_note", json!({"note_id": 1}))
        .await
        .unwrap();
    assert_eq!(
        deleted.structured_content.unwrap(),
        json!({"note_id": 1, "deleted": true})
    );
    let again = call(&client, "delete_note", json!({"note_id": 1}))
        .await
        .unwrap();
    assert_eq!(again.is_error, Some(false));
    assert_eq!(
        again.structured_content.unwrap(),
        json!({"note_id": 1, "deleted": false})
    );
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        ["Delete note 1?", "Delete note 1?"]
    );
    client.cancel().await.unwrap();
}

/// Decodes standard, padded base64, as MCP image blocks carry their bytes.
fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    assert_eq!(text.len() % 4, 0, "padded base64: {text}");
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    for quad in text.as_bytes().chunks(4) {
        let (mut bits, mut padding) = (0u32, 0);
        for &c in quad {
            bits <<= 6;
            if c == b'=' {
                padding += 1;
            } else {
                let value = ALPHABET.iter().position(|&a| a == c);
                bits |= value.unwrap_or_else(|| panic!("not base64: {c:?}")) as u32;
            }
        }
        bytes.extend_from_slice(&bits.to_be_bytes()[1..4 - padding]);
    }
    bytes
}

/// The PNG an image block carries (its MIME type and signature checked), and its size from
/// the IHDR chunk.
fn png_of(block: &rmcp::model::ContentBlock) -> (Vec<u8>, (u32, u32)) {
    let image = block.as_image().expect("an image block");
    assert_eq!(image.mime_type, "image/png");
    let png = base64_decode(&image.data);
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "the PNG signature");
    assert_eq!(&png[12..16], b"IHDR");
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    let size = (be(16), be(20));
    (png, size)
}

#[tokio::test]
async fn tag_chart_answers_with_text_and_an_image() {
    use toolsmith_examples::chart;

    let client = connect(notes_server()).await;
    let tools = client.list_all_tools().await.unwrap();
    let tool = tools.iter().find(|t| t.name == "tag_chart").unwrap();
    assert!(tool.output_schema.is_none(), "content has no outputSchema");
    let input = serde_json::Value::Object((*tool.input_schema).clone());
    assert_eq!(input["properties"]["legend"]["type"], "boolean");
    assert!(
        input
            .get("required")
            .and_then(|r| r.as_array())
            .is_none_or(|r| r.is_empty()),
        "legend is optional: {input}"
    );

    let mixed = call(&client, "tag_chart", json!({})).await.unwrap();
    assert_eq!(mixed.is_error, Some(false));
    assert!(mixed.structured_content.is_none());
    assert_eq!(mixed.content.len(), 2, "text, then the image");
    assert_eq!(text(&mixed), "home: 1\npersonal: 1\nwork: 1");
    let (png, size) = png_of(&mixed.content[1]);
    assert_eq!(size, (chart::width(3), chart::HEIGHT));
    assert_eq!(
        png,
        chart::bar_chart(&[1, 1, 1]),
        "the chart of the seeded notes"
    );

    // The chart follows the store.
    call(
        &client,
        "create_note",
        json!({"title": "Retro", "body": "went well", "tags": ["work", "meeting"]}),
    )
    .await
    .unwrap();
    let only_image = call(&client, "tag_chart", json!({"legend": false}))
        .await
        .unwrap();
    assert_eq!(only_image.is_error, Some(false));
    assert!(only_image.structured_content.is_none());
    assert_eq!(only_image.content.len(), 1, "no legend: the image alone");
    let (png, size) = png_of(&only_image.content[0]);
    assert_eq!(size, (chart::width(4), chart::HEIGHT));
    assert_eq!(png, chart::bar_chart(&[1, 1, 1, 2]));

    let legend = call(&client, "tag_chart", json!({"legend": true}))
        .await
        .unwrap();
    assert_eq!(text(&legend), "home: 1\nmeeting: 1\npersonal: 1\nwork: 2");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn unexpected_errors_are_masked() {
    let client = connect(notes_server()).await;
    let result = call(&client, "leaky_lookup", json!({})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(text(&result), "Error calling tool 'leaky_lookup'");
    let wire = serde_json::to_string(&result).unwrap();
    assert!(!wire.contains("hunter2"), "the secret leaked: {wire}");

    let refused = call(&client, "refuse", json!({})).await.unwrap();
    assert_eq!(text(&refused), "Refused on purpose.");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn panics_are_masked_and_the_server_keeps_serving() {
    let client = connect(notes_server()).await;
    let result = call(&client, "fragile", json!({"n": 0})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(text(&result), "Error calling tool 'fragile'");
    let result = call(&client, "fragile_async", json!({})).await.unwrap();
    assert_eq!(text(&result), "Error calling tool 'fragile_async'");

    let next = call(&client, "fragile", json!({"n": 7})).await.unwrap();
    assert_eq!(next.is_error, Some(false));
    assert_eq!(next.structured_content.unwrap(), json!({"result": 7}));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_arguments_name_the_argument() {
    let client = connect(notes_server()).await;
    let missing = call(&client, "get_note", json!({})).await.unwrap();
    assert_eq!(missing.is_error, Some(true));
    assert_eq!(
        text(&missing),
        "Invalid arguments for tool 'get_note': missing required argument `note_id` (expected an integer)"
    );
    let wrong = call(&client, "get_note", json!({"note_id": "seven"}))
        .await
        .unwrap();
    assert!(
        text(&wrong).contains("argument `note_id` is invalid (expected an integer)"),
        "{}",
        text(&wrong)
    );
    let extra = call(&client, "search_notes", json!({"query": "x", "limit": 3}))
        .await
        .unwrap();
    assert!(
        text(&extra).contains("unknown argument `limit` (this tool takes `query`)"),
        "{}",
        text(&extra)
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn unknown_tools_are_invalid_params() {
    let client = connect(notes_server()).await;
    let err = call(&client, "no_such_tool", json!({})).await.unwrap_err();
    match err {
        rmcp::ServiceError::McpError(data) => {
            assert_eq!(data.code, rmcp::model::ErrorCode::INVALID_PARAMS);
            assert!(data.message.contains("no_such_tool"));
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
    client.cancel().await.unwrap();
}

#[test]
fn tools_stay_callable_from_rust() {
    assert_eq!(fragile(3), 3);
    let notes = toolsmith::State::new(Notes::seeded());
    let note = toolsmith_examples::notes::get_note(notes, 2).unwrap();
    assert_eq!(note.title, "Standup notes");
    let chart = toolsmith_examples::notes::tag_chart(toolsmith::State::new(Notes::seeded()), None);
    assert!(
        matches!(&chart[..], [toolsmith::tool::Content::Text(_), toolsmith::tool::Content::Image(image)] if image.mime_type() == "image/png")
    );
}

/// Waits until `parties` callers are inside at once; `false` after five seconds alone.
fn meet(slot: &'static std::sync::OnceLock<(std::sync::Mutex<usize>, std::sync::Condvar)>) -> bool {
    let (count, arrived) = slot.get_or_init(Default::default);
    let mut n = count.lock().unwrap();
    *n += 1;
    arrived.notify_all();
    let (n, timeout) = arrived
        .wait_timeout_while(n, std::time::Duration::from_secs(5), |n| *n < 2)
        .unwrap();
    drop(n);
    !timeout.timed_out()
}

/// Blocks its thread until a second call arrives.
#[tool(read_only, closed_world)]
fn blocking_rendezvous() -> bool {
    static SLOT: std::sync::OnceLock<(std::sync::Mutex<usize>, std::sync::Condvar)> =
        std::sync::OnceLock::new();
    meet(&SLOT)
}

/// Awaits until a second call arrives.
#[tool(read_only, closed_world)]
async fn async_rendezvous() -> bool {
    static BARRIER: std::sync::OnceLock<tokio::sync::Barrier> = std::sync::OnceLock::new();
    let barrier = BARRIER.get_or_init(|| tokio::sync::Barrier::new(2));
    tokio::time::timeout(std::time::Duration::from_secs(5), barrier.wait())
        .await
        .is_ok()
}

/// On a single-threaded runtime, two blocking calls can only meet if sync tools run off the
/// reactor, and two async calls only if they run concurrently.
#[tokio::test(flavor = "current_thread")]
async fn sync_tools_run_off_the_reactor_and_calls_run_concurrently() {
    let client = connect(notes_server()).await;
    for tool in ["blocking_rendezvous", "async_rendezvous"] {
        let (a, b) = tokio::join!(
            call(&client, tool, json!({})),
            call(&client, tool, json!({}))
        );
        for result in [a.unwrap(), b.unwrap()] {
            assert_eq!(
                result.structured_content.unwrap(),
                json!({"result": true}),
                "{tool}"
            );
        }
    }
    client.cancel().await.unwrap();
}

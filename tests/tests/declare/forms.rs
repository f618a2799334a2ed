//! Every accepted form of `#[tool]`: sync and async, any visibility and module, behind
//! `#[cfg]`, made by `macro_rules!`, every return shape, the naming keys.

use serde_json::json;
use toolsmith::tool;
use toolsmith_tests::{call, connect, text};

mod nested {
    pub(crate) mod deeper {
        /// Greets someone in plain text.
        ///
        /// # Arguments
        /// * `who` - Whom to greet.
        /// * `shout` - Upper-case the greeting.
        #[toolsmith::tool(read_only, closed_world)]
        pub(crate) fn greet(who: String, shout: Option<bool>) -> String {
            let text = format!("Hello, {who}!");
            if shout.unwrap_or(false) {
                text.to_uppercase()
            } else {
                text
            }
        }
    }
}

/// Does nothing and returns nothing.
#[tool(destructive = false, idempotent = true, open_world = false)]
async fn noop() {}

/// Only in builds with an impossible cfg.
#[cfg(any())]
#[tool(read_only)]
fn never_compiled() -> String {
    String::new()
}

/// This tool is hidden behind a cfg that is never set.
#[tool(read_only)]
#[cfg(any())]
fn never_compiled_either() -> String {
    String::new()
}

macro_rules! counter_tool {
    ($name:ident, $value:expr) => {
        /// A tool made by a macro.
        #[tool(read_only, closed_world)]
        fn $name() -> u32 {
            $value
        }
    };
}
counter_tool!(made_by_macro, 42);

/// Ignored: the `description` key wins.
#[tool(
    name = "renamed.tool-v2",
    description = "Explicit description.",
    read_only = true
)]
fn some_rust_name() -> Result<u8, std::fmt::Error> {
    Ok(1)
}

/// A raw identifier's name is used without `r#`.
#[tool(read_only, closed_world)]
fn r#type() -> String {
    "typed".into()
}

#[tokio::test]
async fn registry_holds_exactly_the_compiled_tools() {
    let registry = toolsmith_tests::declared_in(module_path!());
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "greet",
            "greet_briefly",
            "greet_politely",
            "made_by_macro",
            "noop",
            "renamed.tool-v2",
            "type"
        ]
    );
    let registry = toolsmith_tests::declared_in(module_path!());
    let renamed = registry.get("renamed.tool-v2").unwrap();
    assert_eq!(renamed.header().description(), "Explicit description.");
    assert!(
        renamed.header().rust_path().ends_with("::some_rust_name"),
        "{}",
        renamed.header().rust_path()
    );
    assert!(
        renamed
            .header()
            .location()
            .starts_with("tests/tests/declare/forms.rs:"),
        "{}",
        renamed.header().location()
    );
}

#[tokio::test]
async fn hints_default_cautiously_and_explicit_values_win() {
    let hints = |name| {
        toolsmith_tests::declared_in(module_path!())
            .get(name)
            .unwrap()
            .hints()
    };
    let noop = hints("noop");
    assert_eq!(
        (
            noop.read_only,
            noop.destructive,
            noop.idempotent,
            noop.open_world
        ),
        (false, false, true, false)
    );
    let renamed = hints("renamed.tool-v2");
    assert_eq!(
        (
            renamed.read_only,
            renamed.destructive,
            renamed.idempotent,
            renamed.open_world
        ),
        (true, false, true, true),
        "read_only implies not destructive and idempotent; open world by default"
    );
}

#[tokio::test]
async fn return_shapes() {
    let client = connect(toolsmith_tests::server_of(module_path!())).await;
    let tools = client.list_all_tools().await.unwrap();
    let tool = |name: &str| tools.iter().find(|t| t.name == name).unwrap().clone();
    assert!(
        tool("greet").output_schema.is_none(),
        "a String result has no output schema"
    );
    assert!(tool("noop").output_schema.is_none());
    assert!(tool("made_by_macro").output_schema.is_some());

    let greet = call(&client, "greet", json!({"who": "Ada"})).await.unwrap();
    assert_eq!(greet.content.len(), 1);
    assert_eq!(text(&greet), "Hello, Ada!");
    assert!(greet.structured_content.is_none());
    let shout = call(&client, "greet", json!({"who": "Ada", "shout": true}))
        .await
        .unwrap();
    assert_eq!(text(&shout), "HELLO, ADA!");
    let null = call(&client, "greet", json!({"who": "Ada", "shout": null}))
        .await
        .unwrap();
    assert_eq!(
        text(&null),
        "Hello, Ada!",
        "null is accepted for an optional argument"
    );

    let noop = call(&client, "noop", json!({})).await.unwrap();
    assert_eq!((noop.is_error, noop.content.len()), (Some(false), 0));

    let counted = call(&client, "made_by_macro", json!({})).await.unwrap();
    assert_eq!(
        counted.structured_content.clone().unwrap(),
        json!({"result": 42})
    );
    assert_eq!(text(&counted), "42");

    let typed = call(&client, "type", json!({})).await.unwrap();
    assert_eq!(text(&typed), "typed");

    let input = &tool("greet").input_schema;
    assert_eq!(input["required"], json!(["who"]));
    assert_eq!(
        input["properties"]["shout"],
        json!({"type": "boolean", "description": "Upper-case the greeting."})
    );
    client.cancel().await.unwrap();
}

/// Greets someone, politely.
///
/// # Arguments
/// * `who` - Whom to greet.
/// * `shout` - Upper-case the greeting.
#[tool(read_only, closed_world)]
fn greet_politely(who: String, shout: Option<bool>) -> String {
    format!(
        "Good day, {who}{}",
        if shout == Some(true) { "!" } else { "." }
    )
}

/// Greets someone, briefly.
///
/// # Arguments
/// * `who` - Whom to greet, by first name.
/// * `shout` - Upper-case the greeting.
#[tool(read_only, closed_world)]
fn greet_briefly(who: String, shout: Option<bool>) -> String {
    format!("Hi {who}{}", if shout == Some(true) { "!" } else { "" })
}

/// Tools with the same parameters (names, types, descriptions) share one input schema;
/// a different description makes a different schema.
#[test]
fn tools_with_the_same_parameters_share_one_input_schema() {
    let registry = toolsmith_tests::declared_in(module_path!());
    let schema = |name: &str| registry.get(name).unwrap().mcp_tool().input_schema.clone();
    let (greet, politely, briefly) = (
        schema("greet"),
        schema("greet_politely"),
        schema("greet_briefly"),
    );
    assert!(std::sync::Arc::ptr_eq(&greet, &politely));
    assert!(!std::sync::Arc::ptr_eq(&greet, &briefly));
    assert_eq!(
        briefly["properties"]["who"]["description"],
        "Whom to greet, by first name."
    );
    assert_eq!(greet["properties"]["who"]["description"], "Whom to greet.");
}

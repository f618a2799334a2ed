use std::sync::Arc;

use serde_json::{Value, json};

use super::SchemaCache;
use crate::tool::schema::JsonObject;

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => unreachable!(),
    }
}

#[test]
fn equal_schemas_share_one_copy_and_others_do_not() {
    let mut cache = SchemaCache::default();
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    let first = cache.share(object(schema.clone()));
    let second = cache.share(object(schema));
    assert!(Arc::ptr_eq(&first, &second));
    let other = cache.share(object(
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
    ));
    assert!(!Arc::ptr_eq(&first, &other));
    assert_eq!(other["properties"]["a"]["type"], "string");
    let null = cache.share(object(json!({"x": null})));
    let falsy = cache.share(object(json!({"x": false})));
    assert!(
        !Arc::ptr_eq(&null, &falsy),
        "a hash collision is told apart"
    );
}

/// A tool made by hand that says everything a description can, counting how often it is
/// asked to.
struct Full(std::sync::atomic::AtomicUsize);

impl crate::Tool for Full {
    fn describe(&self) -> crate::ToolDescription {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let input = object(json!({"type": "object", "properties": {"id": {"type": "integer"}}}));
        let output = object(json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
        crate::ToolDescription::new(
            "prune_cache",
            "Prune the cache.",
            input,
            crate::Hints::ADDITIVE,
        )
        .with_title("Prune")
        .with_icons(["https://example.com/prune.png", "ftp://left.out/x.png"])
        .with_scopes(["cache:admin"])
        .with_timeout(std::time::Duration::from_secs(7))
        .with_output_schema(output)
        .with_category("cache")
        .with_tags(["maintenance"])
        .with_confirms(true)
        .with_confirm_message("Prune {id}?")
        .with_upstream_confirms(true)
        .with_task(crate::tool::TaskSupport::Optional)
        .with_max_concurrency(3)
        .with_asks_client(true)
        .with_meta(object(json!({
            "ui": {"resourceUri": "ui://cache/view.html"},
            "dev.toolsmith/category": "not this",
            "dev.toolsmith/confirms": false,
        })))
    }
    fn call(&self, _: JsonObject, _: &crate::CallContext) -> crate::tool::ToolFuture {
        Box::pin(async { Ok(crate::tool::ToolOutput::new().text("pruned")) })
    }
}

/// `inner`, destructive: the one field a wrapper changes.
struct Destructive<T>(T);

impl<T: crate::Tool> crate::Tool for Destructive<T> {
    fn describe(&self) -> crate::ToolDescription {
        let mut described = self.0.describe();
        described.hints = crate::Hints::DESTRUCTIVE;
        described
    }
    fn call(&self, arguments: JsonObject, context: &crate::CallContext) -> crate::tool::ToolFuture {
        self.0.call(arguments, context)
    }
}

fn registered(tool: impl crate::Tool) -> super::ToolInfo {
    let registry = crate::Registry::new().with_tool(tool).unwrap();
    registry.get("prune_cache").unwrap().clone()
}

#[test]
fn a_description_is_read_once_when_the_tool_is_added() {
    let tool = Arc::new(Full(Default::default()));
    let mut registry = crate::Registry::new();
    registry.add_shared(tool.clone()).unwrap();
    let info = registry.get("prune_cache").unwrap();
    let _ = (info.mcp_tool(), info.hints(), info.header().title());
    assert_eq!(tool.0.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[test]
fn a_wrapper_that_changes_one_field_keeps_every_other() {
    let plain = registered(Full(Default::default()));
    let wrapped = registered(Destructive(Full(Default::default())));
    assert_eq!(plain.hints(), crate::Hints::ADDITIVE);
    assert_eq!(wrapped.hints(), crate::Hints::DESTRUCTIVE);
    for info in [&plain, &wrapped] {
        let header = info.header();
        assert_eq!(header.name(), "prune_cache");
        assert_eq!(header.title(), Some("Prune"));
        assert_eq!(header.description(), "Prune the cache.");
        assert_eq!(header.icons(), ["https://example.com/prune.png"]);
        assert_eq!(header.scopes(), ["cache:admin"]);
        assert_eq!(info.input_schema()["properties"]["id"]["type"], "integer");
        assert_eq!(
            info.output_schema().unwrap()["properties"]["n"]["type"],
            "integer"
        );
        assert_eq!(info.category(), Some("cache"));
        assert_eq!(info.tags(), ["maintenance"]);
        assert!(info.declares_confirm() && info.upstream_confirms() && info.asks_client());
        assert_eq!(info.confirm_message(), Some("Prune {id}?"));
        assert_eq!(info.task(), crate::tool::TaskSupport::Optional);
        assert_eq!(info.max_concurrency(), Some(3));
        assert_eq!(info.timeout().map(|t| t.millis), Some(7_000));
        assert!(info.is_dynamic());
        // Its own `_meta` is listed; toolsmith's keys are the server's to say.
        let meta = info.mcp_tool().meta.as_ref().unwrap();
        assert_eq!(
            meta.get("ui"),
            Some(&json!({"resourceUri": "ui://cache/view.html"}))
        );
        assert_eq!(meta.get(crate::tool::META_CATEGORY), Some(&json!("cache")));
        assert_eq!(
            meta.get(crate::tool::META_TAGS),
            Some(&json!(["maintenance"]))
        );
        assert!(
            meta.get(crate::tool::META_CONFIRMS).is_none(),
            "set when listed"
        );
    }
    // Both come from where `Full` made its description: this file.
    assert_eq!(plain.header().location(), wrapped.header().location());
    assert!(plain.header().location().starts_with(file!()));
}

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

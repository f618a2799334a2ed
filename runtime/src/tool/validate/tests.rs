use serde_json::{Value, json};

use std::sync::Arc;

use super::{InputCheck, compiled};
use crate::tool::schema::JsonObject;

fn object(value: Value) -> JsonObject {
    value.as_object().cloned().unwrap()
}

/// A book API's operation: an integer in the path, a bounded query, a required body.
fn books() -> JsonObject {
    object(json!({
        "type": "object",
        "properties": {
            "book_id": {"type": "integer"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "sort": {"enum": ["title", "year"]},
            "isbn": {"type": "string", "pattern": "^[0-9-]+$"},
            "email": {"type": "string", "format": "email"},
            "body": {
                "type": "object",
                "properties": {"title": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
                "required": ["title"],
                "additionalProperties": false,
            },
        },
        "required": ["book_id", "body"],
        "additionalProperties": false,
    }))
}

/// The verdict on `arguments` of a tool whose input schema is `schema`.
fn verdict(schema: &JsonObject, arguments: Option<Value>) -> Result<(), String> {
    let check = compiled("t", schema.clone()).unwrap();
    let mut arguments = arguments.map(object);
    let before = arguments.clone();
    let verdict = check.check(&mut arguments);
    assert_eq!(
        arguments, before,
        "the arguments are given back as they came"
    );
    verdict
}

fn problems(arguments: Value) -> String {
    verdict(&books(), Some(arguments)).unwrap_err()
}

#[test]
fn arguments_that_match_pass_integral_floats_and_formats_too() {
    let good = json!({"book_id": 7, "limit": 100, "body": {"title": "Dune", "tags": ["sf"]}});
    assert_eq!(verdict(&books(), Some(good)), Ok(()));
    // JSON Schema counts 1.0 as an integer; `format` is an annotation.
    let loose = json!({"book_id": 7.0, "email": "not an address", "body": {"title": "t"}});
    assert_eq!(verdict(&books(), Some(loose)), Ok(()));
}

#[test]
fn each_problem_names_its_argument_and_what_it_expects() {
    assert_eq!(
        problems(json!({"book_id": "abc", "body": {"title": "t"}})),
        "argument `book_id` is invalid (expected an integer): got \"abc\""
    );
    assert_eq!(
        problems(json!({"book_id": null, "body": {"title": "t"}})),
        "argument `book_id` is invalid (expected an integer): got null"
    );
    assert_eq!(
        problems(json!({"book_id": [1, 2], "body": {"title": "t"}})),
        "argument `book_id` is invalid (expected an integer): got [1,2]"
    );
    assert_eq!(
        problems(json!({"book_id": 1, "limit": 1000, "body": {"title": "t"}})),
        "argument `limit` is invalid (expected an integer): 1000 is greater than the maximum of 100"
    );
    assert_eq!(
        problems(json!({"book_id": 1, "sort": "price", "body": {"title": "t"}})),
        "argument `sort` is invalid (expected one of \"title\", \"year\"): got \"price\""
    );
    assert_eq!(
        problems(json!({"book_id": 1, "isbn": "x", "body": {"title": "t"}})),
        "argument `isbn` is invalid (expected a string): \"x\" does not match the pattern `^[0-9-]+$`"
    );
}

#[test]
fn missing_and_unknown_arguments_are_worded_as_a_tool_macros() {
    assert_eq!(
        verdict(&books(), None).unwrap_err(),
        "missing required argument `book_id` (expected an integer); \
         missing required argument `body` (expected an object)"
    );
    assert_eq!(
        problems(json!({"book_id": 1, "body": {"title": "t"}, "extra": true})),
        "unknown argument `extra` (this tool takes `book_id`, `limit`, `sort`, `isbn`, `email`, `body`)"
    );
}

#[test]
fn every_problem_is_named_at_once_nested_ones_by_their_path() {
    let message = problems(json!({
        "book_id": "abc",
        "limit": 0,
        "body": {"tags": ["a", 2], "subtitle": "s"},
        "extra": 1,
    }));
    for expected in [
        "argument `book_id` is invalid (expected an integer): got \"abc\"",
        "argument `limit` is invalid (expected an integer): 0 is less than the minimum of 1",
        "missing required argument `body.title` (expected a string)",
        "argument `body.tags[1]` is invalid (expected a string): got 2",
        "unknown argument `body.subtitle` (`body` takes `title`, `tags`)",
        "unknown argument `extra` (this tool takes",
    ] {
        assert!(message.contains(expected), "{expected}\nin: {message}");
    }
    assert_eq!(message.matches("; ").count(), 5, "{message}");
}

#[test]
fn what_an_error_quotes_is_capped() {
    // A hundred thousand unknown arguments: five named, the rest counted.
    let mut many: JsonObject = (0..100_000)
        .map(|i| (format!("k{i:06}"), json!(1)))
        .collect();
    many.insert("book_id".into(), json!(1));
    many.insert("body".into(), json!({"title": "t"}));
    let message = problems(Value::Object(many));
    assert!(
        message.starts_with(
            "unknown arguments `k000000`, `k000001`, `k000002`, `k000003`, `k000004` and 99995 more"
        ),
        "{message}"
    );
    // A long value, quoted cut; many wrong items, ten named and the rest counted.
    let long = "x".repeat(1 << 20);
    let tags: Vec<Value> = (0..1000).map(Value::from).collect();
    let message = problems(json!({"book_id": long, "body": {"title": "t", "tags": tags}}));
    assert!(message.len() < 2000, "{} bytes: {message}", message.len());
    assert!(message.contains("got \"xxxx"), "{message}");
    assert!(message.contains("xxx..."), "{message}");
    assert!(message.ends_with("and 991 more problems"), "{message}");
}

#[test]
fn a_schema_that_does_not_compile_is_refused_and_nothing_is_fetched() {
    let refused = |schema: Value| match compiled("lookup", object(schema.clone())) {
        Ok(_) => panic!("{schema} compiled"),
        Err(why) => why,
    };
    let why = refused(json!({"type": "object", "properties": {"x": {"type": "int"}}}));
    assert!(
        why.starts_with("the input schema of tool 'lookup' is not a JSON Schema"),
        "{why}"
    );
    assert!(why.ends_with("(at `/properties/x/type`)"), "{why}");
    let why = refused(
        json!({"type": "object", "properties": {"x": {"$ref": "http://127.0.0.1:9/s.json"}}}),
    );
    assert!(why.contains("lookup"), "{why}");
    assert!(compiled("lookup", object(json!({"type": "object"}))).is_ok());
}

#[test]
fn schemas_equal_in_content_share_one_check_while_a_tool_holds_it() {
    let schema = object(json!({"type": "object", "properties": {"shared_by": {"type": "string"}}}));
    let first: Arc<InputCheck> = compiled("a", schema.clone()).unwrap();
    let second = compiled("b", schema.clone()).unwrap();
    assert!(Arc::ptr_eq(&first, &second));
    assert!(Arc::ptr_eq(first.schema(), second.schema()));
    let mut other = schema.clone();
    other.insert("required".into(), json!(["shared_by"]));
    assert!(!Arc::ptr_eq(&first, &compiled("c", other).unwrap()));
    // Once no tool holds it, it is compiled again.
    let weak = Arc::downgrade(&first);
    drop((first, second));
    assert!(weak.upgrade().is_none());
    assert!(compiled("d", schema).is_ok());
}

//! Two resource templates that can match one URI stop startup with an error naming both.

use toolsmith::resource;

/// By id.
///
/// # Arguments
/// * `id` - The id.
#[resource(uri = "things://{id}")]
fn by_id(id: u64) -> String {
    id.to_string()
}

/// By name.
///
/// # Arguments
/// * `name` - The name.
#[resource(uri = "things://{name}")]
fn by_name(name: String) -> String {
    name
}

/// Not a conflict: a static URI that a template also matches is read as itself.
#[resource(uri = "things://all")]
fn all() -> String {
    "all".to_owned()
}

#[test]
fn overlapping_templates_are_an_error_naming_both() {
    let err = toolsmith::try_registry()
        .err()
        .expect("the overlap is refused");
    let message = err.to_string();
    assert!(
        message.contains(
            "the resource templates 'things://{id}' and 'things://{name}' can match the same URI"
        ),
        "{message}"
    );
    assert!(
        message.contains("by_id` at tests/tests/overlapping_templates.rs:10"),
        "{message}"
    );
    assert!(
        message.contains("by_name` at tests/tests/overlapping_templates.rs:19"),
        "{message}"
    );
    assert!(matches!(err, toolsmith::Error::Conflict { .. }), "{err:?}");
}

#[tokio::test]
async fn serving_refuses_to_start() {
    let (_client, server) = tokio::io::duplex(1024);
    let (read, write) = tokio::io::split(server);
    let err = toolsmith::serve_on(read, write).await.unwrap_err();
    assert!(matches!(err, toolsmith::Error::Conflict { .. }), "{err}");
}

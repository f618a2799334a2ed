//! Two resource templates that can match one URI: the registry is refused, the error naming
//! both (a server stops its startup on such an error: `duplicates.rs`).

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
    let err = toolsmith::Registry::from_module(module_path!())
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
        message.contains("by_id` at tests/tests/declare/overlapping_templates.rs:11"),
        "{message}"
    );
    assert!(
        message.contains("by_name` at tests/tests/declare/overlapping_templates.rs:20"),
        "{message}"
    );
    assert!(matches!(err, toolsmith::Error::Conflict { .. }), "{err:?}");
}

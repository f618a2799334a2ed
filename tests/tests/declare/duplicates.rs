//! Two tools with one name stop startup with an error naming both definitions.

use toolsmith::tool;

/// One.
#[tool(read_only, name = "twin")]
fn first_twin() {}

/// Two.
#[tool(read_only, name = "twin")]
fn second_twin() {}

#[test]
fn duplicate_names_are_an_error_naming_both_definitions() {
    let err = toolsmith::Registry::from_module(module_path!())
        .err()
        .expect("duplicates are refused");
    let message = err.to_string();
    assert!(message.contains("two tools are named 'twin'"), "{message}");
    assert!(
        message.contains("first_twin` at tests/tests/declare/duplicates.rs:7"),
        "{message}"
    );
    assert!(
        message.contains("second_twin` at tests/tests/declare/duplicates.rs:11"),
        "{message}"
    );
}

#[tokio::test]
async fn serving_refuses_to_start() {
    let (_client, server) = tokio::io::duplex(1024);
    let (read, write) = tokio::io::split(server);
    let err = toolsmith::Server::new()
        .serve_io(read, write)
        .await
        .unwrap_err();
    assert!(
        matches!(err, toolsmith::Error::DuplicateTool { .. }),
        "{err}"
    );
}

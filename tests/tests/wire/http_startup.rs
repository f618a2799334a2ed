//! Settings that would serve something other than what was asked stop `serve` at startup,
//! with a message that names the fix: a route pattern as the endpoint path (it would skip
//! authentication), authorization flags without HTTP (they would be ignored), and
//! authorization on an unspecified address without a public URL (tokens would have to name
//! `0.0.0.0`).

use toolsmith_tests::example_binary;

/// Runs the notes server with `args` (stdin closed) and returns its exit code and stderr.
async fn notes_exit(args: &[&str]) -> (Option<i32>, String) {
    let notes = example_binary("notes");
    toolsmith_tests::exit_of(notes.to_str().unwrap(), args).await
}

#[tokio::test]
async fn an_endpoint_path_with_route_syntax_is_refused() {
    for path in ["/{tenant}/mcp", "/mcp/*rest"] {
        let (code, stderr) =
            notes_exit(&["serve", "--http", "127.0.0.1:0", "--http-path", path]).await;
        assert_eq!(code, Some(1), "{path}: {stderr}");
        assert!(stderr.contains("route syntax"), "{path}: {stderr}");
        assert!(!stderr.contains("listening on"), "{stderr}");
    }
}

#[tokio::test]
async fn authorization_flags_without_http_are_an_error() {
    let (code, stderr) = notes_exit(&[
        "serve",
        "--auth-issuer",
        "https://issuer.test",
        "--auth-jwks",
        "/nonexistent/jwks.json",
    ])
    .await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("--auth-issuer applies only over HTTP"),
        "{stderr}"
    );
    assert!(stderr.contains("--http ADDR"), "{stderr}");
}

#[tokio::test]
async fn authorization_on_an_unspecified_address_needs_a_public_url() {
    let (code, stderr) = notes_exit(&[
        "serve",
        "--http",
        "0.0.0.0:0",
        "--auth-issuer",
        "https://issuer.test",
        "--auth-jwks",
        "/nonexistent/jwks.json",
    ])
    .await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("--public-url"), "{stderr}");
}

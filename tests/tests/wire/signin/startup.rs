//! Sign-in flags refused when the server starts: a mistake there would otherwise show only
//! at the first sign-in, or never (a restriction that names no one keeps a scope from
//! everybody, silently).

use std::time::Duration;

use super::{FakeIdp, IDP_CLIENT, IDP_SECRET, notes};

/// Starts `notes serve --http 127.0.0.1:0 ARGS` (the client secret in the environment) and
/// expects it to stop with an error within 15 s: its stderr.
async fn refused(args: &[&str]) -> String {
    let child = tokio::process::Command::new(notes())
        .args(["serve", "--http", "127.0.0.1:0"])
        .args(args)
        .env("TOOLSMITH_SIGNIN_CLIENT_SECRET", IDP_SECRET)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let output = tokio::time::timeout(Duration::from_secs(15), child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("the server started with {args:?}: it should refuse them"))
        .expect("the server runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "{args:?}: {stderr}");
    assert!(!stderr.contains("listening on"), "{args:?}: {stderr}");
    stderr
}

#[tokio::test]
async fn bad_provider_settings_are_refused_at_startup() {
    let idp = FakeIdp::start("alice").await;
    let stderr = refused(&[
        "--signin-oidc",
        "http://idp.example",
        "--signin-client-id",
        IDP_CLIENT,
    ])
    .await;
    assert!(stderr.contains("http://idp.example"), "{stderr}");
    let stderr = refused(&["--signin-oidc", &idp.url]).await;
    assert!(stderr.contains("--signin-client-id"), "{stderr}");
}

#[tokio::test]
async fn a_restriction_that_names_no_one_is_refused_at_startup() {
    let idp = FakeIdp::start("alice").await;
    let base = [
        "--signin-oidc",
        idp.url.as_str(),
        "--signin-client-id",
        IDP_CLIENT,
    ];
    for (rule, named) in [
        ("tools:destructive", "tools:destructive"),
        ("tools:destructive=gruop:admins", "gruop"),
        ("tools:destructive=", "tools:destructive"),
    ] {
        let args = [&base[..], &["--signin-restrict", rule]].concat();
        let stderr = refused(&args).await;
        assert!(
            stderr.contains(named),
            "{rule}: the error should name {named}: {stderr}"
        );
    }
}

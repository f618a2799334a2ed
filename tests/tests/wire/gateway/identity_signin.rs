//! Per-user sign-in at an upstream that has its own authorization server (issue #56, mode
//! 2), end to end on 127.0.0.1: the notes example signs its users in itself (its own
//! authorization server in front of `tests/fixtures/fake_idp.py`: registration, PKCE,
//! `resource`, its consent page); `toolsmith gateway` mounts it with
//! `[servers.notes.sign_in]`, lists its tools with a token of its own and calls them as each
//! user; the MCP client is rmcp's, whose user opens each sign-in link in a headless browser
//! (`Browser`: cookies kept, every redirect followed by hand) through the upstream's sign-in
//! and consent back to the gateway's callback (all of it in `identity_setup.rs`).

use std::time::Duration;

use super::identity_setup::{Does, Setup, call, search, signs_in_by_link};
use crate::signin::{Browser, split_url};

#[tokio::test]
async fn a_user_signs_in_at_the_upstream_once_is_refreshed_and_signs_out() {
    let setup = Setup::start("flow", &["--sessions"]).await;
    let user = setup.user(Does::SignIn);
    let client = setup.client(user.clone()).await;

    // The first call asks the user to sign in at the gateway's start page, then goes on.
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    let links = user.links.lock().unwrap().clone();
    assert_eq!(links.len(), 1, "{links:?}");
    assert!(
        links[0].starts_with(&format!("{}/upstream/start?s=", setup.origin())),
        "{links:?}"
    );
    let (back, status, page) = user.pages.lock().unwrap()[0].clone();
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("signed in to &#39;notes&#39;"), "{page}");

    // The second needs no sign-in.
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    assert_eq!(user.links.lock().unwrap().len(), 1);

    // Past the upstream token's 10 s: refreshed (a refresh token rotates), not asked again.
    tokio::time::sleep(Duration::from_secs(11)).await;
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    assert_eq!(user.links.lock().unwrap().len(), 1, "refreshed, not asked");

    // The callback replayed, and a state the gateway never made: error pages.
    let (addr, path) = split_url(&back, "");
    let replayed = Browser::new().get(&addr, &path).await;
    assert_eq!(replayed.status, 400, "{}", replayed.body);
    assert!(replayed.body.contains("already used"), "{}", replayed.body);
    let forged = Browser::new()
        .get(&addr, "/upstream/callback?code=x&state=forged")
        .await;
    assert_eq!(forged.status, 400, "{}", forged.body);

    // Signing out revokes and forgets: the next call asks again.
    let (error, text) = call(&client, "notes_sign_out", serde_json::json!({})).await;
    assert!(!error && text.contains("Signed out of 'notes'"), "{text}");
    let (error, text) = call(&client, "notes_sign_out", serde_json::json!({})).await;
    assert!(
        !error && text.contains("Not signed in"),
        "idempotent: {text}"
    );
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    assert_eq!(user.links.lock().unwrap().len(), 2, "asked again");
    assert_ne!(user.links.lock().unwrap()[1], links[0]);
}

#[tokio::test]
async fn a_declined_a_stray_and_an_unopenable_sign_in_are_tool_errors_keeping_nothing() {
    let setup = Setup::start("refusals", &["--sessions"]).await;

    let declining = setup.user(Does::Declines);
    let client = setup.client(declining.clone()).await;
    let (error, text) = search(&client).await;
    assert!(error, "{text}");
    assert!(
        text.contains("upstream 'notes': the user did not sign in (declined)"),
        "{text}"
    );

    // Back at the gateway in another browser than the one that opened the link: refused,
    // and the waiting call says so.
    let stray = setup.user(Does::Strays);
    let client = setup.client(stray.clone()).await;
    let (error, text) = search(&client).await;
    assert!(error && text.contains("the sign-in failed"), "{text}");
    let (_, status, page) = stray.pages.lock().unwrap()[0].clone();
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("did not start in this browser"), "{page}");

    // A client that cannot open a URL gets the link in the error; opened, it signs in.
    let unopenable = setup.user(Does::CannotOpen);
    let client = setup.client(unopenable.clone()).await;
    let link = signs_in_by_link(&setup, &client).await;
    assert!(
        link.starts_with(&format!("{}/upstream/start?s=", setup.origin())),
        "{link}"
    );
    assert!(unopenable.links.lock().unwrap().is_empty());
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
}

#[tokio::test]
async fn at_2026_07_28_the_sign_in_is_an_input_required_round_of_a_stateless_gateway() {
    let setup = Setup::start("modern", &[]).await;
    let user = setup.user(Does::SignIn);
    let client = setup.modern_client(user.clone()).await;
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    let links = user.links.lock().unwrap().clone();
    assert_eq!(links.len(), 1, "one question, one link: {links:?}");
    assert!(
        links[0].starts_with(&format!("{}/upstream/start?s=", setup.origin())),
        "{links:?}"
    );
    let (_, status, page) = user.pages.lock().unwrap()[0].clone();
    assert_eq!(status, 200, "{page}");
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    assert_eq!(user.links.lock().unwrap().len(), 1, "signed in once");
}

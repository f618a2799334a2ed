//! Per-user sign-in at an upstream (issue #56, mode 2) when the upstream refuses a user's
//! token before it expires: the pool notes the 401 (`ActsAs::rejected`), the sign-in
//! refreshes the token instead of sending it again, and the call is retried once; a refresh
//! the upstream's authorization server refuses asks the user to sign in again (a client that
//! cannot be asked gets a tool error naming the upstream, with the link). Every request
//! to the upstream (its authorization server's and its MCP endpoint's) goes through a
//! [`Sniffer`], so that the test sees the tokens the gateway sends and can revoke them.

use std::collections::BTreeSet;

use toolsmith_tests::sniff::{Request, Sniffer};

use super::identity_setup::{Does, Setup, search, signs_in_by_link};
use crate::signin::{Signin, claims, invalid_grant, param};

/// The notes example signing its users in (its access tokens living the default 10
/// minutes), reached through a [`Sniffer`]: its public URL is the sniffer's.
async fn sniffed_upstream() -> (Signin, Sniffer) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let front = listener.local_addr().unwrap();
    let public = format!("http://{front}/mcp");
    let mut upstream = Signin::start(&["--public-url", &public]).await;
    let sniffer = Sniffer::on(listener, upstream.addr().parse().unwrap()).unwrap();
    // The test's browser and clients go through the sniffer too, as the gateway does.
    upstream.server.addr = front.to_string();
    upstream.issuer = format!("http://{front}");
    upstream.resource = public;
    (upstream, sniffer)
}

/// The tokens sent as `Authorization: Bearer` other than `own`: the users' (a set: the
/// sniffer's requests are in order within a connection only).
fn users_tokens(requests: &[Request], own: &str) -> BTreeSet<String> {
    requests
        .iter()
        .filter_map(|r| r.header("authorization")?.strip_prefix("Bearer "))
        .filter(|token| *token != own)
        .map(str::to_owned)
        .collect()
}

/// Whether `token` was sent with a `tools/call`.
fn called_with(requests: &[Request], token: &str) -> bool {
    let bearer = format!("Bearer {token}");
    requests.iter().any(|r| {
        r.header("authorization") == Some(bearer.as_str())
            && String::from_utf8_lossy(&r.body).contains("\"tools/call\"")
    })
}

/// The form bodies of the gateway's refresh requests (it names the `resource`, which the
/// test's own refresh does not).
fn refreshes(requests: &[Request]) -> Vec<String> {
    requests
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .filter(|body| body.contains("grant_type=refresh_token") && body.contains("resource="))
        .collect()
}

/// The upstream's authorization server revokes `token`, the user's, minutes before its
/// expiry (as the gateway's client, which it names): the upstream refuses it from now on.
async fn revoke(setup: &Setup, token: &str) {
    let said = claims(token);
    assert!(said["exp"].as_u64().unwrap() > toolsmith_tests::keys::now() + 60);
    let client = said["client_id"].as_str().unwrap();
    let revoked = setup.upstream.revoke(client, token).await;
    assert_eq!(revoked.status, 200, "{}", revoked.body);
}

/// The refresh token the gateway spent first, used again (as by a thief) for the gateway's
/// client that `token` names: the authorization server revokes every token of that sign-in.
async fn replay_spent_refresh(setup: &Setup, sniffer: &Sniffer, token: &str) {
    let refreshed = refreshes(&sniffer.requests());
    let spent = param(&format!("?{}", refreshed[0]), "refresh_token").unwrap();
    let client = claims(token)["client_id"].as_str().unwrap().to_owned();
    let replayed = setup.upstream.refresh(&client, &spent).await;
    invalid_grant(&replayed, "a spent refresh token");
    assert!(replayed.body.contains("already used"), "{}", replayed.body);
}

#[tokio::test]
async fn a_token_refused_before_it_expires_is_refreshed_and_a_refused_refresh_asks_again() {
    let (upstream, sniffer) = sniffed_upstream().await;
    let setup = Setup::around("refused", &["--sessions"], upstream).await;
    let user = setup.user(Does::SignIn);
    let client = setup.client(user.clone()).await;
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    assert_eq!(user.links.lock().unwrap().len(), 1);
    let tokens = users_tokens(&sniffer.requests(), &setup.own);
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    let first = tokens.first().unwrap().clone();
    assert!(called_with(&sniffer.requests(), &first));

    // Refused (401): the token is refreshed and the call sent again. The user is not asked,
    // and the upstream saw a new token of the same sign-in.
    revoke(&setup, &first).await;
    let (error, text) = search(&client).await;
    assert!(!error, "refreshed and retried: {text}");
    assert_eq!(user.links.lock().unwrap().len(), 1, "refreshed, not asked");
    let requests = sniffer.requests();
    assert_eq!(refreshes(&requests).len(), 1);
    let tokens = users_tokens(&requests, &setup.own);
    assert_eq!(tokens.len(), 2, "{tokens:?}");
    let second = tokens.iter().find(|t| **t != first).unwrap().clone();
    assert!(called_with(&requests, &second), "the new token was sent");
    let said = claims(&first);
    assert_eq!(claims(&second)["sub"], said["sub"]);
    assert_eq!(claims(&second)["fam"], said["fam"], "the same sign-in");

    // Every token of the sign-in revoked: the upstream refuses the user's token and the
    // gateway's refresh is refused too. The user is asked to sign in again, within the call.
    replay_spent_refresh(&setup, &sniffer, &first).await;
    let (error, text) = search(&client).await;
    assert!(!error, "signed in again: {text}");
    assert_eq!(user.links.lock().unwrap().len(), 2, "asked again");
    let (_, status, page) = user.pages.lock().unwrap()[1].clone();
    assert_eq!(status, 200, "{page}");
    let requests = sniffer.requests();
    assert_eq!(refreshes(&requests).len(), 2, "a refresh was tried first");
    let tokens = users_tokens(&requests, &setup.own);
    assert_eq!(tokens.len(), 3, "{tokens:?}");
    let third = tokens
        .iter()
        .find(|t| **t != first && **t != second)
        .unwrap();
    assert!(
        called_with(&requests, third),
        "the new sign-in's token was sent"
    );
    assert_ne!(claims(third)["fam"], said["fam"], "a new sign-in");
}

#[tokio::test]
async fn a_refused_refresh_of_a_user_who_cannot_be_asked_is_a_tool_error_naming_the_upstream() {
    let (upstream, sniffer) = sniffed_upstream().await;
    let setup = Setup::around("unaskable", &["--sessions"], upstream).await;
    let user = setup.user(Does::CannotOpen);
    let client = setup.client(user.clone()).await;
    let link = signs_in_by_link(&setup, &client).await;
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    let first = users_tokens(&sniffer.requests(), &setup.own)
        .pop_first()
        .unwrap();
    revoke(&setup, &first).await;
    let (error, text) = search(&client).await;
    assert!(!error, "refreshed and retried: {text}");

    // Nothing kept works and the user cannot be asked within the call: the error names the
    // upstream and carries a new link; opened, the next call goes on.
    replay_spent_refresh(&setup, &sniffer, &first).await;
    let again = signs_in_by_link(&setup, &client).await;
    assert_ne!(again, link);
    assert_eq!(
        refreshes(&sniffer.requests()).len(),
        2,
        "a refresh was tried first"
    );
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    assert_eq!(users_tokens(&sniffer.requests(), &setup.own).len(), 3);
}

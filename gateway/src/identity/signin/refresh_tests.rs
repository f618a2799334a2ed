//! The tokens kept, against the fake (`fake.rs`): refreshed when the upstream refuses them
//! (the refresh token rotated, spent once by two replicas), revoked and forgotten at sign-out,
//! and never put back by a refresh that a sign-out overtook.

use std::sync::Arc;
use std::time::Duration;

use toolsmith::context::Caller;
use toolsmith::task::MemoryStore;

use super::fake::Fake;
use super::tests::{Gateway, signed_in};

#[tokio::test]
async fn an_expired_token_is_refreshed_rotating_and_sign_out_revokes_and_forgets() {
    let fake = Fake::start().await;
    let gateway = Gateway::start(&fake, Arc::new(MemoryStore::new())).await;
    let alice = Caller::new("alice", ["tools:read"]);
    signed_in(&gateway, &fake, &alice).await;
    assert_eq!(gateway.token_of(&alice).await.as_deref(), Some("at-1"));

    // The upstream refused it: the next read refreshes (rt-1 spent, rt-2 kept).
    gateway.client.rejected(&alice, &gateway.store).await;
    assert_eq!(gateway.token_of(&alice).await.as_deref(), Some("at-2"));
    let form = fake.seen().token_forms.last().unwrap().clone();
    assert_eq!(form["grant_type"], "refresh_token");
    assert_eq!(form["refresh_token"], "rt-1");
    assert_eq!(form["resource"], format!("{}/mcp", fake.base));
    gateway.client.rejected(&alice, &gateway.store).await;
    assert_eq!(
        gateway.token_of(&alice).await.as_deref(),
        Some("at-3"),
        "rotated: rt-2 used"
    );

    assert!(
        gateway
            .client
            .sign_out(&alice, &gateway.store)
            .await
            .unwrap()
    );
    assert_eq!(fake.seen().revoked, ["rt-3"]);
    assert_eq!(gateway.token_of(&alice).await, None);
    assert!(
        !gateway
            .client
            .sign_out(&alice, &gateway.store)
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn two_replicas_refreshing_one_users_token_at_once_spend_its_refresh_token_once() {
    let fake = Fake::start().await;
    let gateway = Gateway::start(&fake, Arc::new(MemoryStore::new())).await;
    let replica = gateway.replica(&fake).await;
    let alice = Caller::new("alice", ["tools:read"]);
    signed_in(&gateway, &fake, &alice).await;
    gateway.client.rejected(&alice, &gateway.store).await;

    // Both need a fresh token at once: one refreshes, the other takes what it kept.
    let (one, two) = tokio::join!(gateway.token_of(&alice), replica.token_of(&alice));
    assert_eq!(one.as_deref(), Some("at-2"));
    assert_eq!(two.as_deref(), Some("at-2"));
    let refreshes = fake
        .seen()
        .token_forms
        .iter()
        .filter(|f| f["grant_type"] == "refresh_token")
        .count();
    assert_eq!(refreshes, 1, "the refresh token is spent once");
}

#[tokio::test]
async fn a_sign_out_on_another_replica_during_a_refresh_leaves_no_tokens() {
    let fake = Fake::start().await;
    let gateway = Gateway::start(&fake, Arc::new(MemoryStore::new())).await;
    let replica = gateway.replica(&fake).await;
    let alice = Caller::new("alice", ["tools:read"]);
    signed_in(&gateway, &fake, &alice).await;
    gateway.client.rejected(&alice, &gateway.store).await;

    // A refresh held at the token endpoint (rt-1 sent, no answer yet) ...
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    fake.seen().gate = Some(gate.clone());
    let (client, store) = (gateway.client.clone(), gateway.store.clone());
    let key = client.token_key(&alice);
    let refreshing = tokio::spawn(async move { client.kept(&key, &store).await.unwrap() });
    for _ in 0..400 {
        if fake.seen().token_forms.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(fake.seen().token_forms.len(), 2, "the refresh is under way");

    // ... while the user signs out on another replica; then the refresh is answered.
    let (client, store, who) = (replica.client.clone(), replica.store.clone(), alice.clone());
    let mut signing_out = tokio::spawn(async move { client.sign_out(&who, &store).await });
    let early = tokio::time::timeout(Duration::from_millis(500), &mut signing_out).await;
    gate.add_permits(1);
    let signed_out = match early {
        Ok(done) => done,
        Err(_) => signing_out.await,
    };
    assert!(signed_out.unwrap().unwrap(), "there were tokens");
    refreshing.await.unwrap();

    assert_eq!(gateway.token_of(&alice).await, None, "signed out stays out");
    assert_eq!(replica.token_of(&alice).await, None);
    let kept = gateway.store.scan("gateway:upstream-token:").await.unwrap();
    assert!(kept.is_empty(), "no tokens, no claim left: {kept:?}");
    let revoked = fake.seen().revoked.clone();
    assert!(
        revoked.contains(&"rt-2".to_owned()),
        "the refresh's tokens are revoked: {revoked:?}"
    );
}

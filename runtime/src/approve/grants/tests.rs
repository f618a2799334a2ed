use serde_json::json;

use super::*;

fn args(value: serde_json::Value) -> JsonObject {
    value.as_object().unwrap().clone()
}

#[tokio::test]
async fn a_grant_expires_and_the_first_to_end_goes_past_the_cap() {
    let grants = Grants::default();
    let alice = Caller::new("alice", ["x"]);
    grants.grant(&alice, "t", Duration::ZERO);
    assert!(!grants.holds(&alice, "t").await);
    grants.grant(&alice, "t", Duration::from_secs(60));
    assert!(grants.holds(&alice, "t").await);
    assert!(!grants.holds(&Caller::anonymous(), "t").await);
    assert!(!grants.holds(&alice, "u").await);
    for n in 0..MAX_GRANTS {
        grants.grant(&alice, &format!("tool{n}"), Duration::from_secs(120));
    }
    assert_eq!(grants.read().len(), MAX_GRANTS);
    // The grant that ended first (`t`, at 60 s) made room.
    assert!(!grants.holds(&alice, "t").await);
    assert!(grants.holds(&alice, "tool0").await);
}

#[tokio::test]
async fn a_grant_bound_to_arguments_covers_those_values_only() {
    let grants = Grants::default();
    let alice = Caller::new("alice", ["x"]);
    let one = args(json!({"note_id": 1}));
    let scope = Scope {
        caller: &alice,
        tool: "delete_note",
        bound: Some(&one),
        session: None,
    };
    assert!(grants.remember(&scope, Duration::from_secs(60)).is_none());
    let covers = |value: serde_json::Value| {
        let grants = grants.clone();
        let alice = alice.clone();
        async move {
            let bound = args(json!({ "note_id": value }));
            grants.covers(&alice, "delete_note", None, &[bound]).await
        }
    };
    assert!(covers(json!(1)).await);
    assert!(covers(json!(1.0)).await, "1.0 is 1");
    assert!(!covers(json!(2)).await);
    assert!(!covers(json!("1")).await, "a string is not the number");
    assert!(!grants.holds(&alice, "delete_note").await, "not every call");
    assert!(!grants.held_here(&alice, None, "delete_note"));
    let listed = grants.list().await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].arguments, one);
    assert!(grants.revoke(&alice, "delete_note").await);
    assert!(!covers(json!(1)).await);
}

#[tokio::test]
async fn a_session_grant_holds_in_its_session_until_it_ends() {
    let grants = Grants::default();
    let alice = Caller::new("alice", ["x"]);
    assert!(grants.grant_session(7, &alice, "t", None).is_none());
    assert!(grants.may_hold());
    assert!(grants.held_here(&alice, Some(7), "t"));
    assert!(!grants.held_here(&alice, Some(8), "t"), "another session");
    assert!(!grants.held_here(&alice, None, "t"), "outside any session");
    assert!(
        !grants.held_here(&Caller::anonymous(), Some(7), "t"),
        "another caller"
    );
    assert!(!grants.held_here(&alice, Some(7), "u"), "another tool");
    assert!(grants.list().await[0].session);
    grants.end_session(7);
    assert!(!grants.held_here(&alice, Some(7), "t"));
    assert!(!grants.may_hold());
}

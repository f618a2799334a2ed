//! Approvers decide a confirmation before the user is asked: rules that allow or deny
//! without asking, a pass that leaves it to the user, an approval remembered for a while and
//! revoked.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use toolsmith::approve::{Approval, Decision, Remember, Rules};
use toolsmith::testing::{Answer, CallError, Client};
use toolsmith::{context::Caller, error::ErrorKind, server::Confirm, tool};

mod adversarial;
mod page;
mod remote;

/// Where this module's tools are declared (its submodules serve them too).
const TOOLS: &str = module_path!();

/// Delete a draft.
#[tool(destructive, idempotent, closed_world, tags = ["drafts"])]
fn delete_draft(draft: String) -> String {
    format!("deleted {draft}")
}

/// Empty the bin.
#[tool(destructive, closed_world)]
fn empty_bin() -> String {
    "emptied".into()
}

/// A client of this module's tools under the destructive confirmation policy, with
/// `approver` first; it counts the questions the user is asked, and answers `answer`.
async fn client(server: toolsmith::Server, answer: Answer) -> (Client, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    let client = Client::connect(server.confirm(Confirm::Destructive))
        .await
        .unwrap()
        .on_confirm(move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
            answer
        });
    (client, asked)
}

fn refusal(err: &CallError) -> String {
    assert!(
        matches!(
            err,
            CallError::Tool {
                kind: ErrorKind::Refused,
                ..
            }
        ),
        "{err:?}"
    );
    err.message()
}

#[tokio::test]
async fn rules_allow_or_deny_without_asking_and_leave_the_rest_to_the_user() {
    let rules = Rules::from_toml(
        r#"
        [[rule]]
        tags = ["drafts"]
        arguments = { draft = "tmp-*" }
        decision = "allow"

        [[rule]]
        tools = ["delete_*"]
        decision = "deny"
        reason = "only temporary drafts may go"
        "#,
    )
    .unwrap();
    let server = toolsmith_tests::server_of(module_path!()).approver(rules);
    let (client, asked) = client(server, Answer::Accept).await;

    let allowed = client
        .call("delete_draft", json!({"draft": "tmp-1"}))
        .await
        .unwrap();
    assert_eq!(allowed.text(), "deleted tmp-1");
    let denied = client
        .call("delete_draft", json!({"draft": "thesis"}))
        .await
        .unwrap_err();
    assert!(
        refusal(&denied).contains("only temporary drafts may go"),
        "{denied}"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 0, "no rule asked the user");

    // No rule matches empty_bin: the user is asked, and their yes runs it.
    let emptied = client.call("empty_bin", json!({})).await.unwrap();
    assert_eq!(emptied.text(), "emptied");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_approval_remembered_for_a_while_is_not_asked_again_until_revoked() {
    let decided = Arc::new(AtomicUsize::new(0));
    let counted = decided.clone();
    let server = toolsmith_tests::server_of(module_path!()).approver(move |approval: &Approval| {
        counted.fetch_add(1, Ordering::SeqCst);
        assert_eq!(approval.question(), "Allow \"empty_bin\" to run?");
        Decision::Approve(Remember::For(Duration::from_secs(600)))
    });
    let grants = server.grants();
    // The user declines everything: only an approval runs the tool.
    let (client, asked) = client(server, Answer::Decline).await;

    for _ in 0..3 {
        assert_eq!(
            client.call("empty_bin", json!({})).await.unwrap().text(),
            "emptied"
        );
    }
    assert_eq!(
        decided.load(Ordering::SeqCst),
        1,
        "the grant decided the others"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 0);
    // The test client calls as an anonymous caller: its grant is revoked, and the approver
    // is asked again.
    assert!(grants.revoke(&Caller::anonymous(), "empty_bin").await);
    client.call("empty_bin", json!({})).await.unwrap();
    assert_eq!(decided.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn an_approver_that_panics_refuses_the_call_and_the_server_serves_on() {
    let server = toolsmith_tests::server_of(module_path!())
        .approver(|_: &Approval| -> Decision { panic!("the approvals service is down") });
    let (client, asked) = client(server, Answer::Accept).await;
    let err = client.call("empty_bin", json!({})).await.unwrap_err();
    assert!(
        refusal(&err).contains("the approvals service is down"),
        "{err}"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 0);
    // The session goes on.
    assert_eq!(client.tools().await.unwrap().len(), 2);
}

#[tokio::test]
async fn the_first_approver_that_decides_wins() {
    let server = toolsmith_tests::server_of(module_path!())
        .approver(|_: &Approval| Decision::Pass)
        .approver(|_: &Approval| Decision::deny("frozen"))
        .approver(|_: &Approval| Decision::approve());
    let (client, asked) = client(server, Answer::Accept).await;
    let err = client.call("empty_bin", json!({})).await.unwrap_err();
    assert_eq!(
        refusal(&err),
        "Tool 'empty_bin' was not approved: frozen. It did not run."
    );
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

/// An approval remembered for the session holds for the rest of that connection's calls of
/// the tool, and a new connection (another session) is asked again.
#[tokio::test]
async fn an_approval_remembered_for_the_session_holds_in_that_session_only() {
    let decided = Arc::new(AtomicUsize::new(0));
    let counted = decided.clone();
    let server = toolsmith_tests::server_of(module_path!()).approver(move |_: &Approval| {
        counted.fetch_add(1, Ordering::SeqCst);
        Decision::Approve(Remember::Session)
    });
    let (first, asked) = client(server.clone(), Answer::Decline).await;
    for draft in ["a", "b", "c"] {
        let ran = first
            .call("delete_draft", json!({ "draft": draft }))
            .await
            .unwrap();
        assert_eq!(ran.text(), format!("deleted {draft}"));
    }
    assert_eq!(
        decided.load(Ordering::SeqCst),
        1,
        "decided once per session"
    );
    let err = first.call("empty_bin", json!({})).await;
    assert!(err.is_ok(), "another tool is decided anew: {err:?}");
    assert_eq!(decided.load(Ordering::SeqCst), 2);

    let (second, _) = client(server, Answer::Decline).await;
    second
        .call("delete_draft", json!({"draft": "d"}))
        .await
        .unwrap();
    assert_eq!(
        decided.load(Ordering::SeqCst),
        3,
        "a new session is decided anew"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 0, "the user was never asked");
}

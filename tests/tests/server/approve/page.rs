//! The approvals page, seen by an operator: who waits (a token without a subject named by
//! its client), and the approvals remembered, each revoked with its button.

use std::time::Duration;

use toolsmith::approve::{Approval, Approver, Grants, Page};
use toolsmith::context::Caller;
use toolsmith_tests::http::{form_value, request};

const TOKEN: &str = "operator-token-0123456789";

/// The page served on a free loopback port, once it answers.
async fn served(page: Page) -> String {
    let addr = format!("127.0.0.1:{}", toolsmith_tests::free_port());
    let serving = page.serve(addr.clone());
    tokio::spawn(async move { serving.await.unwrap() });
    for _ in 0..250 {
        if tokio::net::TcpStream::connect(&addr).await.is_ok() {
            return addr;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the page did not listen on {addr}");
}

async fn html(addr: &str) -> String {
    let bearer = format!("Bearer {TOKEN}");
    let shown = request(addr, "GET", "/", &[("Authorization", &bearer)], "").await;
    assert_eq!(shown.status, 200, "{}", shown.body);
    // No other site may frame it (and lay its own buttons over Approve), nor a cache keep it.
    assert_eq!(shown.header("x-frame-options"), Some("DENY"));
    let policy = shown.header("content-security-policy").unwrap_or_default();
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    assert_eq!(shown.header("cache-control"), Some("no-store"));
    shown.body
}

/// A token without `sub` is shown by its client and issuer, never as an empty name; the
/// local user as the local user.
#[tokio::test]
async fn a_caller_without_a_subject_is_shown_by_its_client() {
    let page = Page::new(TOKEN).unwrap();
    let addr = served(page.clone()).await;
    let claims = serde_json::json!({"iss": "https://login.example", "azp": "nightly-app"});
    let token =
        Caller::new("", ["tools:destructive"]).with_claims(claims.as_object().unwrap().clone());
    let waits = Approval::new("purge", toolsmith::Hints::DESTRUCTIVE).with_caller(token);
    let _waiting = tokio::spawn({
        let page = page.clone();
        async move { page.decide(&waits).await }
    });
    let local = Approval::new("empty_bin", toolsmith::Hints::DESTRUCTIVE);
    let _local = tokio::spawn({
        let page = page.clone();
        async move { page.decide(&local).await }
    });
    let mut shown = String::new();
    for _ in 0..250 {
        shown = html(&addr).await;
        if shown.contains("empty_bin") && shown.contains("purge") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        shown.contains("for <i>client nightly-app of https://login.example</i>"),
        "{shown}"
    );
    assert!(shown.contains("for <i>local user</i>"), "{shown}");
    assert!(!shown.contains("<i></i>"), "{shown}");
}

/// The remembered approvals are listed (caller, tool, arguments, time left), and one is
/// revoked with its button: with the page's token and form value only.
#[tokio::test]
async fn the_page_lists_the_remembered_approvals_and_revokes_one() {
    let grants = Grants::default();
    let alice = Caller::new("alice", ["notes:write"]);
    grants.grant(&alice, "delete_note", Duration::from_secs(3600));
    let addr = served(Page::new(TOKEN).unwrap().grants(grants.clone())).await;
    let shown = html(&addr).await;
    assert!(shown.contains("Remembered approvals"), "{shown}");
    assert!(
        shown.contains("<b>delete_note</b> for <i>alice</i>: every call"),
        "{shown}"
    );
    let id = form_value(&shown, "grant");
    let csrf = form_value(&shown, "csrf");
    let bearer = format!("Bearer {TOKEN}");
    let form = "application/x-www-form-urlencoded";
    let forged = format!("grant={id}&csrf=0000");
    let headers = [("Authorization", bearer.as_str()), ("Content-Type", form)];
    let refused = request(&addr, "POST", "/revoke", &headers, &forged).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let stranger = request(&addr, "POST", "/revoke", &[("Content-Type", form)], &forged).await;
    assert_eq!(stranger.status, 401);
    assert!(
        grants.holds(&alice, "delete_note").await,
        "still remembered"
    );

    let revoke = format!("grant={id}&csrf={csrf}");
    let revoked = request(&addr, "POST", "/revoke", &headers, &revoke).await;
    assert_eq!(revoked.status, 303, "{}", revoked.body);
    assert!(!grants.holds(&alice, "delete_note").await);
    assert!(html(&addr).await.contains("No approval is remembered."));
    let again = request(&addr, "POST", "/revoke", &headers, &revoke).await;
    assert_eq!(again.status, 410);
}

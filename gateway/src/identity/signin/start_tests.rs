//! The start page against a link sent to someone else (account linking): it names the gateway
//! user the account is linked to and keeps nothing until that browser continues; a second
//! browser is refused the link; a callback without the right cookie leaves the sign-in to the
//! browser that started it; the link's id is not the OAuth state.

use std::sync::Arc;

use toolsmith::context::Caller;
use toolsmith::task::MemoryStore;

use super::fake::{Fake, hidden, open_link};
use super::tests::{Gateway, callback, http, param, query};

/// A caller whose token names `claims`.
fn caller(subject: &str, claims: serde_json::Value) -> Caller {
    Caller::new(subject, ["tools:read"]).with_claims(claims.as_object().unwrap().clone())
}

/// Nothing of any user's is kept, and the upstream's token endpoint was never asked.
async fn nothing_kept(gateway: &Gateway, fake: &Fake) {
    let kept = gateway.store.scan("gateway:upstream-token:").await.unwrap();
    assert!(kept.is_empty(), "{kept:?}");
    assert!(fake.seen().token_forms.is_empty());
}

/// `POST /upstream/start` of `form` with `cookie`: its status and `Location`.
async fn post(link: &str, form: &[(&str, &str)], cookie: Option<&str>) -> (u16, Option<String>) {
    let action = url::Url::parse(link).unwrap().join("start").unwrap();
    let mut request = http()
        .post(action)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(query(form));
    if let Some(cookie) = cookie {
        request = request.header("Cookie", cookie);
    }
    let answer = request.send().await.unwrap();
    let location = answer
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned());
    (answer.status().as_u16(), location)
}

#[tokio::test]
async fn a_link_sent_to_another_user_names_its_owner_and_keeps_nothing_until_continued() {
    let fake = Fake::start().await;
    let gateway = Gateway::start(&fake, Arc::new(MemoryStore::new())).await;
    let mallory = caller(
        "m-1",
        serde_json::json!({"email": "mallory@example.com", "email_verified": true}),
    );
    let (state, link) = gateway.link(&mallory).await;
    let id = param(&url::Url::parse(&link).unwrap(), "s").unwrap();
    assert!(
        id != state && !link.contains(&state),
        "the link is not the state"
    );

    // Alice opens Mallory's link: a page naming Mallory, no redirect, nothing kept.
    let page = http().get(&link).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers().get("location").is_none());
    let csp = page.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    let cookie = page.headers()["set-cookie"].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let html = page.text().await.unwrap();
    assert!(
        html.contains("<strong>mallory@example.com</strong>"),
        "{html}"
    );
    assert!(html.contains("Continue to files"), "{html}");
    assert!(!html.contains("<script"), "{html}");
    nothing_kept(&gateway, &fake).await;

    // The form is checked against the cookie (a double submit): without it, or with another
    // value, nothing goes on.
    let csrf = hidden(&html, "csrf").unwrap();
    assert_eq!(cookie.split_once('=').unwrap().1, csrf);
    let form = [("s", id.as_str()), ("csrf", csrf.as_str())];
    assert_eq!(post(&link, &form, None).await, (400, None));
    let wrong = [("s", id.as_str()), ("csrf", "another")];
    assert_eq!(post(&link, &wrong, Some(&cookie)).await, (400, None));
    nothing_kept(&gateway, &fake).await;

    // Continued: to the upstream's authorization request (303), its state the sign-in's.
    let (status, location) = post(&link, &form, Some(&cookie)).await;
    assert_eq!(status, 303);
    let authorize = url::Url::parse(&location.unwrap()).unwrap();
    assert_eq!(param(&authorize, "state").as_deref(), Some(state.as_str()));

    // A caller with no verified email is named by their subject, escaped.
    let other = caller(
        "<b>m</b>",
        serde_json::json!({"email": "alice@example.com", "email_verified": false}),
    );
    let (_, link) = gateway.link(&other).await;
    let html = http()
        .get(&link)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("<strong>&lt;b&gt;m&lt;/b&gt;</strong>"),
        "{html}"
    );
    assert!(!html.contains("alice@example.com"), "{html}");
}

#[tokio::test]
async fn a_link_already_opened_is_refused_to_a_second_browser() {
    let fake = Fake::start().await;
    let gateway = Gateway::start(&fake, Arc::new(MemoryStore::new())).await;
    let alice = Caller::new("alice", ["tools:read"]);
    let (state, link) = gateway.link(&alice).await;
    let first = http().get(&link).send().await.unwrap();
    assert_eq!(first.status(), 200);
    let cookie = first.headers()["set-cookie"].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let csrf = hidden(&first.text().await.unwrap(), "csrf").unwrap();

    // Another browser: without the cookie, or with another value of it.
    let (name, _) = cookie.split_once('=').unwrap();
    for other in [None, Some(format!("{name}=another"))] {
        let mut request = http().get(&link);
        if let Some(other) = &other {
            request = request.header("Cookie", other);
        }
        let second = request.send().await.unwrap();
        assert_eq!(second.status(), 409);
        assert!(second.headers().get("set-cookie").is_none());
        let html = second.text().await.unwrap();
        assert!(html.contains("already opened in another browser"), "{html}");
    }

    // The browser that opened it opens it again: the same page, the same value.
    let again = http()
        .get(&link)
        .header("Cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
    assert_eq!(
        hidden(&again.text().await.unwrap(), "csrf").as_ref(),
        Some(&csrf)
    );
    let id = param(&url::Url::parse(&link).unwrap(), "s").unwrap();
    let form = [("s", id.as_str()), ("csrf", csrf.as_str())];
    let (status, location) = post(&link, &form, Some(&cookie)).await;
    assert_eq!(status, 303);
    let authorize = url::Url::parse(&location.unwrap()).unwrap();
    fake.seen().challenge = param(&authorize, "code_challenge").unwrap();
    let q = query(&[("code", "good-code"), ("state", &state)]);
    assert_eq!(callback(&gateway.origin, &q, Some(&cookie)).await.0, 200);
    assert_eq!(gateway.token_of(&alice).await.as_deref(), Some("at-1"));
}

#[tokio::test]
async fn a_callback_without_the_right_cookie_leaves_the_sign_in_to_the_right_browser() {
    let fake = Fake::start().await;
    let gateway = Gateway::start(&fake, Arc::new(MemoryStore::new())).await;
    let alice = Caller::new("alice", ["tools:read"]);
    let (state, link) = gateway.link(&alice).await;
    let (authorize, cookie) = open_link(&http(), &link).await;
    fake.seen().challenge = param(&authorize, "code_challenge").unwrap();
    let (name, _) = cookie.split_once('=').unwrap();
    let q = query(&[("code", "good-code"), ("state", &state)]);

    // Another browser (another value of the cookie, or none) is refused ...
    let wrong = format!("{name}=another");
    for other in [Some(wrong.as_str()), None] {
        let (status, page) = callback(&gateway.origin, &q, other).await;
        assert!(
            status == 400 && page.contains("did not start in this browser"),
            "{page}"
        );
    }
    // ... and the link's id, even with the right cookie, is not the state.
    let id = param(&url::Url::parse(&link).unwrap(), "s").unwrap();
    let by_link = query(&[("code", "good-code"), ("state", &id)]);
    let (status, page) = callback(&gateway.origin, &by_link, Some(&cookie)).await;
    assert!(status == 400 && page.contains("unknown"), "{page}");
    nothing_kept(&gateway, &fake).await;

    // The browser that started it still signs in, once.
    let (status, page) = callback(&gateway.origin, &q, Some(&cookie)).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(gateway.token_of(&alice).await.as_deref(), Some("at-1"));
    let (status, page) = callback(&gateway.origin, &q, Some(&cookie)).await;
    assert!(status == 400 && page.contains("already used"), "{page}");
}

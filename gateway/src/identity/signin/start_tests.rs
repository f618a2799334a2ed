//! The start page against a link sent to someone else (account linking): it names the gateway
//! user the account is linked to and keeps nothing until that browser continues; a link
//! preview's visit binds nothing; a second browser is refused the link once one continued; a
//! callback without the right cookie leaves the sign-in to the browser that started it; the
//! link's id is not the OAuth state.

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

/// A browser opening `link` (with `cookie`, if it has one): its status, the cookie it was
/// given (`name=value`) and the form's `csrf`.
async fn open(link: &str, cookie: Option<&str>) -> (u16, Option<String>, Option<String>) {
    let mut request = http().get(link);
    if let Some(cookie) = cookie {
        request = request.header("Cookie", cookie);
    }
    let page = request.send().await.unwrap();
    let status = page.status().as_u16();
    let given = page
        .headers()
        .get("set-cookie")
        .map(|c| c.to_str().unwrap().split(';').next().unwrap().to_owned());
    let csrf = hidden(&page.text().await.unwrap(), "csrf");
    (status, given, csrf)
}

#[tokio::test]
async fn a_link_preview_binds_nothing_and_the_user_still_signs_in() {
    let fake = Fake::start().await;
    let gateway = Gateway::start(&fake, Arc::new(MemoryStore::new())).await;
    let alice = Caller::new("alice", ["tools:read"]);
    let (state, link) = gateway.link(&alice).await;
    // A chat app's preview fetches the link first (and maybe again, keeping its cookie).
    let (status, bot, _) = open(&link, None).await;
    assert_eq!(status, 200);
    assert_eq!(open(&link, bot.as_deref()).await.0, 200);
    nothing_kept(&gateway, &fake).await;
    let bound = gateway.store.scan("gateway:signin-bound:").await.unwrap();
    assert!(bound.is_empty(), "an opening binds nothing: {bound:?}");

    // The user's browser then opens it and continues: to the authorization request.
    let (authorize, cookie) = open_link(&http(), &link).await;
    assert_eq!(param(&authorize, "state").as_deref(), Some(state.as_str()));
    fake.seen().challenge = param(&authorize, "code_challenge").unwrap();
    let q = query(&[("code", "good-code"), ("state", &state)]);
    assert_eq!(callback(&gateway.origin, &q, Some(&cookie)).await.0, 200);
    assert_eq!(gateway.token_of(&alice).await.as_deref(), Some("at-1"));
}

#[tokio::test]
async fn a_link_continued_in_one_browser_is_refused_to_another() {
    let fake = Fake::start().await;
    let gateway = Gateway::start(&fake, Arc::new(MemoryStore::new())).await;
    let alice = Caller::new("alice", ["tools:read"]);
    let (state, link) = gateway.link(&alice).await;
    let id = param(&url::Url::parse(&link).unwrap(), "s").unwrap();
    // Two browsers open it: each gets a page, a cookie and a value of its own.
    let (_, first, first_csrf) = open(&link, None).await;
    let (_, second, second_csrf) = open(&link, None).await;
    let (first, first_csrf) = (first.unwrap(), first_csrf.unwrap());
    let (second, second_csrf) = (second.unwrap(), second_csrf.unwrap());
    assert_ne!(first, second);

    // The first to post its form binds the link; the second's form is refused.
    let form = [("s", id.as_str()), ("csrf", first_csrf.as_str())];
    let (status, location) = post(&link, &form, Some(&first)).await;
    assert_eq!(status, 303);
    let other = [("s", id.as_str()), ("csrf", second_csrf.as_str())];
    assert_eq!(post(&link, &other, Some(&second)).await, (409, None));
    let (status, given, _) = open(&link, Some(&second)).await;
    assert_eq!(
        (status, given),
        (409, None),
        "nor is it shown the page again"
    );
    let html = http()
        .get(&link)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("already continued in another browser"),
        "{html}"
    );

    // The browser that bound it opens it again: the same value, and it goes on.
    let (status, _, csrf) = open(&link, Some(&first)).await;
    assert_eq!((status, csrf.as_ref()), (200, Some(&first_csrf)));
    assert_eq!(post(&link, &form, Some(&first)).await.0, 303);
    let authorize = url::Url::parse(&location.unwrap()).unwrap();
    fake.seen().challenge = param(&authorize, "code_challenge").unwrap();
    let q = query(&[("code", "good-code"), ("state", &state)]);
    let (status, page) = callback(&gateway.origin, &q, Some(&first)).await;
    assert_eq!(status, 200, "{page}");
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

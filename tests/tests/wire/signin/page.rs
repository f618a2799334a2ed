//! The pages a browser sees: the consent page says who asks and what for, escapes what the
//! client chose (its name), is never framed nor cached, and is answered once; error pages
//! never echo the request's markup.

use serde_json::{Value, json};

use super::{Browser, Pkce, REDIRECT, Signin, form, refused_page};

const EVIL: &str = "Evil <script>alert(1)</script> & \"co\"";

#[tokio::test]
async fn the_consent_page_names_the_client_safely_and_cannot_be_framed() {
    let signin = Signin::start(&[]).await;
    let response = signin
        .register(&json!({"client_name": EVIL, "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "none"}))
        .await;
    assert_eq!(response.status, 201, "{}", response.body);
    let body: Value = serde_json::from_str(&response.body).unwrap();
    let client_id = body["client_id"].as_str().unwrap();
    let browser = Browser::new();
    let path = signin.authorize_path(client_id, &Pkce::new(), &[]);
    let callback = signin.sign_in(&browser, &path).await;
    let location = callback.header("location").expect("to the consent page");
    let raw = browser.go(signin.addr(), location).await;
    assert_eq!(raw.status, 200, "{}", raw.body);
    let html = &raw.body;
    assert!(
        !html.contains("<script>alert(1)"),
        "the client's name is markup: {html}"
    );
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    assert!(
        html.contains("unverified"),
        "a registered client is unverified: {html}"
    );
    assert!(html.contains("127.0.0.1"), "its redirect host: {html}");
    for title in ["Get note", "Create note", "Delete note"] {
        assert!(html.contains(title), "the tools it opens ({title}): {html}");
    }
    let framing = raw
        .header("x-frame-options")
        .unwrap_or_default()
        .to_ascii_lowercase();
    let policy = raw.header("content-security-policy").unwrap_or_default();
    assert!(
        framing == "deny" || policy.contains("frame-ancestors 'none'"),
        "the consent page may be framed: {:?}",
        raw.headers
    );
    assert!(
        raw.header("cache-control")
            .unwrap_or_default()
            .contains("no-store"),
        "{:?}",
        raw.headers
    );
}

#[tokio::test]
async fn a_consent_is_answered_once() {
    let signin = Signin::start(&[]).await;
    let client_id = signin.client().await;
    let (browser, _, page) = signin.consent_for(&client_id).await;
    signin.code_of(&signin.allow(&browser, &page, &["tools:read"], false).await);
    let again = signin.allow(&browser, &page, &["tools:read"], false).await;
    assert_eq!(again.status, 400, "the same answer again: {}", again.body);
    assert!(again.header("location").is_none(), "{:?}", again.headers);
}

#[tokio::test]
async fn error_pages_do_not_echo_markup() {
    let signin = Signin::start(&[]).await;
    let client_id = signin.client().await;
    let pkce = Pkce::new();
    let markup = "<script>alert(1)</script>";
    let redirect = format!("{REDIRECT}\"><script>alert(1)</script>");
    for (what, changes) in [
        ("a client_id of markup", vec![("client_id", markup)]),
        (
            "a redirect_uri of markup",
            vec![("redirect_uri", redirect.as_str())],
        ),
        (
            "a state of markup, bad redirect",
            vec![("state", markup), ("redirect_uri", "https://evil.example/")],
        ),
    ] {
        let path = signin.authorize_path(&client_id, &pkce, &changes);
        let response = Browser::new().get(signin.addr(), &path).await;
        refused_page(&response, what);
        assert!(
            !response.body.contains("<script>alert(1)"),
            "{what}: {}",
            response.body
        );
    }
    // A made-up consent answer.
    let made_up = form(&[("pending", markup), ("csrf", markup), ("decision", "allow")]);
    let response = Browser::new()
        .post_form(signin.addr(), "/oauth/consent", &made_up)
        .await;
    assert!((400..500).contains(&response.status), "{}", response.body);
    assert!(
        !response.body.contains("<script>alert(1)"),
        "{}",
        response.body
    );
}

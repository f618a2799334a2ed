//! The consent page: only the signed-in browser may answer it (its cookie and the page's
//! csrf), the scopes granted are the token's, a remembered consent skips it, and a scope
//! restricted to a group is never offered to (nor granted to) anyone else.

use serde_json::json;

use super::{ALL, Browser, Pkce, REDIRECT, Signin, claims, form, param, tokens_of};

#[tokio::test]
async fn a_consent_without_the_cookie_or_with_a_wrong_csrf_is_forbidden() {
    let signin = Signin::start(&[]).await;
    let client_id = signin.client().await;
    let browser = Browser::new();
    let path = signin.authorize_path(&client_id, &Pkce::new(), &[]);
    let callback = signin.sign_in(&browser, &path).await;
    let page = signin.consent_page(&browser, &callback).await;
    assert!(
        browser.has("toolsmith_signin"),
        "the callback sets the sign-in cookie"
    );
    let allow = |csrf: &str| {
        form(&[
            ("pending", page.pending.as_str()),
            ("csrf", csrf),
            ("scope", "tools:read"),
            ("decision", "allow"),
        ])
    };

    // Another browser (no cookie), with the right csrf.
    let response = Browser::new()
        .post_form(signin.addr(), "/oauth/consent", &allow(&page.csrf))
        .await;
    assert_eq!(response.status, 403, "no cookie: {}", response.body);
    assert!(
        response.header("location").is_none(),
        "no cookie: {:?}",
        response.headers
    );
    // The signed-in browser, with a wrong csrf.
    let wrong = format!("{}x", page.csrf);
    let response = browser
        .post_form(signin.addr(), "/oauth/consent", &allow(&wrong))
        .await;
    assert_eq!(response.status, 403, "wrong csrf: {}", response.body);
    assert!(
        response.header("location").is_none(),
        "wrong csrf: {:?}",
        response.headers
    );
    // No csrf at all.
    let none = form(&[("pending", page.pending.as_str()), ("decision", "allow")]);
    let response = browser
        .post_form(signin.addr(), "/oauth/consent", &none)
        .await;
    assert_eq!(response.status, 403, "no csrf: {}", response.body);

    // The page itself needs the cookie too.
    let location = callback.header("location").unwrap();
    let response = Browser::new().go(signin.addr(), location).await;
    assert!(
        (400..500).contains(&response.status),
        "the consent page without the cookie: {} {}",
        response.status,
        response.body
    );
    assert!(
        !response.body.contains(&page.csrf),
        "the page's csrf shown to another browser"
    );
}

#[tokio::test]
async fn a_denied_consent_goes_back_with_access_denied() {
    let signin = Signin::start(&[]).await;
    let client_id = signin.client().await;
    let (browser, _, page) = signin.consent_for(&client_id).await;
    let deny = form(&[
        ("pending", &page.pending),
        ("csrf", &page.csrf),
        ("decision", "deny"),
    ]);
    let response = browser
        .post_form(signin.addr(), "/oauth/consent", &deny)
        .await;
    assert_eq!(response.status, 302, "{}", response.body);
    let location = response.header("location").unwrap();
    assert!(location.starts_with(&format!("{REDIRECT}?")), "{location}");
    assert_eq!(
        param(location, "error").as_deref(),
        Some("access_denied"),
        "{location}"
    );
    assert_eq!(
        param(location, "state").as_deref(),
        Some("st-1"),
        "{location}"
    );
    assert!(param(location, "code").is_none(), "{location}");
}

#[tokio::test]
async fn a_token_of_tools_read_cannot_delete() {
    let signin = Signin::start(&[]).await;
    let tokens = signin.tokens(&["tools:read"]).await;
    assert_eq!(tokens.body["scope"], "tools:read", "{}", tokens.body);
    assert_eq!(claims(&tokens.access)["scope"], "tools:read");
    let names = signin.tool_names(&tokens.access).await;
    assert!(names.iter().any(|n| n == "get_note"), "{names:?}");
    assert!(!names.iter().any(|n| n == "delete_note"), "{names:?}");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "delete_note", "arguments": {"note_id": 1}}});
    let response = signin.mcp(&tokens.access, &call).await;
    assert_eq!(response.status, 403, "{}", response.body);
    let challenge = response.header("www-authenticate").expect("a challenge");
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(
        challenge.contains("scope=\"tools:destructive\""),
        "{challenge}"
    );
}

#[tokio::test]
async fn a_remembered_consent_skips_the_page() {
    let signin = Signin::start(&[]).await;
    let client_id = signin.client().await;
    let browser = Browser::new();
    let scopes = ["tools:read", "tools:write"];
    let ask = |pkce: &Pkce| {
        signin.authorize_path(&client_id, pkce, &[("scope", "tools:read tools:write")])
    };

    // Not remembered: the page again the next time.
    let page = signin
        .consent_page(
            &browser,
            &signin.sign_in(&browser, &ask(&Pkce::new())).await,
        )
        .await;
    assert!(page.remember, "the page offers to remember: {}", page.html);
    signin.code_of(&signin.allow(&browser, &page, &scopes, false).await);
    let page = signin
        .consent_page(
            &browser,
            &signin.sign_in(&browser, &ask(&Pkce::new())).await,
        )
        .await;
    // Remembered: the callback goes straight to the client with a code that works.
    signin.code_of(&signin.allow(&browser, &page, &scopes, true).await);
    let pkce = Pkce::new();
    let callback = signin.sign_in(&browser, &ask(&pkce)).await;
    let code = signin.code_of(&callback);
    let tokens = tokens_of(
        client_id.clone(),
        &signin.redeem(&client_id, &code, &pkce.verifier).await,
    );
    let mut granted: Vec<&str> = tokens.body["scope"].as_str().unwrap().split(' ').collect();
    granted.sort();
    assert_eq!(granted, scopes, "{}", tokens.body);
    // prompt=consent asks again, although remembered.
    let again = signin.authorize_path(
        &client_id,
        &Pkce::new(),
        &[("scope", "tools:read tools:write"), ("prompt", "consent")],
    );
    let callback = signin.sign_in(&browser, &again).await;
    signin.consent_page(&browser, &callback).await;
    // A request for more than was remembered asks again.
    let more = signin.authorize_path(&client_id, &Pkce::new(), &[("scope", ALL)]);
    let callback = signin.sign_in(&browser, &more).await;
    signin.consent_page(&browser, &callback).await;
}

#[tokio::test]
async fn a_restricted_scope_is_kept_from_users_outside_its_group() {
    let restrict = ["--signin-restrict", "tools:destructive=group:admins"];
    let signin = Signin::start_as("bob", &restrict).await;
    let client_id = signin.client().await;
    let (browser, pkce, page) = signin.consent_for(&client_id).await;
    assert!(
        page.scopes.iter().any(|s| s == "tools:read"),
        "{:?}",
        page.scopes
    );
    assert!(
        !page.scopes.iter().any(|s| s == "tools:destructive"),
        "offered to bob: {:?}",
        page.scopes
    );
    // A tampered form asks for it all the same.
    let all: Vec<&str> = ALL.split(' ').collect();
    let code = signin.code_of(&signin.allow(&browser, &page, &all, false).await);
    let tokens = tokens_of(
        client_id.clone(),
        &signin.redeem(&client_id, &code, &pkce.verifier).await,
    );
    let scope = claims(&tokens.access)["scope"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        !scope.split(' ').any(|s| s == "tools:destructive"),
        "bob's token: {scope}"
    );
    assert!(
        !tokens.body["scope"]
            .as_str()
            .unwrap_or_default()
            .contains("destructive"),
        "{}",
        tokens.body
    );
    let names = signin.tool_names(&tokens.access).await;
    assert!(!names.iter().any(|n| n == "delete_note"), "{names:?}");

    // alice is in admins: it is offered to her.
    signin.idp.switch_to("alice").await;
    let (_, _, page) = signin.consent_for(&client_id).await;
    assert!(
        page.scopes.iter().any(|s| s == "tools:destructive"),
        "{:?}",
        page.scopes
    );
}

#[tokio::test]
async fn signing_out_forgets_the_remembered_consent() {
    let signin = Signin::start(&[]).await;
    let client_id = signin.client().await;
    let (browser, pkce, page) = signin.consent_for(&client_id).await;
    let code = signin.code_of(&signin.allow(&browser, &page, &["tools:read"], true).await);
    let tokens = tokens_of(
        client_id.clone(),
        &signin.redeem(&client_id, &code, &pkce.verifier).await,
    );
    // Remembered: no page.
    let path = signin.authorize_path(&client_id, &Pkce::new(), &[("scope", "tools:read")]);
    signin.code_of(&signin.sign_in(&browser, &path).await);
    // Signing out (the refresh token revoked) forgets it: the page again.
    assert_eq!(signin.revoke(&client_id, &tokens.refresh).await.status, 200);
    let callback = signin.sign_in(&browser, &path).await;
    signin.consent_page(&browser, &callback).await;
}

#[tokio::test]
async fn a_scope_kept_from_a_user_keeps_the_scopes_that_imply_it() {
    let restrict = ["--signin-restrict", "tools:write=group:nobody"];
    let signin = Signin::start(&restrict).await;
    let client_id = signin.client().await;
    let (_, _, page) = signin.consent_for(&client_id).await;
    assert_eq!(
        page.scopes,
        ["tools:read"],
        "destructive implies write: {:?}",
        page.scopes
    );
}

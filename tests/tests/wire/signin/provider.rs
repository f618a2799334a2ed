//! What the server believes of the provider: an id_token received over the back channel is
//! still checked (its issuer, audience, nonce and expiry), user-info about another user than
//! the id_token's is ignored, and an email rule matches verified emails only.

use super::{Browser, Pkce, REDIRECT, Signin, claims, param, refused_page, tokens_of};

#[tokio::test]
async fn a_forged_id_token_ends_the_sign_in_without_a_code() {
    let signin = Signin::start(&[]).await;
    let client_id = signin.client().await;
    for what in ["nonce", "aud", "iss", "exp"] {
        signin.idp.tamper(what).await;
        let browser = Browser::new();
        let path = signin.authorize_path(&client_id, &Pkce::new(), &[]);
        let callback = signin.sign_in(&browser, &path).await;
        assert_eq!(callback.status, 302, "{what}: {}", callback.body);
        let location = callback.header("location").unwrap_or_default();
        assert!(
            location.starts_with(&format!("{REDIRECT}?")),
            "{what}: {location}"
        );
        assert!(param(location, "error").is_some(), "{what}: {location}");
        assert_eq!(
            param(location, "state").as_deref(),
            Some("st-1"),
            "{what}: {location}"
        );
        assert!(param(location, "code").is_none(), "{what}: {location}");
    }
    // Honest again: the same client gets to the consent page.
    signin.idp.tamper("").await;
    let browser = Browser::new();
    let path = signin.authorize_path(&client_id, &Pkce::new(), &[]);
    let callback = signin.sign_in(&browser, &path).await;
    signin.consent_page(&browser, &callback).await;
}

#[tokio::test]
async fn user_info_about_another_user_is_ignored() {
    // bob's id_token carries no groups; the user-info endpoint answers with alice's, admins.
    let restrict = ["--signin-restrict", "tools:destructive=group:admins"];
    let signin = Signin::start_as("bob", &restrict).await;
    signin.idp.tamper("userinfo_other").await;
    let client_id = signin.client().await;
    let (browser, pkce, page) = signin.consent_for(&client_id).await;
    assert!(
        !page.scopes.iter().any(|s| s == "tools:destructive"),
        "bob offered alice's scope: {:?}",
        page.scopes
    );
    let code = signin.code_of(&signin.allow(&browser, &page, &["tools:read"], false).await);
    let tokens = tokens_of(
        client_id.clone(),
        &signin.redeem(&client_id, &code, &pkce.verifier).await,
    );
    let token = claims(&tokens.access);
    assert_eq!(token["sub"], "user-bob", "{token}");
    assert_eq!(token["email"], "bob@example.com", "{token}");
    let groups = token["groups"].as_array().cloned().unwrap_or_default();
    assert!(!groups.iter().any(|g| g == "admins"), "{token}");
}

#[tokio::test]
async fn an_unverified_email_does_not_match_an_email_rule() {
    let restrict = ["--signin-restrict", "tools:destructive=email:*@example.com"];
    let signin = Signin::start_as("mallory", &restrict).await;
    let client_id = signin.client().await;
    let (_, _, page) = signin.consent_for(&client_id).await;
    assert!(
        page.scopes.iter().any(|s| s == "tools:read"),
        "{:?}",
        page.scopes
    );
    assert!(
        !page.scopes.iter().any(|s| s == "tools:destructive"),
        "an unverified mallory@example.com was offered it: {:?}",
        page.scopes
    );
    // bob's example.com email is verified.
    signin.idp.switch_to("bob").await;
    let (_, _, page) = signin.consent_for(&client_id).await;
    assert!(
        page.scopes.iter().any(|s| s == "tools:destructive"),
        "{:?}",
        page.scopes
    );
}

#[tokio::test]
async fn a_callback_is_taken_once() {
    let signin = Signin::start(&[]).await;
    let client_id = signin.client().await;
    let browser = Browser::new();
    let path = signin.authorize_path(&client_id, &Pkce::new(), &[]);
    let to_provider = browser.get(signin.addr(), &path).await;
    let location = to_provider.header("location").expect("to the provider");
    let back = browser.go(signin.addr(), location).await;
    let callback = back
        .header("location")
        .expect("back to the callback")
        .to_owned();
    let first = browser.go(signin.addr(), &callback).await;
    signin.consent_page(&browser, &first).await;
    // The same redirect again (a replay, or a back button): refused, no second sign-in.
    let again = browser.go(signin.addr(), &callback).await;
    refused_page(&again, "the callback again");
    // A callback of no sign-in at all.
    let forged = format!(
        "/oauth/callback?code=made-up&state=made-up&iss={}",
        super::web::encode(&signin.idp.url)
    );
    refused_page(
        &Browser::new().go(signin.addr(), &forged).await,
        "a made-up callback",
    );
}

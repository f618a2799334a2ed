//! A confidential client (registered with `client_secret_basic` or `client_secret_post`)
//! proves itself at the token endpoint: without its secret, or with a wrong one, its code is
//! refused with 401 `invalid_client` (and stays redeemable by the client itself).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use toolsmith_tests::http::{Response, request};

use super::{REDIRECT, Signin, form, tokens_of};

/// Registers a client of [`REDIRECT`] authenticating with `method`: its id and secret.
async fn confidential(signin: &Signin, method: &str) -> (String, String) {
    let response = signin
        .register(
            &json!({"client_name": "Web app", "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": method}),
        )
        .await;
    assert_eq!(response.status, 201, "{}", response.body);
    let body: Value = serde_json::from_str(&response.body).unwrap();
    (
        body["client_id"].as_str().unwrap().to_owned(),
        body["client_secret"]
            .as_str()
            .expect("a client_secret")
            .to_owned(),
    )
}

/// Redeems `code` with `fields` added and `basic` credentials (id, secret) when given.
async fn redeem(
    signin: &Signin,
    code: &str,
    verifier: &str,
    fields: &[(&str, &str)],
    basic: Option<(&str, &str)>,
) -> Response {
    let mut all = vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", REDIRECT),
        ("code_verifier", verifier),
    ];
    all.extend_from_slice(fields);
    let authorization =
        basic.map(|(id, secret)| format!("Basic {}", STANDARD.encode(format!("{id}:{secret}"))));
    let mut headers = vec![("Content-Type", "application/x-www-form-urlencoded")];
    if let Some(value) = &authorization {
        headers.push(("Authorization", value.as_str()));
    }
    request(signin.addr(), "POST", "/oauth/token", &headers, &form(&all)).await
}

fn invalid_client(response: &Response, what: &str) {
    assert_eq!(response.status, 401, "{what}: {}", response.body);
    let body: Value =
        serde_json::from_str(&response.body).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(body["error"], "invalid_client", "{what}: {body}");
}

#[tokio::test]
async fn a_confidential_client_needs_its_secret_at_the_token_endpoint() {
    let signin = Signin::start(&[]).await;

    let (id, secret) = confidential(&signin, "client_secret_basic").await;
    let (pkce, code) = signin.code_for(&id, &["tools:read"]).await;
    let verifier = pkce.verifier.as_str();
    let no_secret = redeem(&signin, &code, verifier, &[("client_id", &id)], None).await;
    invalid_client(&no_secret, "basic: no secret");
    let wrong = redeem(&signin, &code, verifier, &[], Some((&id, "not-the-secret"))).await;
    invalid_client(&wrong, "basic: a wrong secret");
    let good = redeem(&signin, &code, verifier, &[], Some((&id, &secret))).await;
    let tokens = tokens_of(id.clone(), &good);
    assert!(!signin.tool_names(&tokens.access).await.is_empty());

    let (id, secret) = confidential(&signin, "client_secret_post").await;
    let (pkce, code) = signin.code_for(&id, &["tools:read"]).await;
    let verifier = pkce.verifier.as_str();
    let wrong = redeem(
        &signin,
        &code,
        verifier,
        &[("client_id", &id), ("client_secret", "nope")],
        None,
    )
    .await;
    invalid_client(&wrong, "post: a wrong secret");
    let good = redeem(
        &signin,
        &code,
        verifier,
        &[("client_id", &id), ("client_secret", &secret)],
        None,
    )
    .await;
    tokens_of(id, &good);
}

//! The whole flow, as a client and its user's browser go through it: authorize, the
//! provider, the callback, the consent page, the code, the token, and the token at /mcp.
//! Then the code's single use and its PKCE binding.

use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header, jwk::JwkSet};
use serde_json::Value;

use super::{ALL, REDIRECT, Signin, claims, invalid_grant};

#[tokio::test]
async fn the_whole_flow_ends_in_a_token_that_works_at_mcp() {
    let signin = Signin::start(&[]).await;
    let all: Vec<&str> = ALL.split(' ').collect();
    let tokens = signin.tokens(&all).await;

    // The answer of the token endpoint.
    assert!(
        tokens.body["expires_in"]
            .as_u64()
            .is_some_and(|s| s > 0 && s <= 600),
        "{}",
        tokens.body
    );
    let mut granted: Vec<&str> = tokens.body["scope"]
        .as_str()
        .unwrap_or_default()
        .split(' ')
        .collect();
    granted.sort();
    assert_eq!(
        granted,
        ["tools:destructive", "tools:read", "tools:write"],
        "{}",
        tokens.body
    );

    // The access token: an ES256 JWT of type at+jwt, signed by a key of /oauth/jwks.
    let header = decode_header(&tokens.access).expect("a JWT header");
    assert_eq!(header.alg, Algorithm::ES256);
    assert_eq!(header.typ.as_deref(), Some("at+jwt"));
    let jwks: JwkSet = serde_json::from_value(signin.json("/oauth/jwks").await).expect("a JWKS");
    let kid = header.kid.as_deref().expect("a kid");
    let jwk = jwks
        .find(kid)
        .unwrap_or_else(|| panic!("kid {kid} in /oauth/jwks"));
    let mut validation = Validation::new(Algorithm::ES256);
    validation.set_audience(&[signin.resource.as_str()]);
    validation.set_issuer(&[signin.issuer.as_str()]);
    let verified = decode::<Value>(
        &tokens.access,
        &DecodingKey::from_jwk(jwk).unwrap(),
        &validation,
    )
    .expect("the access token verifies with the published key")
    .claims;
    assert_eq!(verified, claims(&tokens.access));
    assert_eq!(verified["sub"], "user-alice", "{verified}");
    assert_eq!(verified["idp"], signin.idp.url.as_str(), "{verified}");
    assert_eq!(verified["email"], "alice@example.com", "{verified}");
    assert_eq!(
        verified["client_id"],
        tokens.client_id.as_str(),
        "{verified}"
    );
    assert!(
        verified["groups"]
            .as_array()
            .is_some_and(|g| g.iter().any(|g| g == "admins")),
        "{verified}"
    );
    assert!(verified["jti"].is_string(), "{verified}");

    // It works at /mcp: every tool is listed, a call runs.
    let names = signin.tool_names(&tokens.access).await;
    for tool in ["get_note", "create_note", "delete_note"] {
        assert!(names.iter().any(|n| n == tool), "{tool} in {names:?}");
    }
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_note", "arguments": {"note_id": 1}}});
    let response = signin.mcp(&tokens.access, &call).await;
    assert_eq!(response.status, 200, "{}", response.body);
    let message = response.messages().pop().expect("a message");
    assert!(message.get("result").is_some(), "{message}");

    // The server redeemed the provider's code over the back channel.
    let log = signin.idp.log().await;
    assert!(
        log.iter()
            .any(|r| r["method"] == "POST" && r["path"] == "/token"),
        "{log:?}"
    );
}

#[tokio::test]
async fn a_code_is_redeemed_once() {
    let signin = Signin::start(&[]).await;
    let (client_id, pkce, code) = signin.code(&["tools:read"]).await;
    let first = signin.redeem(&client_id, &code, &pkce.verifier).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let second = signin.redeem(&client_id, &code, &pkce.verifier).await;
    invalid_grant(&second, "the same code again");
}

#[tokio::test]
async fn a_code_needs_its_code_verifier() {
    let signin = Signin::start(&[]).await;
    let (client_id, _, code) = signin.code(&["tools:read"]).await;
    let other = super::Pkce::new();
    let response = signin.redeem(&client_id, &code, &other.verifier).await;
    invalid_grant(&response, "another code_verifier");
    let (client_id, _, code) = signin.code(&["tools:read"]).await;
    let response = signin
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("client_id", &client_id),
        ])
        .await;
    assert_eq!(response.status, 400, "no code_verifier: {}", response.body);
}

#[tokio::test]
async fn a_code_is_bound_to_its_client_and_redirect_uri() {
    let signin = Signin::start(&[]).await;
    let (client_id, pkce, code) = signin.code(&["tools:read"]).await;
    let response = signin
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", "http://127.0.0.1:38123/elsewhere"),
            ("code_verifier", &pkce.verifier),
            ("client_id", &client_id),
        ])
        .await;
    invalid_grant(&response, "another redirect_uri");

    let (_, pkce, code) = signin.code(&["tools:read"]).await;
    let stranger = signin.client().await;
    let response = signin.redeem(&stranger, &code, &pkce.verifier).await;
    assert_eq!(response.status, 400, "another client: {}", response.body);
    let body: Value = serde_json::from_str(&response.body).unwrap();
    assert_eq!(body["error"], "invalid_grant", "another client: {body}");
}

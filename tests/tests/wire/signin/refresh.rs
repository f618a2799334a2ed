//! The token lifecycle after the code: a refresh token rotates, an old one reused revokes
//! its whole family, and revocation (RFC 7009) ends an access token at /mcp and a refresh
//! token at the token endpoint.

use super::{Signin, claims, invalid_grant, tokens_of};

#[tokio::test]
async fn a_refresh_token_rotates() {
    let signin = Signin::start(&[]).await;
    let first = signin.tokens(&["tools:read", "tools:write"]).await;
    let response = signin.refresh(&first.client_id, &first.refresh).await;
    let second = tokens_of(first.client_id.clone(), &response);
    assert_ne!(second.refresh, first.refresh, "the refresh token rotates");
    assert_ne!(second.access, first.access);
    assert_eq!(claims(&second.access)["sub"], "user-alice");
    assert_eq!(
        claims(&second.access)["fam"],
        claims(&first.access)["fam"],
        "one family"
    );
    assert!(!signin.tool_names(&second.access).await.is_empty());

    // A narrower scope may be asked for on refresh, never a wider one.
    let narrower = signin
        .token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", &second.refresh),
            ("client_id", &second.client_id),
            ("scope", "tools:read"),
        ])
        .await;
    let third = tokens_of(first.client_id.clone(), &narrower);
    assert_eq!(
        claims(&third.access)["scope"],
        "tools:read",
        "{}",
        third.body
    );

    // The refresh token is its client's only.
    let stranger = signin.client().await;
    let response = signin.refresh(&stranger, &third.refresh).await;
    invalid_grant(&response, "another client's refresh token");
}

#[tokio::test]
async fn a_reused_refresh_token_revokes_its_family() {
    let signin = Signin::start(&[]).await;
    let first = signin.tokens(&["tools:read"]).await;
    let second = tokens_of(
        first.client_id.clone(),
        &signin.refresh(&first.client_id, &first.refresh).await,
    );
    // The old one again: refused, and the family with it.
    let reused = signin.refresh(&first.client_id, &first.refresh).await;
    invalid_grant(&reused, "the old refresh token reused");
    let newer = signin.refresh(&second.client_id, &second.refresh).await;
    invalid_grant(
        &newer,
        "the newer refresh token after the family was revoked",
    );
    // The family's access token too.
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let response = signin.mcp(&second.access, &list).await;
    assert_eq!(
        response.status, 401,
        "an access token of a revoked family: {}",
        response.body
    );
}

#[tokio::test]
async fn a_revoked_access_token_is_refused_at_mcp() {
    let signin = Signin::start(&[]).await;
    let tokens = signin.tokens(&["tools:read"]).await;
    assert!(!signin.tool_names(&tokens.access).await.is_empty());
    let response = signin.revoke(&tokens.client_id, &tokens.access).await;
    assert_eq!(response.status, 200, "{}", response.body);
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let response = signin.mcp(&tokens.access, &list).await;
    assert_eq!(
        response.status, 401,
        "a revoked access token: {}",
        response.body
    );
    let challenge = response.header("www-authenticate").unwrap_or_default();
    assert!(challenge.contains("invalid_token"), "{challenge}");
}

#[tokio::test]
async fn a_revoked_refresh_token_cannot_refresh() {
    let signin = Signin::start(&[]).await;
    let tokens = signin.tokens(&["tools:read"]).await;
    let response = signin.revoke(&tokens.client_id, &tokens.refresh).await;
    assert_eq!(response.status, 200, "{}", response.body);
    let response = signin.refresh(&tokens.client_id, &tokens.refresh).await;
    invalid_grant(&response, "a revoked refresh token");
    // Its family's access token goes with it.
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let response = signin.mcp(&tokens.access, &list).await;
    assert_eq!(
        response.status, 401,
        "the access token of a revoked refresh token: {}",
        response.body
    );
    // An unknown token is "revoked" too (RFC 7009: 200, nothing told).
    let response = signin.revoke(&tokens.client_id, "not-a-token").await;
    assert_eq!(response.status, 200, "{}", response.body);
}

#[tokio::test]
async fn a_refresh_asking_more_scope_is_refused_and_the_token_still_works() {
    let signin = Signin::start(&[]).await;
    let tokens = signin.tokens(&["tools:read"]).await;
    let wider = signin
        .token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", &tokens.refresh),
            ("client_id", &tokens.client_id),
            ("scope", "tools:read tools:destructive"),
        ])
        .await;
    assert_eq!(wider.status, 400, "a wider scope: {}", wider.body);
    let body: serde_json::Value = serde_json::from_str(&wider.body).unwrap();
    assert_eq!(body["error"], "invalid_scope", "{body}");
    // Nothing was issued: the refresh token is still the client's, and not a reused one.
    let response = signin.refresh(&tokens.client_id, &tokens.refresh).await;
    let next = tokens_of(tokens.client_id.clone(), &response);
    assert_eq!(claims(&next.access)["scope"], "tools:read");
}

#[tokio::test]
async fn another_client_can_neither_revoke_nor_spend_a_sign_in() {
    let signin = Signin::start(&[]).await;
    let tokens = signin.tokens(&["tools:read"]).await;
    let stranger = signin.client().await;
    // RFC 7009 §2.1: a token is revoked by its own client only; the stranger is told so.
    for token in [&tokens.access, &tokens.refresh] {
        let response = signin.revoke(&stranger, token).await;
        assert_eq!(response.status, 400, "{}", response.body);
        assert!(
            response.body.contains("unauthorized_client"),
            "{}",
            response.body
        );
    }
    // Nor does the stranger's refresh attempt spend the token or end the sign-in.
    invalid_grant(
        &signin.refresh(&stranger, &tokens.refresh).await,
        "another client's refresh token",
    );
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    assert_eq!(
        signin.mcp(&tokens.access, &list).await.status,
        200,
        "the access token still works"
    );
    let response = signin.refresh(&tokens.client_id, &tokens.refresh).await;
    assert_eq!(
        response.status, 200,
        "the owner still refreshes: {}",
        response.body
    );
    // A request that names no client is refused.
    let body = format!("token={}", tokens.access);
    let headers = [("Content-Type", "application/x-www-form-urlencoded")];
    let response =
        toolsmith_tests::http::request(signin.addr(), "POST", "/oauth/revoke", &headers, &body)
            .await;
    assert_eq!(response.status, 401, "{}", response.body);
}

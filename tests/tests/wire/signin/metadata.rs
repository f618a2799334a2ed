//! What the authorization server publishes: its metadata (RFC 8414, at both well-known
//! paths), the protected resource metadata naming it, and its ES256 signing keys.

use serde_json::{Value, json};

use super::Signin;

#[tokio::test]
async fn the_authorization_server_metadata_names_its_endpoints() {
    let signin = Signin::start(&[]).await;
    let issuer = signin.issuer.as_str();
    for path in [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ] {
        let response = signin.get(path).await;
        assert_eq!(response.status, 200, "{path}: {}", response.body);
        let kind = response.header("content-type").unwrap_or_default();
        assert!(kind.starts_with("application/json"), "{path}: {kind}");
        let metadata: Value = serde_json::from_str(&response.body).unwrap();
        assert_eq!(metadata["issuer"], issuer, "{path}: {metadata}");
        for (field, endpoint) in [
            ("authorization_endpoint", "/oauth/authorize"),
            ("token_endpoint", "/oauth/token"),
            ("registration_endpoint", "/oauth/register"),
            ("revocation_endpoint", "/oauth/revoke"),
            ("jwks_uri", "/oauth/jwks"),
        ] {
            assert_eq!(
                metadata[field],
                format!("{issuer}{endpoint}"),
                "{path}: {field}"
            );
        }
        assert_eq!(
            metadata["response_types_supported"],
            json!(["code"]),
            "{path}"
        );
        assert_eq!(
            metadata["grant_types_supported"],
            json!(["authorization_code", "refresh_token"]),
            "{path}"
        );
        assert_eq!(
            metadata["code_challenge_methods_supported"],
            json!(["S256"]),
            "{path}"
        );
        assert_eq!(
            metadata["token_endpoint_auth_methods_supported"],
            json!(["none", "client_secret_post", "client_secret_basic"]),
            "{path}"
        );
        let scopes = metadata["scopes_supported"]
            .as_array()
            .expect("scopes_supported");
        for scope in ["tools:read", "tools:write", "tools:destructive"] {
            assert!(
                scopes.contains(&json!(scope)),
                "{path}: {scope} in {scopes:?}"
            );
        }
        assert_eq!(
            metadata["client_id_metadata_document_supported"], true,
            "{path}"
        );
        assert_eq!(
            metadata["authorization_response_iss_parameter_supported"], true,
            "{path}"
        );
    }
}

#[tokio::test]
async fn the_protected_resource_metadata_names_the_server_itself() {
    let signin = Signin::start(&[]).await;
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let metadata = signin.json(path).await;
        assert_eq!(
            metadata["resource"],
            signin.resource.as_str(),
            "{path}: {metadata}"
        );
        assert_eq!(
            metadata["authorization_servers"],
            json!([signin.issuer]),
            "{path}: {metadata}"
        );
    }
    // A client without a token is sent there: the challenge names the metadata.
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let headers = [("MCP-Protocol-Version", "2025-11-25")];
    let response = signin.server.post(&list, &headers).await;
    assert_eq!(response.status, 401, "{}", response.body);
    let challenge = response.header("www-authenticate").expect("a challenge");
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
            signin.issuer
        )),
        "{challenge}"
    );
}

#[tokio::test]
async fn the_signing_keys_are_public_es256_keys() {
    let signin = Signin::start(&[]).await;
    let jwks = signin.json("/oauth/jwks").await;
    let keys = jwks["keys"].as_array().expect("keys");
    let es256: Vec<&Value> = keys
        .iter()
        .filter(|k| k["kty"] == "EC" && k["crv"] == "P-256")
        .collect();
    assert!(!es256.is_empty(), "an ES256 key: {jwks}");
    for key in &es256 {
        assert!(
            key["kid"].as_str().is_some_and(|k| !k.is_empty()),
            "a kid: {key}"
        );
        assert!(key["x"].is_string() && key["y"].is_string(), "{key}");
        assert!(key.get("alg").is_none_or(|alg| alg == "ES256"), "{key}");
    }
    for key in keys {
        assert!(key.get("d").is_none(), "a private key is published: {key}");
    }
}

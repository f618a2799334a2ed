//! Dynamic client registration (RFC 7591, `POST /oauth/register`): the redirect URIs it
//! takes, the metadata it refuses (400 with `error` and `error_description`), and its rate
//! limit (429).

use serde_json::{Value, json};

use super::Signin;

fn body_of(response: &toolsmith_tests::http::Response, what: &str) -> Value {
    serde_json::from_str(&response.body)
        .unwrap_or_else(|e| panic!("{what}: {e}: {}", response.body))
}

#[tokio::test]
async fn https_and_loopback_http_redirect_uris_are_registered() {
    let signin = Signin::start(&[]).await;
    let uris = json!(["https://app.example/oauth/cb", "http://127.0.0.1:9000/cb"]);
    let response = signin
        .register(&json!({"client_name": "Desk app", "redirect_uris": uris,
            "token_endpoint_auth_method": "none"}))
        .await;
    assert_eq!(response.status, 201, "{}", response.body);
    let client = body_of(&response, "public client");
    assert!(
        client["client_id"]
            .as_str()
            .is_some_and(|id| !id.is_empty()),
        "{client}"
    );
    assert_eq!(client["redirect_uris"], uris, "{client}");
    assert!(
        client.get("client_secret").is_none(),
        "a public client has no secret: {client}"
    );

    // A confidential client gets a secret, and another client_id.
    let response = signin
        .register(
            &json!({"client_name": "Web app", "redirect_uris": ["https://app.example/cb"],
            "token_endpoint_auth_method": "client_secret_post"}),
        )
        .await;
    assert_eq!(response.status, 201, "{}", response.body);
    let confidential = body_of(&response, "confidential client");
    assert!(
        confidential["client_secret"]
            .as_str()
            .is_some_and(|s| s.len() >= 16),
        "{confidential}"
    );
    assert_ne!(confidential["client_id"], client["client_id"]);

    // A name of exactly 200 characters is still a name.
    let name = "n".repeat(200);
    let response = signin
        .register(&json!({"client_name": name, "redirect_uris": ["https://app.example/cb"]}))
        .await;
    assert_eq!(
        response.status, 201,
        "a 200-character name: {}",
        response.body
    );
}

#[tokio::test]
async fn bad_client_metadata_is_refused_with_its_reason() {
    let signin = Signin::start(&[]).await;
    let redirect = |uri: &str| json!({"client_name": "App", "redirect_uris": [uri]});
    let named =
        |name: &str| json!({"client_name": name, "redirect_uris": ["https://app.example/cb"]});
    let cases: Vec<(&str, Value, &[&str])> = vec![
        (
            "plain http to another host",
            redirect("http://app.example/cb"),
            &["invalid_redirect_uri"],
        ),
        (
            "a fragment",
            redirect("https://app.example/cb#token"),
            &["invalid_redirect_uri"],
        ),
        (
            "no redirect_uris",
            json!({"client_name": "App"}),
            &["invalid_redirect_uri", "invalid_client_metadata"],
        ),
        (
            "an empty redirect_uris",
            json!({"client_name": "App", "redirect_uris": []}),
            &["invalid_redirect_uri", "invalid_client_metadata"],
        ),
        (
            "a name with control characters",
            named("Good app\u{1b}[2J\u{7}"),
            &["invalid_client_metadata"],
        ),
        (
            "a name of 201 characters",
            named(&"n".repeat(201)),
            &["invalid_client_metadata"],
        ),
    ];
    for (what, metadata, errors) in &cases {
        let response = signin.register(metadata).await;
        assert_eq!(response.status, 400, "{what}: {}", response.body);
        let body = body_of(&response, what);
        let error = body["error"].as_str().unwrap_or_default();
        assert!(
            errors.contains(&error),
            "{what}: error {error}, expected one of {errors:?}"
        );
        assert!(
            body["error_description"]
                .as_str()
                .is_some_and(|d| !d.trim().is_empty()),
            "{what}: an error_description: {body}"
        );
    }
    // Not JSON at all.
    let headers = [("Content-Type", "application/json")];
    let response =
        toolsmith_tests::http::request(signin.addr(), "POST", "/oauth/register", &headers, "{nope")
            .await;
    assert_eq!(response.status, 400, "{}", response.body);
}

#[tokio::test]
async fn registering_past_the_rate_limit_answers_429() {
    let signin = Signin::start(&[]).await;
    let metadata = json!({"client_name": "Flood", "redirect_uris": ["https://app.example/cb"]});
    let mut statuses = Vec::new();
    for _ in 0..500 {
        let status = signin.register(&metadata).await.status;
        statuses.push(status);
        if status != 201 {
            break;
        }
    }
    let last = *statuses.last().unwrap();
    assert_eq!(
        last,
        429,
        "after {} registrations: {statuses:?}",
        statuses.len()
    );
    assert!(
        statuses.len() > 1,
        "the first registration passes: {statuses:?}"
    );
    // Still limited a moment later; other endpoints still answer.
    assert_eq!(signin.register(&metadata).await.status, 429);
    assert_eq!(signin.get("/oauth/jwks").await.status, 200);
}

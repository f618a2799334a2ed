//! `GET /oauth/authorize` refusals. A request whose client or redirect URI cannot be trusted
//! gets an HTML error page and never a redirect (no open redirector); any other bad request
//! goes back to the client's registered redirect URI with `error`, its `state` and `iss`.
//! Neither reaches the provider.

use super::{Browser, Pkce, REDIRECT, Signin, param, refused_page};

/// How many authorization requests the provider received.
async fn provider_visits(signin: &Signin) -> usize {
    let log = signin.idp.log().await;
    log.iter().filter(|r| r["path"] == "/authorize").count()
}

#[tokio::test]
async fn a_good_request_goes_to_the_provider() {
    let signin = Signin::start(&[]).await;
    let client_id = signin.client().await;
    let pkce = Pkce::new();
    let path = signin.authorize_path(&client_id, &pkce, &[]);
    let response = Browser::new().get(signin.addr(), &path).await;
    assert_eq!(response.status, 302, "{}", response.body);
    let location = response.header("location").unwrap();
    assert!(
        location.starts_with(&format!("{}/authorize?", signin.idp.url)),
        "{location}"
    );
    assert_eq!(param(location, "client_id").as_deref(), Some("toolsmith"));
    assert_eq!(param(location, "response_type").as_deref(), Some("code"));
    let callback = format!("{}/oauth/callback", signin.issuer);
    assert_eq!(param(location, "redirect_uri"), Some(callback));
    let scopes = param(location, "scope").unwrap_or_default();
    assert!(scopes.split(' ').any(|s| s == "openid"), "{scopes}");
    // The client's state and PKCE challenge stay with the server.
    assert!(!location.contains(&pkce.challenge), "{location}");
}

#[tokio::test]
async fn an_untrusted_client_or_redirect_uri_gets_a_page_and_no_redirect() {
    let signin = Signin::start(&[]).await;
    let client_id = signin.client().await;
    let pkce = Pkce::new();
    let one_off = REDIRECT.replace("callback", "callbacl");
    let deeper = REDIRECT.replace("/callback", "/callback/..%2F..%2Fevil");
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (
            "an unknown client_id",
            vec![("client_id", "no-such-client")],
        ),
        ("no client_id", vec![("client_id", "")]),
        (
            "a redirect_uri one character off",
            vec![("redirect_uri", &one_off)],
        ),
        (
            "a redirect_uri at another host",
            vec![("redirect_uri", "https://evil.example/callback")],
        ),
        (
            "a redirect_uri with a longer path",
            vec![("redirect_uri", &deeper)],
        ),
        (
            "a redirect_uri with a query added",
            vec![(
                "redirect_uri",
                "http://127.0.0.1:38123/callback?next=https://evil.example",
            )],
        ),
    ];
    for (what, changes) in &cases {
        let path = signin.authorize_path(&client_id, &pkce, changes);
        let response = Browser::new().get(signin.addr(), &path).await;
        refused_page(&response, what);
        assert!(
            !response.body.contains("evil.example/callback\""),
            "{what}: a link out: {}",
            response.body
        );
    }
    assert_eq!(
        provider_visits(&signin).await,
        0,
        "a refused request reached the provider"
    );
}

#[tokio::test]
async fn other_bad_requests_go_back_to_the_client_with_error_and_state() {
    let signin = Signin::start(&[]).await;
    let client_id = signin.client().await;
    let pkce = Pkce::new();
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case> = vec![
        (
            "no code_challenge (PKCE is required)",
            vec![("code_challenge", ""), ("code_challenge_method", "")],
            "invalid_request",
        ),
        (
            "code_challenge_method=plain",
            vec![("code_challenge_method", "plain")],
            "invalid_request",
        ),
        (
            "a resource naming another server",
            vec![("resource", "https://other.example/mcp")],
            "invalid_target",
        ),
        (
            "response_type=token",
            vec![("response_type", "token")],
            "unsupported_response_type",
        ),
    ];
    for (what, changes, error) in &cases {
        let path = signin.authorize_path(&client_id, &pkce, changes);
        let response = Browser::new().get(signin.addr(), &path).await;
        assert_eq!(response.status, 302, "{what}: {}", response.body);
        let location = response.header("location").unwrap_or_default();
        assert!(
            location.starts_with(&format!("{REDIRECT}?")),
            "{what}: {location}"
        );
        assert_eq!(
            param(location, "error").as_deref(),
            Some(*error),
            "{what}: {location}"
        );
        assert_eq!(
            param(location, "state").as_deref(),
            Some("st-1"),
            "{what}: {location}"
        );
        assert_eq!(
            param(location, "iss").as_deref(),
            Some(signin.issuer.as_str()),
            "{what}: {location}"
        );
        assert!(param(location, "code").is_none(), "{what}: {location}");
    }
    assert_eq!(
        provider_visits(&signin).await,
        0,
        "a refused request reached the provider"
    );
}

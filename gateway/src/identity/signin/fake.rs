//! For the tests: an upstream with its own authorization server, in process on 127.0.0.1:
//! its 401 names its resource metadata, which names the server, whose metadata names its
//! registration, token and revocation endpoints. It records what it is asked.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::json;
use toolsmith::axum::Router;
use toolsmith::axum::extract::State;
use toolsmith::axum::http::{StatusCode, header};
use toolsmith::axum::response::{IntoResponse, Response};
use toolsmith::axum::routing::{get, post};

/// What the fake saw, and what it answers.
#[derive(Default)]
pub(super) struct Seen {
    pub(super) registrations: u32,
    /// The forms posted to its token endpoint.
    pub(super) token_forms: Vec<HashMap<String, String>>,
    /// The tokens revoked.
    pub(super) revoked: Vec<String>,
    /// The PKCE challenge the code was issued for (the test reads it off the authorize URL).
    pub(super) challenge: String,
    /// The tokens issued so far.
    pub(super) issued: u32,
    /// Whether its metadata says its authorization responses name it (`iss`, RFC 9207).
    pub(super) iss_supported: bool,
    /// When set, a refresh waits at the token endpoint (recorded, not answered) for a permit.
    pub(super) gate: Option<Arc<tokio::sync::Semaphore>>,
}

pub(super) struct Fake {
    pub(super) base: String,
    pub(super) seen: Arc<Mutex<Seen>>,
}

fn json_answer(status: StatusCode, body: serde_json::Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn form_of(body: &str) -> HashMap<String, String> {
    url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect()
}

impl Fake {
    pub(super) async fn start() -> Fake {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Seen::default()));
        let state = (base.clone(), seen.clone());
        let router = Router::new()
            .route("/mcp", post(challenge))
            .route("/.well-known/oauth-protected-resource/mcp", get(resource))
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/register", post(register))
            .route("/token", post(token))
            .route("/revoke", post(revoke))
            .with_state(state);
        tokio::spawn(async move { toolsmith::axum::serve(listener, router).await });
        Fake { base, seen }
    }

    pub(super) fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap()
    }
}

type Shared = State<(String, Arc<Mutex<Seen>>)>;

async fn challenge(State((base, _)): Shared) -> Response {
    let value = format!(
        "Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\", scope=\"files:read\""
    );
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, value)],
    )
        .into_response()
}

async fn resource(State((base, _)): Shared) -> Response {
    json_answer(
        StatusCode::OK,
        json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}),
    )
}

async fn metadata(State((base, seen)): Shared) -> Response {
    let iss = seen.lock().unwrap().iss_supported;
    json_answer(
        StatusCode::OK,
        json!({"issuer": base, "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"), "registration_endpoint": format!("{base}/register"),
            "revocation_endpoint": format!("{base}/revoke"), "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": iss}),
    )
}

async fn register(State((_, seen)): Shared, body: String) -> Response {
    let asked: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let mut seen = seen.lock().unwrap();
    seen.registrations += 1;
    json_answer(
        StatusCode::CREATED,
        json!({"client_id": format!("dyn-{}", seen.registrations), "redirect_uris": asked["redirect_uris"]}),
    )
}

async fn token(
    State((_, seen)): Shared,
    headers: toolsmith::axum::http::HeaderMap,
    body: String,
) -> Response {
    let mut form = form_of(&body);
    if let Some(basic) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        form.insert("authorization".into(), basic.to_owned());
    }
    let grant = form.get("grant_type").map(String::as_str).unwrap_or("");
    let gate = {
        let mut seen = seen.lock().unwrap();
        seen.token_forms.push(form.clone());
        seen.gate.clone().filter(|_| grant == "refresh_token")
    };
    if let Some(gate) = gate {
        let _ = gate.acquire().await;
    }
    let mut seen = seen.lock().unwrap();
    let good = match grant {
        "authorization_code" => {
            form.get("code").map(String::as_str) == Some("good-code")
                && form
                    .get("code_verifier")
                    .is_some_and(|v| super::vault::challenge(v) == seen.challenge)
        }
        "client_credentials" => form.contains_key("authorization"),
        "refresh_token" => form
            .get("refresh_token")
            .is_some_and(|r| *r == format!("rt-{}", seen.issued)),
        _ => false,
    };
    if !good {
        return json_answer(
            StatusCode::BAD_REQUEST,
            json!({"error": "invalid_grant", "error_description": "not <this> one"}),
        );
    }
    seen.issued += 1;
    let n = seen.issued;
    json_answer(
        StatusCode::OK,
        json!({"access_token": format!("at-{n}"), "token_type": "Bearer", "expires_in": 3600,
            "refresh_token": format!("rt-{n}")}),
    )
}

async fn revoke(State((_, seen)): Shared, body: String) -> Response {
    let form = form_of(&body);
    if let Some(token) = form.get("token") {
        seen.lock().unwrap().revoked.push(token.clone());
    }
    StatusCode::OK.into_response()
}

/// The value of the hidden form field `name` in `page`.
pub(super) fn hidden(page: &str, name: &str) -> Option<String> {
    let at = page.find(&format!("name=\"{name}\" value=\""))?;
    let rest = &page[at + name.len() + 15..];
    Some(rest[..rest.find('"')?].to_owned())
}

/// The start page `link` (a browser's first visit: the page naming who the account is linked
/// to, its cookie), read, then its form posted back with the cookie: the authorization
/// request it sends the browser to (303) and the cookie (`name=value`).
pub(super) async fn open_link(http: &reqwest::Client, link: &str) -> (url::Url, String) {
    let page = http.get(link).send().await.unwrap();
    assert_eq!(page.status(), 200, "the start page answers a page");
    let cookie = page.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let csp = page.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let html = page.text().await.unwrap();
    let form: Vec<(String, String)> = ["s", "csrf"]
        .iter()
        .map(|name| (name.to_string(), hidden(&html, name).expect(name)))
        .collect();
    let action = url::Url::parse(link).unwrap().join("start").unwrap();
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&form)
        .finish();
    let answer = http
        .post(action)
        .header("Cookie", &cookie)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 303, "{}", answer.text().await.unwrap());
    let location = answer.headers()["location"].to_str().unwrap();
    (url::Url::parse(location).unwrap(), cookie)
}

//! The authorization server's HTTP endpoints, beside the MCP endpoint on the same listener:
//! metadata, keys, registration, authorization, the provider's callback, the consent page,
//! tokens and revocation. The endpoints a browser-based client calls from another origin
//! (metadata, keys, registration, token, revocation) allow it (CORS, no credentials).

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::get;
use serde_json::{Value, json};

use super::consent::ConsentForm;
use super::flow::{Answer, AuthorizeQuery, CallbackQuery};
use super::server::AuthServer;
use super::tokens::{Refusal, TokenForm};

/// The browser cookie that ties a consent page to the browser that signed in.
const COOKIE: &str = "toolsmith_signin";
/// The largest body of a registration, a token or a revocation request.
const MAX_FORM: usize = 64 * 1024;

type Shared = State<Arc<AuthServer>>;

/// The routes of `server`.
pub(crate) fn router(server: Arc<AuthServer>) -> Router {
    Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get(metadata).options(preflight),
        )
        .route(
            "/.well-known/openid-configuration",
            get(metadata).options(preflight),
        )
        .route("/oauth/jwks", get(jwks).options(preflight))
        .route(
            "/oauth/register",
            axum::routing::post(register).options(preflight),
        )
        .route("/oauth/authorize", get(authorize))
        .route("/oauth/callback", get(callback))
        .route("/oauth/consent", get(consent_page).post(consent))
        .route(
            "/oauth/token",
            axum::routing::post(token).options(preflight),
        )
        .route(
            "/oauth/revoke",
            axum::routing::post(revoke).options(preflight),
        )
        .with_state(server)
}

impl AuthServer {
    /// Its routes.
    pub(crate) fn routes(self: &Arc<Self>) -> Router {
        router(self.clone())
    }
}

async fn metadata(State(server): Shared) -> Response {
    json_response(StatusCode::OK, &server.metadata())
}

async fn jwks(State(server): Shared) -> Response {
    json_response(StatusCode::OK, &json!({ "keys": server.public_keys() }))
}

async fn register(State(server): Shared, headers: HeaderMap, body: Bytes) -> Response {
    if body.len() > MAX_FORM {
        return refused(Refusal::new(
            413,
            "invalid_client_metadata",
            "the registration is too large",
        ));
    }
    let json_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"));
    if !json_type {
        return refused(Refusal::new(
            400,
            "invalid_client_metadata",
            "send the registration as application/json",
        ));
    }
    let asked = match serde_json::from_slice(&body) {
        Ok(asked) => asked,
        Err(err) => {
            return refused(Refusal::new(
                400,
                "invalid_client_metadata",
                format!("the registration is not a JSON object of client metadata: {err}"),
            ));
        }
    };
    match server.register(asked).await {
        Ok(answer) => json_response(StatusCode::CREATED, &answer),
        Err(refusal) => refused(refusal),
    }
}

async fn authorize(
    State(server): Shared,
    query: Result<Query<AuthorizeQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    match query {
        Ok(Query(query)) => answer(&server, server.authorize(query).await),
        Err(_) => super::page::error(
            StatusCode::BAD_REQUEST,
            "The authorization request's parameters cannot be read.",
        ),
    }
}

async fn callback(
    State(server): Shared,
    query: Result<Query<CallbackQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    match query {
        Ok(Query(query)) => answer(&server, server.callback(query).await),
        Err(_) => super::page::error(
            StatusCode::BAD_REQUEST,
            "The identity provider's answer cannot be read.",
        ),
    }
}

#[derive(serde::Deserialize)]
struct PendingQuery {
    pending: String,
}

async fn consent_page(
    State(server): Shared,
    headers: HeaderMap,
    query: Result<Query<PendingQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(query)) = query else {
        return super::page::error(StatusCode::BAD_REQUEST, "No sign-in is named.");
    };
    let answered = server
        .consent_page(&query.pending, cookie(&headers).as_deref())
        .await;
    answer(&server, answered)
}

async fn consent(State(server): Shared, headers: HeaderMap, body: Bytes) -> Response {
    if body.len() > MAX_FORM {
        return super::page::error(StatusCode::PAYLOAD_TOO_LARGE, "The answer is too large.");
    }
    let form = ConsentForm::parse(&body);
    let answered = server.decide(form, cookie(&headers).as_deref()).await;
    answer(&server, answered)
}

async fn token(State(server): Shared, headers: HeaderMap, body: Bytes) -> Response {
    let (form, client_id) = match client_form(&server, &headers, &body).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    match server.token(form, &client_id).await {
        Ok(answer) => json_response(StatusCode::OK, &answer),
        Err(refusal) => refused(refusal),
    }
}

async fn revoke(State(server): Shared, headers: HeaderMap, body: Bytes) -> Response {
    // The client that revokes: the token must be its own (RFC 7009 §2.1).
    let (form, client_id) = match client_form(&server, &headers, &body).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let Some(token) = form.token else {
        return refused(Refusal::new(400, "invalid_request", "token is missing"));
    };
    match server.revoke(&token, &client_id).await {
        Ok(()) => cors(Response::new(Body::empty())),
        Err(refusal) => refused(refusal),
    }
}

/// The form of a token or revocation request, and the client it comes from
/// ([`authenticated`]); or the refusal that answers it.
async fn client_form(
    server: &AuthServer,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(TokenForm, String), Response> {
    if body.len() > MAX_FORM {
        return Err(refused(Refusal::new(
            413,
            "invalid_request",
            "the request is too large",
        )));
    }
    let form: TokenForm = serde_urlencoded_form(body)
        .map_err(|why| refused(Refusal::new(400, "invalid_request", why)))?;
    let client = authenticated(
        server,
        headers,
        form.client_id.as_deref(),
        form.client_secret.as_deref(),
    )
    .await
    .map_err(refused)?;
    Ok((form, client))
}

async fn preflight() -> Response {
    let mut response = cors(Response::new(Body::empty()));
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, OPTIONS"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("authorization, content-type, mcp-protocol-version"),
    );
    headers.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    response
}

/// The client a token or revocation request comes from: its id, its secret checked when it
/// has one (HTTP Basic, or the form's `client_secret`).
async fn authenticated(
    server: &AuthServer,
    headers: &HeaderMap,
    form_id: Option<&str>,
    form_secret: Option<&str>,
) -> Result<String, Refusal> {
    let unauthorized = |why: &str| Refusal::new(401, "invalid_client", why);
    let basic = basic_credentials(headers);
    let (id, secret) = match (&basic, form_id) {
        (Some((id, secret)), _) => (id.as_str(), Some(secret.as_str())),
        (None, Some(id)) => (id, form_secret),
        (None, None) => return Err(unauthorized("the request names no client (client_id)")),
    };
    let client = server.client(id).await.map_err(|why| unauthorized(&why))?;
    if let Some(kept) = &client.secret {
        let Some(secret) = secret else {
            return Err(unauthorized("the client's secret is missing"));
        };
        if !AuthServer::secret_matches(kept, secret) {
            return Err(unauthorized("the client's secret is wrong"));
        }
    }
    Ok(client.id)
}

/// `Authorization: Basic` credentials (RFC 6749 §2.3.1: each part form-encoded).
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    use base64::Engine;
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (id, secret) = text.split_once(':')?;
    let unform = |s: &str| {
        form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
    };
    Some((unform(id)?, unform(secret)?))
}

/// A form body read into `T` (each field once).
fn serde_urlencoded_form<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, String> {
    let mut fields = serde_json::Map::new();
    for (name, value) in form_urlencoded::parse(body) {
        if fields
            .insert(name.to_string(), Value::String(value.into_owned()))
            .is_some()
        {
            return Err(format!("{name} is given more than once"));
        }
    }
    serde_json::from_value(Value::Object(fields))
        .map_err(|e| format!("the form cannot be read: {e}"))
}

/// The cookie of the browser that signed in.
fn cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_owned())
}

/// The response of a flow's answer.
fn answer(server: &AuthServer, answer: Answer) -> Response {
    match answer {
        Answer::Page(page) => page,
        Answer::Redirect(to, browser) => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::FOUND;
            let headers = response.headers_mut();
            if let Ok(location) = HeaderValue::from_str(&to) {
                headers.insert(header::LOCATION, location);
            }
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            headers.insert(
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            );
            if let Some(browser) = browser {
                let secure = if server.https { "; Secure" } else { "" };
                let cookie = format!(
                    "{COOKIE}={browser}; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=600{secure}"
                );
                if let Ok(value) = HeaderValue::from_str(&cookie) {
                    headers.insert(header::SET_COOKIE, value);
                }
            }
            response
        }
    }
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    cors(response)
}

fn refused(refusal: Refusal) -> Response {
    let status = StatusCode::from_u16(refusal.status).unwrap_or(StatusCode::BAD_REQUEST);
    let mut response = json_response(
        status,
        &json!({"error": refusal.error, "error_description": refusal.description}),
    );
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"oauth\""),
        );
    }
    response
}

fn cors(mut response: Response) -> Response {
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

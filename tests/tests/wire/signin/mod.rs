//! Sign-in (issue #55): the notes example as its own authorization server, over HTTP on
//! 127.0.0.1, its users signed in at a fake OpenID provider (`tests/fixtures/fake_idp.py`).
//! The tests play the browser and the MCP client by hand (raw HTTP, cookies kept here,
//! redirects never followed), so that every refusal and every step shows exactly.
//!
//! Shared here: the provider, the server started against it, the browser's cookie jar, PKCE,
//! the consent page's form, and the whole flow up to the tokens.

mod authorize;
mod cimd;
mod confidential;
mod consent;
mod flow;
mod gateway;
mod idp;
mod metadata;
mod page;
mod provider;
mod refresh;
mod register;
mod startup;
mod web;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use sha2::Digest;
use toolsmith_tests::http::{HttpServer, Response, request};

pub use idp::{FakeIdp, IDP_CLIENT, IDP_SECRET};
pub use web::{Browser, Page, form, param, split_url};

/// The MCP client's redirect URI: loopback, never listened on (redirects are read, not taken).
pub const REDIRECT: &str = "http://127.0.0.1:38123/callback";
pub const ALL: &str = "tools:read tools:write tools:destructive";

/// The notes example signing its users in at a [`FakeIdp`].
pub struct Signin {
    pub server: HttpServer,
    pub idp: FakeIdp,
    /// `http://127.0.0.1:PORT`: the authorization server's issuer (the origin).
    pub issuer: String,
    /// `http://127.0.0.1:PORT/mcp`: the audience of its tokens, the `resource` asked for.
    pub resource: String,
}

/// A PKCE pair (S256).
pub struct Pkce {
    pub verifier: String,
    pub challenge: String,
}

impl Pkce {
    pub fn new() -> Pkce {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).expect("random bytes");
        let verifier = URL_SAFE_NO_PAD.encode(bytes);
        let challenge = URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()));
        Pkce {
            verifier,
            challenge,
        }
    }
}

/// What the token endpoint answered at the end of a flow, and the client it was for.
pub struct Tokens {
    pub client_id: String,
    pub access: String,
    pub refresh: String,
    pub body: Value,
}

pub fn notes() -> String {
    toolsmith_tests::example_binary("notes")
        .to_str()
        .unwrap()
        .to_owned()
}

impl Signin {
    /// The notes example with sign-in at a fresh provider where alice signs in, and `extra`
    /// flags.
    pub async fn start(extra: &[&str]) -> Signin {
        Self::start_as("alice", extra).await
    }

    /// [`start`](Self::start) with `user` signing in at the provider.
    pub async fn start_as(user: &str, extra: &[&str]) -> Signin {
        Self::launch(&notes(), &[], user, extra).await
    }

    /// `program BEFORE serve --http ...` with sign-in at a fresh provider where `user`
    /// signs in.
    pub async fn launch(program: &str, before: &[&str], user: &str, extra: &[&str]) -> Signin {
        let idp = FakeIdp::start(user).await;
        let mut args = vec![
            "--signin-oidc",
            idp.url.as_str(),
            "--signin-client-id",
            IDP_CLIENT,
        ];
        args.extend_from_slice(extra);
        let mut env = vec![("TOOLSMITH_SIGNIN_CLIENT_SECRET", IDP_SECRET)];
        if !before.is_empty() {
            // The toolsmith CLI logs warnings only, unless told: its `listening on` is info.
            env.push(("TOOLSMITH_LOG", "info"));
        }
        let server = HttpServer::start_after(program, before, &args, &env).await;
        let issuer = format!("http://{}", server.addr);
        let resource = format!("{issuer}{}", server.path);
        Signin {
            server,
            idp,
            issuer,
            resource,
        }
    }

    pub fn addr(&self) -> &str {
        &self.server.addr
    }

    /// `GET path` without cookies.
    pub async fn get(&self, path: &str) -> Response {
        request(self.addr(), "GET", path, &[], "").await
    }

    /// `GET path`, its body JSON.
    pub async fn json(&self, path: &str) -> Value {
        let response = self.get(path).await;
        assert_eq!(response.status, 200, "{path}: {}", response.body);
        serde_json::from_str(&response.body).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// `POST /oauth/register` of `metadata`.
    pub async fn register(&self, metadata: &Value) -> Response {
        let headers = [("Content-Type", "application/json")];
        let body = metadata.to_string();
        request(self.addr(), "POST", "/oauth/register", &headers, &body).await
    }

    /// Registers a public client of [`REDIRECT`] and returns its client_id.
    pub async fn client(&self) -> String {
        let response = self
            .register(&json!({"client_name": "Test client", "redirect_uris": [REDIRECT],
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]}))
            .await;
        assert_eq!(response.status, 201, "{}", response.body);
        let body: Value = serde_json::from_str(&response.body).unwrap();
        body["client_id"].as_str().expect("a client_id").to_owned()
    }

    /// The path of a good authorization request of `client_id` (its redirect [`REDIRECT`],
    /// state `st-1`, resource this server's), `changes` replacing or adding parameters (an
    /// empty value drops one).
    pub fn authorize_path(&self, client_id: &str, pkce: &Pkce, changes: &[(&str, &str)]) -> String {
        let mut params: Vec<(String, String)> = [
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", REDIRECT),
            ("code_challenge", pkce.challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", "st-1"),
            ("scope", ALL),
            ("resource", self.resource.as_str()),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        for (key, value) in changes {
            params.retain(|(k, _)| k != key);
            if !value.is_empty() {
                params.push((key.to_string(), value.to_string()));
            }
        }
        let pairs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (&k[..], &v[..])).collect();
        format!("/oauth/authorize?{}", form(&pairs))
    }

    /// The browser's way from the authorization request through the provider to the
    /// callback: the callback's answer (a redirect to the consent page, or to the client).
    pub async fn sign_in(&self, browser: &Browser, path: &str) -> Response {
        let to_provider = browser.get(self.addr(), path).await;
        assert_eq!(to_provider.status, 302, "authorize: {}", to_provider.body);
        let location = to_provider
            .header("location")
            .expect("a Location")
            .to_owned();
        assert!(
            location.starts_with(&format!("{}/", self.idp.url)),
            "authorize should redirect to the provider: {location}"
        );
        let back = browser.go(self.addr(), &location).await;
        assert_eq!(back.status, 302, "provider: {}", back.body);
        let location = back.header("location").expect("a Location").to_owned();
        assert!(
            location.starts_with(&format!("{}/oauth/callback?", self.issuer)),
            "the provider should redirect to the callback: {location}"
        );
        browser.go(self.addr(), &location).await
    }

    /// The consent page the callback's answer leads to.
    pub async fn consent_page(&self, browser: &Browser, callback: &Response) -> Page {
        assert_eq!(callback.status, 302, "callback: {}", callback.body);
        let location = callback.header("location").expect("a Location");
        assert!(
            location.contains("/oauth/consent?pending="),
            "the callback should lead to the consent page: {location}"
        );
        let page = browser.go(self.addr(), location).await;
        assert_eq!(page.status, 200, "consent page: {}", page.body);
        Page::parse(&page.body)
    }

    /// Submits the consent `page` granting `scopes`: the answer (302 to the client).
    pub async fn allow(
        &self,
        browser: &Browser,
        page: &Page,
        scopes: &[&str],
        remember: bool,
    ) -> Response {
        let mut fields = vec![
            ("pending", page.pending.as_str()),
            ("csrf", page.csrf.as_str()),
        ];
        fields.extend(scopes.iter().map(|s| ("scope", *s)));
        if remember {
            fields.push(("remember", "yes"));
        }
        fields.push(("decision", "allow"));
        browser
            .post_form(self.addr(), "/oauth/consent", &form(&fields))
            .await
    }

    /// The code of a redirect to the client, checking its state and iss.
    pub fn code_of(&self, answer: &Response) -> String {
        assert_eq!(answer.status, 302, "{}", answer.body);
        let location = answer.header("location").expect("a Location");
        assert!(location.starts_with(&format!("{REDIRECT}?")), "{location}");
        assert_eq!(
            param(location, "state").as_deref(),
            Some("st-1"),
            "{location}"
        );
        assert_eq!(
            param(location, "iss").as_deref(),
            Some(self.issuer.as_str()),
            "{location}"
        );
        param(location, "code").unwrap_or_else(|| panic!("no code in {location}"))
    }

    /// `POST /oauth/token` of form `fields`.
    pub async fn token(&self, fields: &[(&str, &str)]) -> Response {
        let headers = [("Content-Type", "application/x-www-form-urlencoded")];
        request(self.addr(), "POST", "/oauth/token", &headers, &form(fields)).await
    }

    /// Redeems `code` of `client_id` with `verifier`.
    pub async fn redeem(&self, client_id: &str, code: &str, verifier: &str) -> Response {
        self.token(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", verifier),
            ("client_id", client_id),
        ])
        .await
    }

    /// The flow for a new client up to its code: sign in, grant `scopes`. The client_id,
    /// its PKCE pair and the code.
    pub async fn code(&self, scopes: &[&str]) -> (String, Pkce, String) {
        let client_id = self.client().await;
        let (pkce, code) = self.code_for(&client_id, scopes).await;
        (client_id, pkce, code)
    }

    /// [`code`](Self::code) for client `client_id` (its redirect URI [`REDIRECT`]): its PKCE
    /// pair and the code.
    pub async fn code_for(&self, client_id: &str, scopes: &[&str]) -> (Pkce, String) {
        let (browser, pkce) = (Browser::new(), Pkce::new());
        let callback = self
            .sign_in(&browser, &self.authorize_path(client_id, &pkce, &[]))
            .await;
        let page = self.consent_page(&browser, &callback).await;
        let code = self.code_of(&self.allow(&browser, &page, scopes, false).await);
        (pkce, code)
    }

    /// The whole flow for a new client: [`code`](Self::code), redeemed.
    pub async fn tokens(&self, scopes: &[&str]) -> Tokens {
        let (client_id, pkce, code) = self.code(scopes).await;
        let response = self.redeem(&client_id, &code, &pkce.verifier).await;
        tokens_of(client_id, &response)
    }

    /// `POST /oauth/token` refreshing `refresh` of `client_id`.
    pub async fn refresh(&self, client_id: &str, refresh: &str) -> Response {
        self.token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("client_id", client_id),
        ])
        .await
    }

    /// A fresh browser signs in for `client_id` (PKCE S256, no other change to the request)
    /// and reaches the consent page: the browser, the PKCE pair and the page.
    pub async fn consent_for(&self, client_id: &str) -> (Browser, Pkce, Page) {
        let (browser, pkce) = (Browser::new(), Pkce::new());
        let path = self.authorize_path(client_id, &pkce, &[]);
        let callback = self.sign_in(&browser, &path).await;
        let page = self.consent_page(&browser, &callback).await;
        (browser, pkce, page)
    }

    /// `POST /oauth/revoke` of `token` by public client `client_id`.
    pub async fn revoke(&self, client_id: &str, token: &str) -> Response {
        let headers = [("Content-Type", "application/x-www-form-urlencoded")];
        let body = form(&[("token", token), ("client_id", client_id)]);
        request(self.addr(), "POST", "/oauth/revoke", &headers, &body).await
    }

    /// A JSON-RPC POST to /mcp with `token`.
    pub async fn mcp(&self, token: &str, body: &Value) -> Response {
        let bearer = format!("Bearer {token}");
        let headers = [
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Authorization", bearer.as_str()),
        ];
        self.server.post(body, &headers).await
    }

    /// The names of the tools `token` lists (asserting a 200).
    pub async fn tool_names(&self, token: &str) -> Vec<String> {
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let response = self.mcp(token, &list).await;
        assert_eq!(response.status, 200, "tools/list: {}", response.body);
        let messages = response.messages();
        let tools = messages.last().expect("a message")["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("a tool list: {}", response.body))
            .clone();
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }
}

/// The tokens of a 200 answer of the token endpoint.
pub fn tokens_of(client_id: String, response: &Response) -> Tokens {
    assert_eq!(response.status, 200, "token: {}", response.body);
    let body: Value = serde_json::from_str(&response.body).expect("JSON tokens");
    assert_eq!(body["token_type"], "Bearer", "{body}");
    Tokens {
        client_id,
        access: body["access_token"]
            .as_str()
            .expect("an access_token")
            .to_owned(),
        refresh: body["refresh_token"]
            .as_str()
            .expect("a refresh_token")
            .to_owned(),
        body,
    }
}

/// The claims of a JWT (not verified: the server checks them; the tests read them).
pub fn claims(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("a JWT");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url")).expect("JSON")
}

/// Asserts a 400 of the token endpoint with `invalid_grant`.
pub fn invalid_grant(response: &Response, what: &str) {
    assert_eq!(response.status, 400, "{what}: {}", response.body);
    let body: Value =
        serde_json::from_str(&response.body).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(body["error"], "invalid_grant", "{what}: {body}");
}

/// Asserts the HTML error page of a refused authorization request: 400, no redirect.
pub fn refused_page(response: &Response, what: &str) {
    assert_eq!(response.status, 400, "{what}: {:?}", response.headers);
    assert!(
        response.header("location").is_none(),
        "{what}: must not redirect: {:?}",
        response.headers
    );
    let kind = response.header("content-type").unwrap_or_default();
    assert!(kind.starts_with("text/html"), "{what}: {kind}");
}

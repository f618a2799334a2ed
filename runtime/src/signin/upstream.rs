//! The identity provider: where a user is sent to sign in, and who they are when they come
//! back. An OpenID Connect provider is discovered once (again after a failure); a plain
//! OAuth 2.0 one is configured by its URLs.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::sync::OnceCell;

use super::records::Identity;
use super::{Provider, ProviderKind};
use crate::net::reason;

/// How long one request to the provider may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The most bytes read of one answer of the provider.
const MAX_ANSWER: usize = 256 * 1024;

/// The provider's endpoints.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Endpoints {
    pub(super) issuer: String,
    pub(super) authorization_endpoint: String,
    pub(super) token_endpoint: String,
    #[serde(default)]
    pub(super) userinfo_endpoint: Option<String>,
}

/// The provider, and a client of it.
pub(super) struct Upstream {
    provider: Provider,
    http: reqwest::Client,
    endpoints: OnceCell<Endpoints>,
}

impl Upstream {
    pub(super) fn new(provider: Provider) -> Result<Upstream, crate::Error> {
        for url in urls(&provider) {
            checked(url)?;
        }
        crate::tls::install_crypto_provider();
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("toolsmith/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                crate::Error::config("sign-in provider", format!("no HTTP client: {e}"))
            })?;
        Ok(Upstream {
            provider,
            http,
            endpoints: OnceCell::new(),
        })
    }

    pub(super) fn provider(&self) -> &Provider {
        &self.provider
    }

    /// The provider's endpoints: discovered (once it works), or as configured.
    pub(super) async fn endpoints(&self) -> Result<&Endpoints, String> {
        self.endpoints
            .get_or_try_init(|| async {
                match &self.provider.kind {
                    ProviderKind::Oidc { issuer } => self.discover(issuer).await,
                    ProviderKind::OAuth {
                        authorize,
                        token,
                        userinfo,
                        issuer,
                        ..
                    } => Ok(Endpoints {
                        issuer: issuer.clone(),
                        authorization_endpoint: authorize.clone(),
                        token_endpoint: token.clone(),
                        userinfo_endpoint: Some(userinfo.clone()),
                    }),
                }
            })
            .await
    }

    async fn discover(&self, issuer: &str) -> Result<Endpoints, String> {
        let url = format!("{issuer}/.well-known/openid-configuration");
        let answer = self.get_json(self.http.get(&url)).await?;
        let endpoints: Endpoints = serde_json::from_value(answer)
            .map_err(|e| format!("the provider's discovery document {url} is not usable: {e}"))?;
        if endpoints.issuer.trim_end_matches('/') != issuer {
            return Err(format!(
                "the provider's discovery document names the issuer {:?}, not {issuer:?}",
                endpoints.issuer
            ));
        }
        for url in [&endpoints.authorization_endpoint, &endpoints.token_endpoint]
            .into_iter()
            .chain(endpoints.userinfo_endpoint.as_ref())
        {
            checked(url).map_err(|e| e.to_string())?;
        }
        tracing::info!(issuer, "sign-in: the identity provider is discovered");
        Ok(endpoints)
    }

    /// Where the user's browser goes to sign in: the provider's authorization endpoint with
    /// this server's client, `callback`, the request's `state`, PKCE and (OIDC) a nonce.
    pub(super) async fn sign_in_url(
        &self,
        callback: &str,
        state: &str,
        verifier: &str,
        nonce: &str,
    ) -> Result<String, String> {
        let endpoints = self.endpoints().await?;
        let mut url = reqwest::Url::parse(&endpoints.authorization_endpoint)
            .map_err(|e| format!("the provider's authorization endpoint is not a URL: {e}"))?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &self.provider.client_id)
                .append_pair("redirect_uri", callback)
                .append_pair("state", state)
                .append_pair("code_challenge", &challenge_of(verifier))
                .append_pair("code_challenge_method", "S256");
            if !self.provider.scopes.is_empty() {
                query.append_pair("scope", &self.provider.scopes.join(" "));
            }
            if matches!(self.provider.kind, ProviderKind::Oidc { .. }) {
                query.append_pair("nonce", nonce);
            }
        }
        Ok(url.into())
    }

    /// Who signed in: `code` redeemed at the provider, the identity read from the ID token
    /// it answers (OIDC; received straight from its token endpoint, OIDC Core §3.1.3.7) and
    /// its user-info endpoint.
    pub(super) async fn identity(
        &self,
        code: &str,
        callback: &str,
        verifier: &str,
        nonce: &str,
    ) -> Result<Identity, String> {
        let endpoints = self.endpoints().await?;
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", callback),
            ("code_verifier", verifier),
            ("client_id", self.provider.client_id.as_str()),
            ("client_secret", self.provider.client_secret.as_str()),
        ];
        let request = self
            .http
            .post(&endpoints.token_endpoint)
            .header(reqwest::header::ACCEPT, "application/json")
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(
                form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(form)
                    .finish(),
            );
        let answer = self.get_json(request).await?;
        if let Some(error) = answer.get("error").and_then(Value::as_str) {
            return Err(format!("the provider refused the sign-in: {error}"));
        }
        let access = answer
            .get("access_token")
            .and_then(Value::as_str)
            .ok_or("the provider's token answer has no access_token")?;
        let mut claims = Map::new();
        if matches!(self.provider.kind, ProviderKind::Oidc { .. }) {
            let id_token = answer
                .get("id_token")
                .and_then(Value::as_str)
                .ok_or("the provider's token answer has no id_token")?;
            claims = id_token_claims(id_token, &endpoints.issuer, &self.provider.client_id, nonce)?;
        }
        if let Some(userinfo) = &endpoints.userinfo_endpoint {
            let info = self
                .get_json(self.http.get(userinfo).bearer_auth(access))
                .await;
            match info {
                Ok(Value::Object(info)) => {
                    // The ID token's subject stands: user-info for another user is ignored.
                    let same = claims
                        .get("sub")
                        .is_none_or(|sub| info.get("sub").is_none_or(|s| s == sub));
                    if same {
                        for (name, value) in info {
                            claims.entry(name).or_insert(value);
                        }
                    }
                }
                Ok(_) => {}
                Err(why) if claims.is_empty() => return Err(why),
                Err(why) => tracing::warn!("sign-in: the provider's user-info was not read: {why}"),
            }
        }
        let field = match &self.provider.kind {
            ProviderKind::OAuth { subject_field, .. } => subject_field.as_str(),
            ProviderKind::Oidc { .. } => "sub",
        };
        let subject = match claims.get(field) {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                return Err(format!(
                    "the provider did not say who signed in (no {field:?})"
                ));
            }
        };
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let groups = match claims.get("groups") {
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        Ok(Identity {
            subject,
            issuer: endpoints.issuer.trim_end_matches('/').to_owned(),
            email: text("email"),
            // A plain OAuth provider's email is taken as it says; OIDC's needs the claim.
            email_verified: match claims.get("email_verified") {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) => s == "true",
                _ => false,
            },
            groups,
            name: text("name").or_else(|| text("login")),
        })
    }

    /// A JSON answer, at most [`MAX_ANSWER`] bytes; a refusal says what the provider said.
    async fn get_json(&self, request: reqwest::RequestBuilder) -> Result<Value, String> {
        let mut response = request
            .send()
            .await
            .map_err(|e| format!("the identity provider could not be reached: {}", reason(&e)))?;
        let status = response.status();
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("the identity provider's answer broke off: {}", reason(&e)))?
        {
            if body.len() + chunk.len() > MAX_ANSWER {
                return Err("the identity provider's answer is too large".to_owned());
            }
            body.extend_from_slice(&chunk);
        }
        let value: Value = serde_json::from_slice(&body)
            .map_err(|_| format!("the identity provider answered {status} without JSON"))?;
        if !status.is_success() && value.get("error").is_none() {
            return Err(format!("the identity provider answered {status}"));
        }
        Ok(value)
    }
}

/// The claims of an ID token received straight from the provider's token endpoint (its
/// signature not checked, as OIDC Core §3.1.3.7 allows then), with `iss`, `aud`, `exp` and
/// `nonce` checked.
fn id_token_claims(
    token: &str,
    issuer: &str,
    client_id: &str,
    nonce: &str,
) -> Result<Map<String, Value>, String> {
    use base64::Engine;
    let payload = token.split('.').nth(1).ok_or("the ID token is not a JWT")?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .map_err(|_| "the ID token is not a JWT")?;
    let claims: Map<String, Value> =
        serde_json::from_slice(&bytes).map_err(|_| "the ID token's claims are not JSON")?;
    let str_claim = |name: &str| claims.get(name).and_then(Value::as_str).unwrap_or("");
    if str_claim("iss").trim_end_matches('/') != issuer.trim_end_matches('/') {
        return Err("the ID token is from another issuer".to_owned());
    }
    let for_us = match claims.get("aud") {
        Some(Value::String(aud)) => aud == client_id,
        Some(Value::Array(list)) => list.iter().any(|a| a == client_id),
        _ => false,
    };
    if !for_us {
        return Err("the ID token is for another client".to_owned());
    }
    if str_claim("nonce") != nonce {
        return Err("the ID token's nonce is not this sign-in's".to_owned());
    }
    let exp = claims.get("exp").and_then(Value::as_u64).unwrap_or(0);
    if exp + 30 < super::records::now() {
        return Err("the ID token has expired".to_owned());
    }
    Ok(claims)
}

/// The S256 challenge of a PKCE verifier.
pub(super) fn challenge_of(verifier: &str) -> String {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// The URLs the operator gave.
fn urls(provider: &Provider) -> Vec<&str> {
    match &provider.kind {
        ProviderKind::Oidc { issuer } => vec![issuer],
        ProviderKind::OAuth {
            authorize,
            token,
            userinfo,
            ..
        } => vec![authorize, token, userinfo],
    }
}

/// A provider URL: `https`, or `http` to a loopback host.
fn checked(url: &str) -> Result<(), crate::Error> {
    let parsed = reqwest::Url::parse(url).map_err(|e| {
        crate::Error::config("sign-in provider", format!("{url} is not a URL: {e}"))
    })?;
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if super::checks::loopback(&parsed) => Ok(()),
        _ => Err(crate::Error::config(
            "sign-in provider",
            format!("{url} is not https (plain http is accepted for a loopback host only)"),
        )),
    }
}

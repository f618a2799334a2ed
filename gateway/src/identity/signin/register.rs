//! The gateway's client at the upstream's authorization server (configured, or registered
//! once per upstream by RFC 7591 and kept, sealed, in the store so that replicas share it),
//! and what it asks the token endpoint: a code redeemed, a refresh, a revocation (RFC 7009).

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolsmith::task::TaskStore;

use super::discover::{Metadata, body_of, reason};
use super::{SignInClient, Tokens, digest, now_secs};

/// How long a registered client is kept.
const CLIENT_KEPT: Duration = Duration::from_secs(90 * 24 * 3600);

/// The gateway's client at the authorization server.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct OAuthClient {
    pub(crate) id: String,
    #[serde(default)]
    secret: Option<String>,
    /// `client_secret_basic` (the default with a secret), `client_secret_post`, or `none`.
    #[serde(default)]
    method: Option<String>,
}

/// The longest lifetime a token is taken to have.
const YEAR: u64 = 365 * 86_400;

impl SignInClient {
    /// The gateway's client: configured, or registered (once; kept in `store`).
    pub(super) async fn oauth_client(
        &self,
        metadata: &Metadata,
        callback: &str,
        store: &Arc<dyn TaskStore>,
    ) -> Result<OAuthClient, String> {
        if let Some(id) = &self.config.client_id {
            let secret = match &self.config.client_secret {
                Some(secret) => Some(crate::secret::expand(secret)?),
                None => None,
            };
            return Ok(OAuthClient {
                id: id.clone(),
                secret,
                method: None,
            });
        }
        let vault = self.vault.as_ref().map_err(Clone::clone)?;
        let key = format!(
            "gateway:signin-client:{}:{}",
            self.upstream,
            digest(&format!("{} {callback}", metadata.issuer))
        );
        let stored = store.read(&key).await.map_err(|e| e.to_string())?;
        if let Some(sealed) = stored
            && let Ok(client) = vault.open_json::<OAuthClient>(&key, &sealed)
        {
            return Ok(client);
        }
        let Some(endpoint) = &metadata.registration_endpoint else {
            return Err(format!(
                "the authorization server {} offers no registration: configure the gateway's client there (`client_id`)",
                metadata.issuer
            ));
        };
        let asked = json!({
            "client_name": "toolsmith gateway",
            "redirect_uris": [callback],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        });
        let response = self
            .http
            .post(endpoint)
            .header("Content-Type", "application/json")
            .body(asked.to_string())
            .send()
            .await
            .map_err(|e| format!("the registration at {endpoint} failed: {}", reason(&e)))?;
        let status = response.status();
        let body: Value = serde_json::from_slice(&body_of(response).await?).unwrap_or(Value::Null);
        if !status.is_success() {
            return Err(format!(
                "the registration at {endpoint} was refused ({status}): {}",
                refusal(&body)
            ));
        }
        let client = OAuthClient {
            id: body["client_id"]
                .as_str()
                .ok_or_else(|| format!("the registration at {endpoint} answered no client_id"))?
                .to_owned(),
            secret: body["client_secret"].as_str().map(str::to_owned),
            method: body["token_endpoint_auth_method"]
                .as_str()
                .map(str::to_owned),
        };
        let sealed = vault.seal_json(&key, &client)?;
        // Another replica may have registered meanwhile: its client is the one kept.
        if !store
            .put_new(&key, &sealed, CLIENT_KEPT)
            .await
            .map_err(|e| e.to_string())?
            && let Some(theirs) = store.read(&key).await.map_err(|e| e.to_string())?
            && let Ok(theirs) = vault.open_json::<OAuthClient>(&key, &theirs)
        {
            return Ok(theirs);
        }
        tracing::info!(upstream = %self.upstream, issuer = %metadata.issuer, "upstream sign-in: the gateway registered its client");
        Ok(client)
    }

    /// Asks the token endpoint for tokens with `fields` (a code, a refresh token) as
    /// `client`. `keep_refresh`: the refresh token to keep when the answer names none.
    pub(super) async fn token_request(
        &self,
        metadata: &Metadata,
        client: &OAuthClient,
        fields: &[(&str, &str)],
        keep_refresh: Option<&str>,
    ) -> Result<Tokens, String> {
        let endpoint = &metadata.token_endpoint;
        let body = self
            .post_form(endpoint, client, fields)
            .await
            .map_err(|why| format!("the token endpoint {endpoint} {why}"))?;
        let access = body["access_token"]
            .as_str()
            .filter(|a| !a.is_empty())
            .ok_or_else(|| format!("the token endpoint {endpoint} answered no access_token"))?;
        let kind = body["token_type"].as_str().unwrap_or("");
        if !kind.eq_ignore_ascii_case("bearer") {
            return Err(format!(
                "the token endpoint {endpoint} answered a token of type {kind:?}, not Bearer"
            ));
        }
        Ok(Tokens {
            access: access.to_owned(),
            refresh: body["refresh_token"]
                .as_str()
                .or(keep_refresh)
                .map(str::to_owned),
            // At most a year: an answer cannot make a time past what clocks hold.
            expires_at: body["expires_in"]
                .as_u64()
                .map(|secs| now_secs().saturating_add(secs.min(YEAR))),
        })
    }

    /// The gateway's own token (client credentials, same resource and scopes), to list the
    /// upstream's tools: only with a configured client and secret (`None` otherwise: it
    /// lists with its configured headers).
    pub(crate) async fn own_token(&self) -> Result<Option<Tokens>, String> {
        if self.config.client_id.is_none() || self.config.client_secret.is_none() {
            return Ok(None);
        }
        let metadata = self.discovered().await?;
        let client = OAuthClient {
            id: self.config.client_id.clone().unwrap_or_default(),
            secret: match &self.config.client_secret {
                Some(secret) => Some(crate::secret::expand(secret)?),
                None => None,
            },
            method: None,
        };
        let scope = self.config.scopes.join(" ");
        let mut fields = vec![
            ("grant_type", "client_credentials"),
            ("resource", metadata.resource.as_str()),
        ];
        if !scope.is_empty() {
            fields.push(("scope", scope.as_str()));
        }
        self.token_request(metadata, &client, &fields, None)
            .await
            .map(Some)
    }

    /// Revokes `token` (RFC 7009) when the authorization server offers revocation: whether
    /// it did (`Ok(false)`: it offers none).
    pub(super) async fn revoke(
        &self,
        metadata: &Metadata,
        client: &OAuthClient,
        token: &str,
        hint: &str,
    ) -> Result<bool, String> {
        let Some(endpoint) = &metadata.revocation_endpoint else {
            return Ok(false);
        };
        self.post_form(
            endpoint,
            client,
            &[("token", token), ("token_type_hint", hint)],
        )
        .await
        .map_err(|why| format!("the revocation endpoint {endpoint} {why}"))?;
        Ok(true)
    }

    /// `POST endpoint` of the form `fields`, authenticated as `client`: its JSON answer (an
    /// empty one is `null`), or why it failed.
    async fn post_form(
        &self,
        endpoint: &str,
        client: &OAuthClient,
        fields: &[(&str, &str)],
    ) -> Result<Value, String> {
        let mut pairs: Vec<(&str, &str)> = fields.to_vec();
        let mut request = self
            .http
            .post(endpoint)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json");
        match (&client.secret, client.method.as_deref()) {
            (Some(secret), Some("client_secret_post")) => {
                pairs.push(("client_id", &client.id));
                pairs.push(("client_secret", secret));
            }
            (Some(secret), _) => {
                let encode = |s: &str| {
                    url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>()
                };
                let pair = format!("{}:{}", encode(&client.id), encode(secret));
                request =
                    request.header("Authorization", format!("Basic {}", STANDARD.encode(pair)));
            }
            (None, _) => pairs.push(("client_id", &client.id)),
        }
        let form = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&pairs)
            .finish();
        let response = request
            .body(form)
            .send()
            .await
            .map_err(|e| format!("failed: {}", reason(&e)))?;
        let status = response.status();
        let body = body_of(response).await?;
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if !status.is_success() {
            return Err(format!("refused ({status}): {}", refusal(&body)));
        }
        Ok(body)
    }
}

/// An OAuth error answer in words: `error (error_description)`.
pub(super) fn refusal(body: &Value) -> String {
    let error = body["error"].as_str().unwrap_or("no error code");
    match body["error_description"].as_str() {
        Some(description) => format!("{} ({})", clipped(error), clipped(description)),
        None => clipped(error),
    }
}

/// At most 200 characters of what another server said, without control characters.
pub(super) fn clipped(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(200).collect()
}

/// Never its secret.
impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

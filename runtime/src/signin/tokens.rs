//! The tokens: an access token (a JWT of this server, for its resource, carrying the scopes
//! granted) with a refresh token, for a redeemed code or a used refresh token. A code is
//! redeemed once; a refresh token is used once and replaced by the next of its family; a
//! refresh token used twice revokes its whole family (it was stolen, or its client is
//! broken). A revoked access token is refused from then on.

use std::time::Duration;

use serde_json::{Value, json};

use super::records::{Code, Identity, RecordStore, Refresh, digest, key, now, random};
use super::server::AuthServer;
use super::upstream::challenge_of;
use crate::context::Caller;
use crate::task::StoreError;

/// An error of the token endpoint (RFC 6749 §5.2), or of another JSON endpoint.
#[derive(Debug)]
pub(super) struct Refusal {
    pub(super) status: u16,
    pub(super) error: &'static str,
    pub(super) description: String,
}

impl Refusal {
    pub(super) fn new(status: u16, error: &'static str, description: impl Into<String>) -> Self {
        Refusal {
            status,
            error,
            description: description.into(),
        }
    }

    pub(super) fn grant(description: impl Into<String>) -> Self {
        Refusal::new(400, "invalid_grant", description)
    }
}

impl From<StoreError> for Refusal {
    fn from(err: StoreError) -> Self {
        tracing::warn!("sign-in: the store failed: {err}");
        Refusal::new(
            503,
            "temporarily_unavailable",
            "the server's store is not reachable; try again",
        )
    }
}

/// A token request's form, as far as it is read.
#[derive(Debug, Default, serde::Deserialize)]
pub(super) struct TokenForm {
    pub(super) grant_type: Option<String>,
    pub(super) code: Option<String>,
    pub(super) redirect_uri: Option<String>,
    pub(super) code_verifier: Option<String>,
    pub(super) client_id: Option<String>,
    pub(super) client_secret: Option<String>,
    pub(super) refresh_token: Option<String>,
    pub(super) scope: Option<String>,
    pub(super) resource: Option<String>,
    /// The token to revoke (RFC 7009).
    pub(super) token: Option<String>,
}

impl AuthServer {
    /// Answers a token request whose client was authenticated as `client_id`.
    pub(super) async fn token(&self, form: TokenForm, client_id: &str) -> Result<Value, Refusal> {
        match form.grant_type.as_deref() {
            Some("authorization_code") => self.redeem(form, client_id).await,
            Some("refresh_token") => self.refresh(form, client_id).await,
            Some(other) => Err(Refusal::new(
                400,
                "unsupported_grant_type",
                format!(
                    "grant_type {other:?} is not supported: use authorization_code or refresh_token"
                ),
            )),
            None => Err(Refusal::new(
                400,
                "invalid_request",
                "grant_type is missing",
            )),
        }
    }

    async fn redeem(&self, form: TokenForm, client_id: &str) -> Result<Value, Refusal> {
        let code = form
            .code
            .as_deref()
            .ok_or_else(|| Refusal::new(400, "invalid_request", "code is missing"))?;
        let records = RecordStore(self.store.as_ref());
        // Taken at once: a second redemption, on any replica, finds nothing.
        let Some(granted) = records.take::<Code>(&key::code(code)).await? else {
            return Err(Refusal::grant(
                "the code is unknown, expired or already used",
            ));
        };
        if granted.client_id != client_id {
            return Err(Refusal::grant("the code was issued to another client"));
        }
        if form.redirect_uri.as_deref() != Some(granted.redirect_uri.as_str()) {
            return Err(Refusal::grant(
                "redirect_uri is not the one of the authorization request",
            ));
        }
        let verifier = form
            .code_verifier
            .as_deref()
            .ok_or_else(|| Refusal::grant("code_verifier is missing (PKCE is required)"))?;
        if !valid_verifier(verifier) || challenge_of(verifier) != granted.challenge {
            return Err(Refusal::grant(
                "code_verifier does not match the code_challenge",
            ));
        }
        if let Some(resource) = &form.resource
            && *resource != granted.resource
        {
            return Err(Refusal::new(
                400,
                "invalid_target",
                "resource is not the one of the authorization request",
            ));
        }
        let until = now() + self.settings.refresh_lifetime.as_secs();
        let family = random(16);
        self.issue(
            granted.identity,
            client_id,
            granted.scopes,
            granted.resource,
            family,
            until,
        )
        .await
    }

    async fn refresh(&self, form: TokenForm, client_id: &str) -> Result<Value, Refusal> {
        let token = form
            .refresh_token
            .as_deref()
            .ok_or_else(|| Refusal::new(400, "invalid_request", "refresh_token is missing"))?;
        let records = RecordStore(self.store.as_ref());
        // A client's mistake (another client's token, more scope) is refused before the
        // token is used, so that the user's sign-in stays.
        if let Some(held) = records.read::<Refresh>(&key::refresh(token)).await? {
            if held.client_id != client_id {
                return Err(Refusal::grant(
                    "the refresh token was issued to another client",
                ));
            }
            if let Some(asked) = &form.scope
                && let Some(more) = asked
                    .split_whitespace()
                    .find(|s| !held.scopes.iter().any(|h| h == s))
            {
                return Err(Refusal::new(
                    400,
                    "invalid_scope",
                    format!("scope {more} was not granted to this sign-in"),
                ));
            }
        }
        // Taken at once: of two uses, on any replica, one finds it.
        let Some(held) = records.take::<Refresh>(&key::refresh(token)).await? else {
            // Used before: someone else has the next one. The whole family goes.
            if let Some(family) = self.store.read(&key::refresh_used(token)).await? {
                self.revoke_family(&family).await?;
                tracing::warn!(
                    family,
                    "sign-in: a refresh token was used twice: its family is revoked"
                );
                return Err(Refusal::grant(
                    "the refresh token was already used: every token of its sign-in is revoked; sign in again",
                ));
            }
            return Err(Refusal::grant(
                "the refresh token is unknown, expired or revoked",
            ));
        };
        let left = held.until.saturating_sub(now());
        // Remembered for as long as the family could live: a second use is seen then.
        self.store
            .put(
                &key::refresh_used(token),
                &held.family,
                Duration::from_secs(left.max(1)),
            )
            .await?;
        if self
            .store
            .read(&key::family_revoked(&held.family))
            .await?
            .is_some()
        {
            return Err(Refusal::grant("the refresh token was revoked"));
        }
        let scopes = match &form.scope {
            Some(asked) => asked.split_whitespace().map(str::to_owned).collect(),
            None => held.scopes.clone(),
        };
        self.issue(
            held.identity,
            client_id,
            scopes,
            held.resource,
            held.family,
            held.until,
        )
        .await
    }

    /// An access token and the next refresh token of `family`.
    async fn issue(
        &self,
        identity: Identity,
        client_id: &str,
        scopes: Vec<String>,
        resource: String,
        family: String,
        until: u64,
    ) -> Result<Value, Refusal> {
        let lifetime = self.settings.token_lifetime.as_secs();
        let access =
            self.access_token(&identity, client_id, &scopes, &resource, &family, lifetime)?;
        let refresh = random(32);
        let left = until.saturating_sub(now());
        let record = Refresh {
            family,
            client_id: client_id.to_owned(),
            scopes: scopes.clone(),
            resource,
            identity,
            until,
        };
        RecordStore(self.store.as_ref())
            .put(
                &key::refresh(&refresh),
                &record,
                Duration::from_secs(left.max(1)),
            )
            .await?;
        Ok(json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": lifetime,
            "refresh_token": refresh,
            "scope": scopes.join(" "),
        }))
    }

    /// A signed access token (RFC 9068).
    fn access_token(
        &self,
        identity: &Identity,
        client_id: &str,
        scopes: &[String],
        resource: &str,
        family: &str,
        lifetime: u64,
    ) -> Result<String, Refusal> {
        let issued = now();
        let mut claims = json!({
            "iss": self.issuer,
            "aud": resource,
            "sub": identity.subject,
            "idp": identity.issuer,
            "client_id": client_id,
            "scope": scopes.join(" "),
            "jti": random(16),
            "fam": family,
            "iat": issued,
            "exp": issued + lifetime,
        });
        if let Some(email) = &identity.email {
            claims["email"] = email.clone().into();
            claims["email_verified"] = identity.email_verified.into();
        }
        if !identity.groups.is_empty() {
            claims["groups"] = identity.groups.clone().into();
        }
        if let Some(name) = &identity.name {
            claims["name"] = name.clone().into();
        }
        let (kid, key) = self.keys.signing();
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.typ = Some("at+jwt".to_owned());
        header.kid = Some(kid);
        jsonwebtoken::encode(&header, &claims, &key).map_err(|e| {
            tracing::error!("sign-in: a token could not be signed: {e}");
            Refusal::new(500, "server_error", "the token could not be signed")
        })
    }

    /// Revokes `token` (RFC 7009): a refresh token with its family, an access token of this
    /// server by its id. Anything else is ignored, as the RFC asks.
    /// A token of another client than `client_id` is refused (RFC 7009 §2.1), and left as
    /// it is.
    pub(super) async fn revoke(&self, token: &str, client_id: &str) -> Result<(), Refusal> {
        let foreign = || {
            Refusal::new(
                400,
                "unauthorized_client",
                "the token was issued to another client",
            )
        };
        if let Some(held) = RecordStore(self.store.as_ref())
            .read::<Refresh>(&key::refresh(token))
            .await?
            && held.client_id != client_id
        {
            return Err(foreign());
        }
        if let Some(claims) = self.own_claims(token)
            && claims.get("client_id").and_then(Value::as_str) != Some(client_id)
        {
            return Err(foreign());
        }
        if let Some(held) = RecordStore(self.store.as_ref())
            .take::<Refresh>(&key::refresh(token))
            .await?
        {
            // Signing out: the user is asked again at the next sign-in with this client.
            let consent = super::consents::key_of(&held.identity, &held.client_id);
            self.store.take(&consent).await?;
            return self.revoke_family(&held.family).await;
        }
        if let Some(claims) = self.own_claims(token) {
            let jti = claims.get("jti").and_then(Value::as_str).unwrap_or("");
            let exp = claims.get("exp").and_then(Value::as_u64).unwrap_or(0);
            let left = exp.saturating_sub(now()) + 60;
            if !jti.is_empty() {
                self.store
                    .put(&key::token_revoked(jti), "1", Duration::from_secs(left))
                    .await?;
            }
        }
        Ok(())
    }

    async fn revoke_family(&self, family: &str) -> Result<(), Refusal> {
        let ttl = self.settings.refresh_lifetime + Duration::from_secs(60);
        self.store
            .put(&key::family_revoked(family), "1", ttl)
            .await?;
        Ok(())
    }

    /// The claims of an access token this server signed (its signature checked, its expiry
    /// not).
    fn own_claims(&self, token: &str) -> Option<serde_json::Map<String, Value>> {
        let header = jsonwebtoken::decode_header(token).ok()?;
        let jwk = self
            .keys
            .public()
            .into_iter()
            .find(|k| k.common.key_id == header.kid)?;
        let key = jsonwebtoken::DecodingKey::from_jwk(&jwk).ok()?;
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.validate_exp = false;
        validation.validate_aud = false;
        validation.required_spec_claims.clear();
        validation.set_issuer(&[&self.issuer]);
        jsonwebtoken::decode(token, &key, &validation)
            .ok()
            .map(|d| d.claims)
    }

    /// Whether the token `caller` presented was revoked: by itself, or with its family.
    /// A store that cannot be read refuses it (fails closed).
    pub(crate) async fn revoked(&self, caller: &Caller) -> bool {
        let claim = |name| caller.claim(name).and_then(Value::as_str).unwrap_or("");
        if claim("iss") != self.issuer {
            return false;
        }
        let (jti, family) = (claim("jti"), claim("fam"));
        let token = self.store.read(&key::token_revoked(jti)).await;
        let family = self.store.read(&key::family_revoked(family)).await;
        match (token, family) {
            (Ok(None), Ok(None)) => false,
            (Ok(_), Ok(_)) => true,
            (Err(err), _) | (_, Err(err)) => {
                tracing::warn!(
                    "sign-in: revocations could not be read, the token is refused: {err}"
                );
                true
            }
        }
    }

    /// Whether `secret` is the secret of the client whose kept digest is `kept`.
    pub(super) fn secret_matches(kept: &str, secret: &str) -> bool {
        let given = digest(secret);
        given.len() == kept.len()
            && given
                .bytes()
                .zip(kept.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

/// A PKCE verifier as RFC 7636 §4.1 has it: 43 to 128 unreserved characters.
fn valid_verifier(verifier: &str) -> bool {
    (43..=128).contains(&verifier.len())
        && verifier
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c))
}

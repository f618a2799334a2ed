//! What the authorization server keeps in the task store, as JSON under its own keys, so
//! that replicas sharing a store (Redis) answer for each other: clients, authorizations in
//! progress, consents waiting for the user, codes, refresh tokens, remembered consents,
//! revocations and the signing keys.

use std::time::Duration;

use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::task::{StoreError, TaskStore};

/// Who signed in at the provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Identity {
    pub(super) subject: String,
    /// The provider's issuer.
    pub(super) issuer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) email: Option<String>,
    #[serde(default)]
    pub(super) email_verified: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) groups: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) name: Option<String>,
}

impl Identity {
    /// One key for this user, whatever its client: a digest of its issuer and subject.
    pub(super) fn key(&self) -> String {
        digest(&serde_json::json!([self.issuer, self.subject]).to_string())
    }

    /// The claims a caller with this identity has, as the scope rules read them.
    pub(super) fn caller(&self) -> crate::context::Caller {
        let mut claims = serde_json::Map::new();
        claims.insert("idp".into(), self.issuer.clone().into());
        if let Some(email) = &self.email {
            claims.insert("email".into(), email.clone().into());
            claims.insert("email_verified".into(), self.email_verified.into());
        }
        if !self.groups.is_empty() {
            claims.insert("groups".into(), self.groups.clone().into());
        }
        crate::context::Caller::new(self.subject.clone(), Vec::<String>::new()).with_claims(claims)
    }
}

/// A client: registered (RFC 7591), or known by its metadata document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Client {
    pub(super) id: String,
    #[serde(default)]
    pub(super) name: Option<String>,
    pub(super) redirect_uris: Vec<String>,
    /// `none`, `client_secret_post` or `client_secret_basic`.
    pub(super) auth_method: String,
    /// A digest of its secret, for a confidential client.
    #[serde(default)]
    pub(super) secret: Option<String>,
    /// Known by a metadata document at its id (a URL): its name is its site's word.
    #[serde(default)]
    pub(super) document: bool,
    #[serde(default)]
    pub(super) scope: Option<String>,
}

/// An authorization in progress: what the client asked, while the user is at the provider.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Asked {
    pub(super) client_id: String,
    pub(super) redirect_uri: String,
    pub(super) challenge: String,
    pub(super) scopes: Vec<String>,
    #[serde(default)]
    pub(super) state: Option<String>,
    pub(super) resource: String,
    /// The PKCE verifier of the request to the provider.
    pub(super) verifier: String,
    pub(super) nonce: String,
    /// The client asked for the consent page (`prompt=consent`).
    #[serde(default)]
    pub(super) ask_again: bool,
}

/// A consent the user is asked for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Pending {
    pub(super) asked: Asked,
    pub(super) identity: Identity,
    /// The scopes offered: asked, and allowed by the operator's rules.
    pub(super) offered: Vec<String>,
    /// The form's token.
    pub(super) csrf: String,
    /// A digest of the browser's cookie.
    pub(super) browser: String,
}

/// What an authorization code stands for, until it is redeemed (once).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Code {
    pub(super) client_id: String,
    pub(super) redirect_uri: String,
    pub(super) challenge: String,
    pub(super) scopes: Vec<String>,
    pub(super) resource: String,
    pub(super) identity: Identity,
}

/// What a refresh token stands for, until it is used (once: it is rotated).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Refresh {
    pub(super) family: String,
    pub(super) client_id: String,
    pub(super) scopes: Vec<String>,
    pub(super) resource: String,
    pub(super) identity: Identity,
    /// When the family ends (seconds since the epoch): rotation does not extend it.
    pub(super) until: u64,
}

/// The store's keys, each kind under its own prefix.
pub(super) mod key {
    pub(in super::super) fn client(id: &str) -> String {
        format!("signin:client:{}", super::digest(id))
    }
    pub(in super::super) fn asked(id: &str) -> String {
        format!("signin:asked:{id}")
    }
    pub(in super::super) fn pending(id: &str) -> String {
        format!("signin:pending:{id}")
    }
    pub(in super::super) fn code(code: &str) -> String {
        format!("signin:code:{}", super::digest(code))
    }
    pub(in super::super) fn refresh(token: &str) -> String {
        format!("signin:refresh:{}", super::digest(token))
    }
    pub(in super::super) fn refresh_used(token: &str) -> String {
        format!("signin:refresh-used:{}", super::digest(token))
    }
    pub(in super::super) fn family_revoked(family: &str) -> String {
        format!("signin:revoked-family:{family}")
    }
    pub(in super::super) fn token_revoked(jti: &str) -> String {
        format!("signin:revoked-token:{jti}")
    }
    pub(in super::super) fn consent(user: &str, client: &str) -> String {
        format!("signin:consent:{user}:{}", super::digest(client))
    }
    pub(in super::super) const KEYS: &str = "signin:keys";
    pub(in super::super) const CLIENTS: &str = "signin:clients";
    pub(in super::super) const REGISTRATIONS: &str = "signin:registrations";
}

/// SHA-256 of `text`, in hex: what the store keeps of a secret (a code, a token, a client
/// secret), so that reading the store gives none of them away.
pub(super) fn digest(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `bytes` random bytes, URL-safe base64: codes, tokens, ids.
pub(super) fn random(bytes: usize) -> String {
    use base64::Engine;
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the system's random source");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf)
}

/// Now, in seconds since the Unix epoch.
pub(super) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The sign-in records in the task store, read and written as JSON.
pub(super) struct RecordStore<'a>(pub(super) &'a dyn TaskStore);

impl RecordStore<'_> {
    pub(super) async fn put<T: Serialize>(
        &self,
        key: &str,
        value: &T,
        ttl: Duration,
    ) -> Result<(), StoreError> {
        let text = serde_json::to_string(value).map_err(StoreError::new)?;
        self.0.put(key, &text, ttl).await
    }

    pub(super) async fn read<T: DeserializeOwned>(
        &self,
        key: &str,
    ) -> Result<Option<T>, StoreError> {
        decode(self.0.read(key).await?)
    }

    pub(super) async fn take<T: DeserializeOwned>(
        &self,
        key: &str,
    ) -> Result<Option<T>, StoreError> {
        decode(self.0.take(key).await?)
    }
}

fn decode<T: DeserializeOwned>(text: Option<String>) -> Result<Option<T>, StoreError> {
    text.map(|text| serde_json::from_str(&text).map_err(StoreError::new))
        .transpose()
}

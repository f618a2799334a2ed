//! Remembered consents: a user's answer for a client, kept so that the consent page is not
//! shown again for what was granted; listed and revoked by the operator (`consents list`,
//! `consents revoke`), forgotten when the user answers again without "remember", and when
//! the client revokes its refresh token (signing out).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::records::{Identity, key, now};
use crate::task::{StoreError, TaskStore};

/// The prefix of every remembered consent's key.
const PREFIX: &str = "signin:consent:";

/// A remembered consent, as kept and as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(docsrs, doc(cfg(feature = "signin")))]
pub struct Consent {
    /// What names it for [`Consents::revoke`].
    #[serde(skip)]
    pub id: String,
    /// The user's subject at the identity provider.
    pub subject: String,
    /// The identity provider's issuer.
    pub issuer: String,
    /// The user's email, when the provider gave one.
    #[serde(default)]
    pub email: Option<String>,
    /// The client the user answered for.
    pub client_id: String,
    /// Its name, as it registered it.
    #[serde(default)]
    pub client_name: Option<String>,
    /// The scopes granted.
    pub scopes: Vec<String>,
    /// Until when it is remembered (seconds since the Unix epoch).
    pub until: u64,
}

impl Consent {
    pub(super) fn new(
        identity: &Identity,
        client_id: &str,
        client_name: Option<String>,
        scopes: Vec<String>,
        lifetime: std::time::Duration,
    ) -> Consent {
        Consent {
            id: String::new(),
            subject: identity.subject.clone(),
            issuer: identity.issuer.clone(),
            email: identity.email.clone(),
            client_id: client_id.to_owned(),
            client_name,
            scopes,
            until: now() + lifetime.as_secs(),
        }
    }
}

/// The consents remembered in a task store: what `consents list` and `consents revoke`
/// read. With a store the replicas share (Redis), revoking one revokes it on every replica.
///
/// ```
/// use std::sync::Arc;
/// use toolsmith::signin::Consents;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let consents = Consents::new(Arc::new(toolsmith::task::MemoryStore::new()));
/// assert!(consents.list().await.unwrap().is_empty());
/// assert!(!consents.revoke("no-such-id").await.unwrap());
/// # });
/// ```
#[derive(Clone)]
#[cfg_attr(docsrs, doc(cfg(feature = "signin")))]
pub struct Consents {
    store: Arc<dyn TaskStore>,
}

impl Consents {
    /// The consents kept in `store` (the servers' task store).
    ///
    /// ```
    /// let consents = toolsmith::signin::Consents::new(std::sync::Arc::new(toolsmith::task::MemoryStore::new()));
    /// # let _ = consents;
    /// ```
    pub fn new(store: Arc<dyn TaskStore>) -> Consents {
        Consents { store }
    }

    /// Every consent remembered, by user then client.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let consents = toolsmith::signin::Consents::new(std::sync::Arc::new(toolsmith::task::MemoryStore::new()));
    /// assert_eq!(consents.list().await.unwrap().len(), 0);
    /// # });
    /// ```
    pub async fn list(&self) -> Result<Vec<Consent>, StoreError> {
        let mut listed: Vec<Consent> = self
            .store
            .scan(PREFIX)
            .await?
            .into_iter()
            .filter_map(|(key, value)| {
                let mut consent: Consent = serde_json::from_str(&value).ok()?;
                consent.id = key.strip_prefix(PREFIX)?.to_owned();
                Some(consent)
            })
            .collect();
        listed.sort_by(|a, b| {
            (&a.issuer, &a.subject, &a.client_id).cmp(&(&b.issuer, &b.subject, &b.client_id))
        });
        Ok(listed)
    }

    /// Forgets the consent `id` names (as [`list`](Self::list) gives it): whether there was
    /// one. The user sees the consent page again at their next sign-in with that client.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let consents = toolsmith::signin::Consents::new(std::sync::Arc::new(toolsmith::task::MemoryStore::new()));
    /// assert!(!consents.revoke("abc:def").await.unwrap());
    /// # });
    /// ```
    pub async fn revoke(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self.store.take(&format!("{PREFIX}{id}")).await?.is_some())
    }
}

/// The store key of `identity`'s consent for `client`.
pub(super) fn key_of(identity: &Identity, client: &str) -> String {
    key::consent(&identity.key(), client)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::{Consent, Consents, key_of};
    use crate::signin::records::{Identity, RecordStore};
    use crate::task::MemoryStore;

    #[tokio::test]
    async fn a_remembered_consent_is_listed_and_revoked() {
        let store = Arc::new(MemoryStore::new());
        let alice = Identity {
            subject: "alice".into(),
            issuer: "https://id.example".into(),
            email: Some("alice@example.com".into()),
            email_verified: true,
            groups: Vec::new(),
            name: None,
        };
        let lifetime = Duration::from_secs(60);
        let kept = Consent::new(
            &alice,
            "client-1",
            Some("Notes".into()),
            vec!["tools:read".into()],
            lifetime,
        );
        RecordStore(store.as_ref())
            .put(&key_of(&alice, "client-1"), &kept, lifetime)
            .await
            .unwrap();
        let consents = Consents::new(store.clone());
        let listed = consents.list().await.unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (listed[0].client_id.as_str(), listed[0].scopes.as_slice()),
            ("client-1", &["tools:read".to_owned()][..])
        );
        assert!(consents.revoke(&listed[0].id).await.unwrap());
        assert!(consents.list().await.unwrap().is_empty());
        assert!(!consents.revoke(&listed[0].id).await.unwrap());
    }
}

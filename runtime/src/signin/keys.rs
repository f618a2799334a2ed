//! The signing keys of the tokens the server issues: ES256 keys it makes itself, kept in the
//! task store (so that replicas sign and verify alike), replaced every 30 days. The key
//! before the newest is still published until tokens it signed have expired.

use std::sync::RwLock;
use std::time::Duration;

use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey};
use serde::{Deserialize, Serialize};

use super::records::{key, now, random};
use crate::task::{StoreError, TaskStore};

/// How long a key signs before a new one replaces it.
const ROTATE: u64 = 30 * 24 * 3600;

/// A key as stored: its id, its secret scalar (URL-safe base64) and when it was made.
#[derive(Clone, Serialize, Deserialize)]
struct StoredKey {
    kid: String,
    secret: String,
    created: u64,
}

/// A key ready to sign, and its public half.
struct Key {
    kid: String,
    signing: EncodingKey,
    public: Jwk,
    created: u64,
}

/// The keys: the newest signs, every one verifies.
pub(super) struct Keys {
    keys: RwLock<Vec<Key>>,
}

impl Keys {
    /// The keys in `store`, made when there are none (the first replica's are every
    /// replica's), and replaced when the newest is older than 30 days.
    pub(super) async fn load(store: &dyn TaskStore) -> Result<Keys, StoreError> {
        let keys = Keys {
            keys: RwLock::new(Vec::new()),
        };
        keys.refresh(store).await?;
        Ok(keys)
    }

    /// Reads the keys again (another replica may have replaced them), replacing the newest
    /// when it is due.
    pub(super) async fn refresh(&self, store: &dyn TaskStore) -> Result<(), StoreError> {
        let mut stored: Vec<StoredKey> = read(store).await?;
        if stored.is_empty() {
            let made = vec![make()];
            let text = serde_json::to_string(&made).map_err(StoreError::new)?;
            if !store.put_new(key::KEYS, &text, FOREVER).await? {
                // Another replica made them first: its keys are everyone's.
                stored = read(store).await?;
            } else {
                stored = made;
            }
        } else if stored[0].created + ROTATE <= now() {
            // One replica replaces the key a period: the others read what it wrote.
            let period = now() / ROTATE;
            let lock = format!("{}:rotating:{period}", key::KEYS);
            if store
                .put_new(&lock, "1", Duration::from_secs(ROTATE))
                .await?
            {
                let mut next = vec![make()];
                next.push(stored[0].clone());
                let text = serde_json::to_string(&next).map_err(StoreError::new)?;
                store.put(key::KEYS, &text, FOREVER).await?;
                tracing::info!(kid = %next[0].kid, "sign-in: a new signing key replaces the old one");
                stored = next;
            }
        }
        let keys: Vec<Key> = stored.iter().filter_map(ready).collect();
        if keys.is_empty() {
            return Err(StoreError::new("the stored signing keys cannot be read"));
        }
        *self.keys.write().unwrap_or_else(|e| e.into_inner()) = keys;
        Ok(())
    }

    /// The newest key: its id and its signing half.
    pub(super) fn signing(&self) -> (String, EncodingKey) {
        let keys = self.keys.read().unwrap_or_else(|e| e.into_inner());
        let newest = keys.iter().max_by_key(|k| k.created).expect("loaded keys");
        (newest.kid.clone(), newest.signing.clone())
    }

    /// Every key's public half, as a JWKS lists them.
    pub(super) fn public(&self) -> Vec<Jwk> {
        let keys = self.keys.read().unwrap_or_else(|e| e.into_inner());
        keys.iter().map(|k| k.public.clone()).collect()
    }
}

/// What stays in the store until replaced.
const FOREVER: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

async fn read(store: &dyn TaskStore) -> Result<Vec<StoredKey>, StoreError> {
    match store.read(key::KEYS).await? {
        Some(text) => serde_json::from_str(&text).map_err(StoreError::new),
        None => Ok(Vec::new()),
    }
}

/// A new P-256 key.
fn make() -> StoredKey {
    loop {
        let mut scalar = [0u8; 32];
        getrandom::fill(&mut scalar).expect("the system's random source");
        // Almost every 32 bytes are a scalar; the rare one that is not is drawn again.
        if p256::ecdsa::SigningKey::from_slice(&scalar).is_ok() {
            use base64::Engine;
            return StoredKey {
                kid: random(12),
                secret: base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(scalar),
                created: now(),
            };
        }
    }
}

/// A stored key made ready to sign.
fn ready(stored: &StoredKey) -> Option<Key> {
    use base64::Engine;
    use p256::pkcs8::EncodePrivateKey;
    let scalar = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(&stored.secret)
        .ok()?;
    let secret = p256::ecdsa::SigningKey::from_slice(&scalar).ok()?;
    let der = secret.to_pkcs8_der().ok()?;
    let signing = EncodingKey::from_ec_der(der.as_bytes());
    let mut public = Jwk::from_encoding_key(&signing, Algorithm::ES256).ok()?;
    public.common.key_id = Some(stored.kid.clone());
    public.common.public_key_use = Some(jsonwebtoken::jwk::PublicKeyUse::Signature);
    Some(Key {
        kid: stored.kid.clone(),
        signing,
        public,
        created: stored.created,
    })
}

#[cfg(test)]
mod tests {
    use super::Keys;
    use crate::task::MemoryStore;

    #[tokio::test]
    async fn replicas_sharing_a_store_sign_with_one_key() {
        let store = MemoryStore::new();
        let one = Keys::load(&store).await.unwrap();
        let other = Keys::load(&store).await.unwrap();
        assert_eq!(one.signing().0, other.signing().0);
        let jwks = one.public();
        assert_eq!(jwks.len(), 1);
        assert_eq!(
            jwks[0].common.key_id.as_deref(),
            Some(one.signing().0.as_str())
        );
        // A token one signs, the other's public key verifies.
        let (kid, key) = one.signing();
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = Some(kid);
        let token = jsonwebtoken::encode(
            &header,
            &serde_json::json!({"sub": "a", "exp": 4_000_000_000u64}),
            &key,
        )
        .unwrap();
        let decoding = jsonwebtoken::DecodingKey::from_jwk(&other.public()[0]).unwrap();
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.required_spec_claims.clear();
        validation.validate_aud = false;
        jsonwebtoken::decode::<serde_json::Value>(&token, &decoding, &validation).unwrap();
    }

    #[tokio::test]
    async fn a_key_older_than_thirty_days_is_replaced_and_still_published() {
        use crate::task::TaskStore;
        let store = MemoryStore::new();
        let old = super::StoredKey {
            created: super::now() - super::ROTATE - 1,
            ..super::make()
        };
        let text = serde_json::to_string(&vec![old.clone()]).unwrap();
        store
            .put(super::key::KEYS, &text, super::FOREVER)
            .await
            .unwrap();
        let keys = Keys::load(&store).await.unwrap();
        let (kid, _) = keys.signing();
        assert_ne!(kid, old.kid, "the old key still signs");
        let published: Vec<_> = keys
            .public()
            .into_iter()
            .filter_map(|k| k.common.key_id)
            .collect();
        assert_eq!(published.len(), 2);
        assert!(
            published.contains(&old.kid),
            "the old key is no longer published"
        );
        // Another replica reads the same keys, and does not replace them again.
        let other = Keys::load(&store).await.unwrap();
        assert_eq!(other.signing().0, kid);
    }
}

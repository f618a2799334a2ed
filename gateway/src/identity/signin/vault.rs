//! The users' upstream tokens at rest: sealed with AES-256-GCM under the configured
//! `token_key` (base64 of 32 bytes), the store key they are kept under as the associated
//! data, so that a sealed value moved under another key (another user's, another
//! upstream's) does not open.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use sha2::Digest;

/// The length of a nonce of AES-GCM.
const NONCE: usize = 12;

/// A key to seal and open with.
pub(crate) struct Vault(Aes256Gcm);

impl Vault {
    /// The key `token_key` gives (after `${NAME}` / `${file:PATH}` expansion): base64 (standard
    /// or URL-safe, padded or not) of exactly 32 bytes. An error says what is wrong, never
    /// the key.
    pub(crate) fn from_config(token_key: &str) -> Result<Vault, String> {
        let text = crate::secret::expand(token_key)?;
        let text = text.trim();
        let bytes = STANDARD
            .decode(text)
            .or_else(|_| URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')))
            .map_err(|_| "`token_key` is not base64: give base64 of 32 random bytes (`openssl rand -base64 32`)".to_owned())?;
        if bytes.len() != 32 {
            return Err(format!(
                "`token_key` is {} bytes: give base64 of exactly 32 random bytes (`openssl rand -base64 32`)",
                bytes.len()
            ));
        }
        Aes256Gcm::new_from_slice(&bytes)
            .map(Vault)
            .map_err(|_| "`token_key` is not an AES-256 key".to_owned())
    }

    /// `plain` sealed for the store key `key`: base64 of a fresh nonce and the ciphertext.
    pub(crate) fn seal(&self, key: &str, plain: &[u8]) -> Result<String, String> {
        let nonce = random_bytes::<NONCE>()?;
        let sealed = self
            .0
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: plain,
                    aad: key.as_bytes(),
                },
            )
            .map_err(|_| "the value could not be sealed".to_owned())?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        Ok(STANDARD.encode(out))
    }

    /// What [`seal`](Vault::seal) sealed for `key`; an error for a value sealed under another
    /// key, another store key, or changed.
    pub(crate) fn open(&self, key: &str, sealed: &str) -> Result<Vec<u8>, String> {
        let bytes = STANDARD
            .decode(sealed)
            .map_err(|_| "the stored value is not sealed".to_owned())?;
        if bytes.len() < NONCE + 16 {
            return Err("the stored value is too short to be sealed".to_owned());
        }
        let (nonce, sealed) = bytes.split_at(NONCE);
        self.0
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: key.as_bytes(),
                },
            )
            .map_err(|_| {
                "the stored value does not open with this `token_key` (another key, or changed)"
                    .to_owned()
            })
    }

    /// `value` serialized and sealed for `key`.
    pub(crate) fn seal_json(
        &self,
        key: &str,
        value: &impl serde::Serialize,
    ) -> Result<String, String> {
        let plain = serde_json::to_vec(value).map_err(|e| e.to_string())?;
        self.seal(key, &plain)
    }

    /// What [`seal_json`](Vault::seal_json) sealed for `key`.
    pub(crate) fn open_json<T: serde::de::DeserializeOwned>(
        &self,
        key: &str,
        sealed: &str,
    ) -> Result<T, String> {
        let plain = self.open(key, sealed)?;
        serde_json::from_slice(&plain).map_err(|e| format!("the stored value is not readable: {e}"))
    }
}

/// Never the key.
impl std::fmt::Debug for Vault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Vault(..)")
    }
}

/// `N` random bytes of the system's generator.
pub(crate) fn random_bytes<const N: usize>() -> Result<[u8; N], String> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random bytes: {e}"))?;
    Ok(bytes)
}

/// 32 random bytes, base64url: a state, a PKCE verifier, a cookie.
pub(crate) fn random_text() -> Result<String, String> {
    Ok(URL_SAFE_NO_PAD.encode(random_bytes::<32>()?))
}

/// The PKCE S256 challenge of `verifier` (RFC 7636 §4.2).
pub(crate) fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::digest;

    const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    #[test]
    fn a_sealed_value_opens_under_its_own_key_only() {
        let vault = Vault::from_config(KEY).unwrap();
        let sealed = vault
            .seal("gateway:upstream-token:a:1", b"secret-token")
            .unwrap();
        assert!(!sealed.contains("secret-token"));
        assert_eq!(
            vault.open("gateway:upstream-token:a:1", &sealed).unwrap(),
            b"secret-token"
        );
        // Another store key (another user's), another token_key, a changed byte: refused.
        let err = vault
            .open("gateway:upstream-token:a:2", &sealed)
            .unwrap_err();
        assert!(err.contains("does not open"), "{err}");
        let other = Vault::from_config(&STANDARD.encode([7u8; 32])).unwrap();
        assert!(other.open("gateway:upstream-token:a:1", &sealed).is_err());
        let mut bytes = STANDARD.decode(&sealed).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        assert!(
            vault
                .open("gateway:upstream-token:a:1", &STANDARD.encode(bytes))
                .is_err()
        );
        // Two seals of one value differ (a fresh nonce each).
        assert_ne!(
            sealed,
            vault
                .seal("gateway:upstream-token:a:1", b"secret-token")
                .unwrap()
        );
    }

    #[test]
    fn a_wrong_token_key_is_named_without_showing_it() {
        let short = Vault::from_config(&STANDARD.encode([1u8; 16])).unwrap_err();
        assert!(
            short.contains("is 16 bytes") && short.contains("32"),
            "{short}"
        );
        let garbage = Vault::from_config("not base64 at all!").unwrap_err();
        assert!(
            garbage.contains("not base64") && !garbage.contains("at all"),
            "{garbage}"
        );
        let unset = Vault::from_config("${TOOLSMITH_NO_SUCH_TOKEN_KEY}").unwrap_err();
        assert!(unset.contains("TOOLSMITH_NO_SUCH_TOKEN_KEY"), "{unset}");
        assert_eq!(
            format!("{:?}", Vault::from_config(KEY).unwrap()),
            "Vault(..)"
        );
    }

    #[test]
    fn pkce_s256_is_rfc_7636s() {
        // RFC 7636 Appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert_eq!(
            challenge(verifier),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert_ne!(random_text().unwrap(), random_text().unwrap());
        assert_eq!(digest("abc").len(), 64);
    }
}

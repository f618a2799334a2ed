//! Keys and tokens made in the test: an RSA and an EC (P-256) signing key, their JWKS, and
//! JWTs of any shape (good, expired, for another audience, signed by a stranger, `alg:
//! none`, ...).

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// One signing key and its public JWK.
#[derive(Clone)]
pub struct Key {
    pub kid: String,
    pub alg: Algorithm,
    encoding: EncodingKey,
    pub jwk: Jwk,
}

impl Key {
    /// A fresh RSA-2048 key (RS256) named `kid`.
    pub fn rsa(kid: &str) -> Key {
        use rsa::pkcs1::EncodeRsaPrivateKey;
        let mut rng = getrandom::SysRng;
        let private = rsa::PrivateKey::new(&mut rng, 2048).expect("an RSA key");
        let der = private.to_pkcs1_der().expect("PKCS#1 DER");
        Key::from(
            kid,
            Algorithm::RS256,
            EncodingKey::from_rsa_der(der.as_bytes()),
        )
    }

    /// A fresh P-256 key (ES256) named `kid`.
    pub fn ec(kid: &str) -> Key {
        use p256::elliptic_curve::Generate;
        use p256::pkcs8::EncodePrivateKey;
        let secret = p256::SecretKey::generate();
        let der = secret.to_pkcs8_der().expect("PKCS#8 DER");
        Key::from(
            kid,
            Algorithm::ES256,
            EncodingKey::from_ec_der(der.as_bytes()),
        )
    }

    fn from(kid: &str, alg: Algorithm, encoding: EncodingKey) -> Key {
        let mut jwk = Jwk::from_encoding_key(&encoding, alg).expect("a public JWK");
        jwk.common.key_id = Some(kid.to_owned());
        Key {
            kid: kid.to_owned(),
            alg,
            encoding,
            jwk,
        }
    }

    /// A token of `claims`, signed by this key, its header naming `kid`.
    pub fn sign(&self, claims: &Value) -> String {
        self.sign_as(claims, Some(&self.kid))
    }

    /// A token of `claims`, signed by this key, its header naming `kid` (or none).
    pub fn sign_as(&self, claims: &Value, kid: Option<&str>) -> String {
        let mut header = Header::new(self.alg);
        header.kid = kid.map(str::to_owned);
        jsonwebtoken::encode(&header, claims, &self.encoding).expect("a signed token")
    }

    /// A token of `claims`, signed by this key, its header naming `kid` and `typ` (or no
    /// `typ`).
    pub fn sign_typed(&self, claims: &Value, typ: Option<&str>) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.clone());
        header.typ = typ.map(str::to_owned);
        jsonwebtoken::encode(&header, claims, &self.encoding).expect("a signed token")
    }
}

/// The JWKS document of `keys`.
pub fn jwks(keys: &[&Key]) -> String {
    let set = JwkSet {
        keys: keys.iter().map(|k| k.jwk.clone()).collect(),
    };
    serde_json::to_string(&set).unwrap()
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The claims of a token for `audience` from `issuer`, valid for an hour, granting `scope`.
pub fn claims(issuer: &str, audience: &str, subject: &str, scope: &str) -> Value {
    let now = now();
    json!({
        "iss": issuer,
        "aud": audience,
        "sub": subject,
        "scope": scope,
        "iat": now,
        "nbf": now - 5,
        "exp": now + 3600,
    })
}

/// An unsigned token (`alg: none`) of `claims`.
pub fn unsigned(claims: &Value) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let body = URL_SAFE_NO_PAD.encode(claims.to_string());
    format!("{header}.{body}.")
}

/// A token of `claims` signed with HS256 and the shared secret `secret`.
pub fn hs256(claims: &Value, secret: &[u8]) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret).unwrap(),
    )
    .unwrap()
}

/// `token` with its signature's first character changed.
pub fn tampered(token: &str) -> String {
    let (rest, signature) = token.rsplit_once('.').unwrap();
    let mut chars: Vec<char> = signature.chars().collect();
    chars[0] = if chars[0] == 'A' { 'B' } else { 'A' };
    format!("{rest}.{}", chars.into_iter().collect::<String>())
}

//! How the gateway authenticates as its own client at a token endpoint: a client secret as
//! HTTP Basic credentials (client_secret_basic, RFC 6749 section 2.3.1), or a JWT it signs
//! with its private key (private_key_jwt, RFC 7523). Secrets are read (`${ENV}`,
//! `${file:PATH}`) each time they are used: a rotated file is picked up.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Serialize;

/// The `client_assertion_type` of a JWT client assertion (RFC 7523 section 2.2).
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How long a client assertion is valid.
const ASSERTION_LIFETIME_SECS: u64 = 60;

/// The gateway's client credentials, as configured (secrets not yet read).
#[derive(Clone)]
pub(crate) enum ClientAuth {
    Secret(String),
    Key { pem: String, key_id: Option<String> },
}

/// What a token request carries to authenticate.
pub(crate) enum Credentials {
    /// The `Authorization` header's value.
    Basic(String),
    /// A signed client assertion (form fields `client_assertion_type`, `client_assertion`).
    Assertion(String),
}

#[derive(Serialize)]
struct AssertionClaims<'a> {
    iss: &'a str,
    sub: &'a str,
    aud: &'a str,
    jti: String,
    iat: u64,
    exp: u64,
}

impl ClientAuth {
    /// The credentials of one request of `client_id` to `endpoint`; an error says what is
    /// wrong with the secret or the key (never their content).
    pub(crate) fn credentials(
        &self,
        client_id: &str,
        endpoint: &str,
    ) -> Result<Credentials, String> {
        match self {
            ClientAuth::Secret(value) => {
                let secret = crate::secret::expand(value)
                    .map_err(|why| format!("the gateway's client secret: {why}"))?;
                Ok(Credentials::Basic(basic(client_id, &secret)))
            }
            ClientAuth::Key { pem, key_id } => {
                let pem = crate::secret::expand(pem)
                    .map_err(|why| format!("the gateway's private key: {why}"))?;
                assertion(client_id, endpoint, &pem, key_id.as_deref()).map(Credentials::Assertion)
            }
        }
    }
}

/// `Basic base64(id:secret)`, each part form-urlencoded first (RFC 6749 section 2.3.1).
pub(crate) fn basic(client_id: &str, secret: &str) -> String {
    let encode =
        |text: &str| url::form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
    let pair = format!("{}:{}", encode(client_id), encode(secret));
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// A client assertion: iss = sub = `client_id`, aud = `endpoint`, a random jti, valid 60 s;
/// ES256 with an EC (P-256, PKCS#8) key, RS256 with an RSA key.
fn assertion(
    client_id: &str,
    endpoint: &str,
    pem: &str,
    key_id: Option<&str>,
) -> Result<String, String> {
    let (key, alg) = match EncodingKey::from_ec_pem(pem.as_bytes()) {
        Ok(key) => (key, Algorithm::ES256),
        Err(_) => match EncodingKey::from_rsa_pem(pem.as_bytes()) {
            Ok(key) => (key, Algorithm::RS256),
            Err(_) => {
                return Err("the gateway's private key is not a PEM private key it can sign with: give an EC P-256 key in PKCS#8 (`BEGIN PRIVATE KEY`, `openssl pkcs8 -topk8 -nocrypt`) or an RSA key".into());
            }
        },
    };
    let mut jti = [0u8; 16];
    getrandom::fill(&mut jti)
        .map_err(|err| format!("no randomness for the client assertion: {err}"))?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let claims = AssertionClaims {
        iss: client_id,
        sub: client_id,
        aud: endpoint,
        jti: jti.iter().map(|b| format!("{b:02x}")).collect(),
        iat: now,
        exp: now + ASSERTION_LIFETIME_SECS,
    };
    let mut header = Header::new(alg);
    header.typ = Some("JWT".into());
    header.kid = key_id.map(str::to_owned);
    jsonwebtoken::encode(&header, &claims, &key).map_err(|err| {
        format!("the gateway's private key cannot sign {alg:?} ({err}): an EC key must be P-256")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_credentials_are_form_urlencoded_then_base64() {
        let header = basic("gate way", "s:e/c+r%t");
        let encoded = header.strip_prefix("Basic ").unwrap();
        let pair = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .unwrap();
        assert_eq!(
            String::from_utf8(pair).unwrap(),
            "gate+way:s%3Ae%2Fc%2Br%25t"
        );
    }

    #[test]
    fn a_key_that_is_not_one_and_a_missing_secret_are_named() {
        let key = ClientAuth::Key {
            pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".into(),
            key_id: None,
        };
        let Err(why) = key.credentials("gateway", "https://idp/token") else {
            panic!("a broken key signs");
        };
        assert!(
            why.contains("not a PEM private key") && !why.contains("AAAA"),
            "{why}"
        );
        let secret = ClientAuth::Secret("${TOOLSMITH_NO_SUCH_SECRET}".into());
        let Err(why) = secret.credentials("gateway", "https://idp/token") else {
            panic!("a missing secret is sent");
        };
        assert!(
            why.contains("client secret") && why.contains("TOOLSMITH_NO_SUCH_SECRET"),
            "{why}"
        );
    }
}

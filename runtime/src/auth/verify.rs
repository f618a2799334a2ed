//! Checking a bearer token: a JWT signed by one of the issuer's keys with an accepted
//! algorithm, issued by the issuer, for this server, and valid now (and, when asked, of the
//! access token type).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde_json::{Map, Value};

use super::Auth;
use super::jwks::KeySet;
use super::refresh::{self, Refreshing};
use crate::{Error, context::Caller};

/// The signature algorithms accepted: asymmetric only (`none` and the HS* family, whose
/// secret a resource server would have to share, never are).
const ACCEPTED: [Algorithm; 8] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
];

/// Why a token was refused, said to the client in `error_description` (never more than it
/// needs: no claim values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rejected(pub(crate) Cow<'static, str>);

/// A refusal for `why`.
fn no(why: &'static str) -> Rejected {
    Rejected(Cow::Borrowed(why))
}

/// Checks tokens against one issuer's keys.
pub(crate) struct Verifier {
    keys: Arc<KeySet>,
    validation: Validation,
    /// The `typ` a token's header must have (without `application/`), when one must.
    token_type: Option<String>,
    /// Tokens already verified, with their caller, `exp` and the key set's generation then:
    /// a client sends the same token with every request, and checking a signature costs far
    /// more than serving a call.
    verified: Mutex<Verified>,
    /// Reads the keys again while the verifier lives.
    _refreshing: Refreshing,
}

/// Verified tokens by their text.
type Verified = HashMap<Box<str>, Entry, foldhash::fast::RandomState>;

/// A verified token.
struct Entry {
    caller: Caller,
    /// Its `exp`.
    exp: u64,
    /// The key set's [generation](KeySet::generation) it was verified in.
    generation: u64,
}

/// The most verified tokens kept; past it, expired ones are dropped, then all.
const KEPT: usize = 4096;

impl Verifier {
    /// A verifier for `auth`'s issuer, accepting tokens for `resource` (the server's public
    /// URL) or one of `auth`'s audiences.
    pub(crate) async fn new(auth: &Auth, resource: &str) -> Result<Verifier, Error> {
        let token_type = auth.token_type.as_deref().map(token_type).transpose()?;
        #[cfg(feature = "signin")]
        let keys = match &auth.local {
            Some(local) => KeySet::local(local.clone(), auth.refetch).await?,
            None => KeySet::load(&auth.jwks, auth.refetch).await?,
        };
        #[cfg(not(feature = "signin"))]
        let keys = KeySet::load(&auth.jwks, auth.refetch).await?;
        let keys = Arc::new(keys);
        let mut validation = Validation::new(Algorithm::RS256);
        validation.algorithms = ACCEPTED.to_vec();
        validation.set_issuer(&[&auth.issuer]);
        // Compared exactly, as RFC 8707 resource indicators are: `…/mcp/` is not `…/mcp`.
        let mut audiences = vec![resource.to_owned()];
        audiences.extend(auth.audiences.iter().cloned());
        validation.set_audience(&audiences);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = super::LEEWAY.as_secs();
        Ok(Verifier {
            _refreshing: refresh::spawn(keys.clone(), auth.refresh),
            keys,
            validation,
            token_type,
            verified: Mutex::default(),
        })
    }

    /// The caller `token` stands for, or why it is refused. A token verified before is
    /// taken from the cache until its `exp` (never past it), unless a read of the keys
    /// dropped a key since: it is then verified again, against the keys now trusted.
    pub(crate) async fn verify(&self, token: &str) -> Result<Caller, Rejected> {
        let now = jsonwebtoken::get_current_timestamp();
        let generation = self.keys.generation();
        if let Some(entry) = self.lock().get(token)
            && now < entry.exp
            && entry.generation == generation
        {
            return Ok(entry.caller.clone());
        }
        let caller = self.check(token).await?;
        if let Some(exp) = caller.claim("exp").and_then(Value::as_u64) {
            let mut verified = self.lock();
            if verified.len() >= KEPT {
                verified.retain(|_, entry| now < entry.exp);
                if verified.len() >= KEPT {
                    verified.clear();
                }
            }
            let entry = Entry {
                caller: caller.clone(),
                exp,
                generation,
            };
            verified.insert(token.into(), entry);
        }
        Ok(caller)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Verified> {
        self.verified.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Verifies `token` in full.
    async fn check(&self, token: &str) -> Result<Caller, Rejected> {
        let header = decode_header(token).map_err(|_| match named_algorithm(token) {
            Some(_) => no("the token's signature algorithm is not accepted"),
            None => no("the token is not a signed JWT"),
        })?;
        if !ACCEPTED.contains(&header.alg) {
            return Err(no("the token's signature algorithm is not accepted"));
        }
        if let Some(wanted) = &self.token_type
            && !header
                .typ
                .as_deref()
                .is_some_and(|typ| bare(typ).eq_ignore_ascii_case(wanted))
        {
            return Err(Rejected(Cow::Owned(format!(
                "the token's typ is not {wanted}: only access tokens are accepted, not ID tokens or other JWTs"
            ))));
        }
        let candidates = self.keys.candidates(header.kid.as_deref()).await;
        let candidates = candidates.iter().filter(|jwk| {
            jwk.common
                .key_algorithm
                .is_none_or(|alg| Algorithm::try_from(alg).ok() == Some(header.alg))
        });
        let mut validation = self.validation.clone();
        validation.algorithms = vec![header.alg];
        let mut outcome = Err(no("the token is signed by a key this server does not know"));
        for jwk in candidates {
            let Ok(key) = DecodingKey::from_jwk(jwk) else {
                continue;
            };
            match decode::<Map<String, Value>>(token, &key, &validation) {
                Ok(data) => return caller(data.claims).map(|c| c.with_token(token)),
                Err(err) => outcome = Err(rejected(err.kind())),
            }
        }
        outcome
    }
}

/// The `alg` a token's header names, when jsonwebtoken does not know it (`none`, ...).
fn named_algorithm(token: &str) -> Option<String> {
    use base64::Engine;
    let header = token.split('.').next()?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header.trim_end_matches('='))
        .ok()?;
    let header: Value = serde_json::from_slice(&bytes).ok()?;
    header.get("alg")?.as_str().map(str::to_owned)
}

/// A media type without its `application/` prefix, which a JWT's `typ` may leave out (RFC
/// 7515 §4.1.9): `application/at+jwt` is `at+jwt`.
fn bare(media_type: &str) -> &str {
    let prefix = "application/";
    match media_type.get(..prefix.len()) {
        Some(head) if head.eq_ignore_ascii_case(prefix) => &media_type[prefix.len()..],
        _ => media_type,
    }
}

/// The token type `Auth::token_type` names, checked: a media type's name (`at+jwt`).
fn token_type(wanted: &str) -> Result<String, Error> {
    let name = bare(wanted.trim());
    let allowed = |c: char| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c);
    if name.is_empty() || !name.chars().all(allowed) {
        return Err(Error::config(
            "token type",
            format!(
                "the token type {wanted:?} is not a media type name: give the typ access tokens carry, e.g. at+jwt"
            ),
        ));
    }
    Ok(name.to_owned())
}

fn rejected(kind: &jsonwebtoken::errors::ErrorKind) -> Rejected {
    use jsonwebtoken::errors::ErrorKind as K;
    no(match kind {
        K::InvalidSignature => "the token's signature does not verify",
        K::ExpiredSignature => "the token has expired",
        K::ImmatureSignature => "the token is not valid yet",
        K::InvalidIssuer => "the token was not issued by the trusted issuer",
        K::InvalidAudience => "the token is not meant for this server (aud)",
        K::MissingRequiredClaim(_) => "the token lacks a required claim (exp, iss, aud)",
        K::InvalidAlgorithm => "the token's algorithm does not match its key",
        _ => "the token is invalid",
    })
}

/// The caller of verified claims: `sub`, and the scopes of `scope` (space-separated) or
/// `scp` (a list or a string). A `sub` that is not a string makes the token invalid (RFC
/// 7519 §4.1.2: a StringOrURI): read as no subject, two such tokens would be one caller.
fn caller(claims: Map<String, Value>) -> Result<Caller, Rejected> {
    let subject = match claims.get("sub") {
        None => String::new(),
        Some(Value::String(subject)) => subject.clone(),
        Some(_) => return Err(no("the token's subject (sub) is not a string")),
    };
    let mut scopes: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    let mut add = |scope: &str| {
        if !scope.is_empty() && seen.insert(scope.to_owned()) {
            scopes.push(scope.to_owned());
        }
    };
    for key in ["scope", "scp"] {
        match claims.get(key) {
            Some(Value::String(list)) => list.split_ascii_whitespace().for_each(&mut add),
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).for_each(&mut add),
            _ => {}
        }
    }
    Ok(Caller::new(subject, scopes).with_claims(claims))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Entry, Verifier, bare, caller, token_type};
    use crate::auth::Auth;
    use crate::context::Caller;

    #[tokio::test]
    async fn a_verified_token_is_kept_until_its_exp_and_never_past_it() {
        let file = std::env::temp_dir().join(format!("toolsmith-jwks-{}.json", std::process::id()));
        std::fs::write(&file, r#"{"keys": []}"#).unwrap();
        let auth = Auth::new("https://issuer.test", file.display().to_string());
        let verifier = Verifier::new(&auth, "http://127.0.0.1:1/mcp")
            .await
            .unwrap();
        std::fs::remove_file(&file).unwrap();
        let now = jsonwebtoken::get_current_timestamp();
        let alice = Caller::new("alice", ["tools:read"]);
        let entry = |exp| Entry {
            caller: alice.clone(),
            exp,
            generation: 0,
        };
        verifier.lock().insert("fresh".into(), entry(now + 100));
        verifier.lock().insert("stale".into(), entry(now - 1));
        assert_eq!(verifier.verify("fresh").await, Ok(alice));
        // Past its exp, the token is checked again in full (and this one is no JWT).
        assert!(verifier.verify("stale").await.is_err());
    }

    #[test]
    fn a_token_type_is_a_media_type_name_with_or_without_application() {
        assert_eq!(bare("application/at+jwt"), "at+jwt");
        assert_eq!(bare("Application/AT+JWT"), "AT+JWT");
        assert_eq!(bare("at+jwt"), "at+jwt");
        assert_eq!(bare("app"), "app");
        assert_eq!(token_type("application/at+jwt").unwrap(), "at+jwt");
        assert_eq!(token_type(" at+jwt ").unwrap(), "at+jwt");
        for bad in ["", "application/", "at jwt", "at\"jwt"] {
            let err = token_type(bad).unwrap_err().to_string();
            assert!(err.contains("e.g. at+jwt"), "{bad}: {err}");
        }
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let claims = |v: serde_json::Value| v.as_object().unwrap().clone();
        let c = caller(claims(
            json!({"sub": "alice", "scope": "tools:read  tools:write"}),
        ))
        .unwrap();
        assert_eq!(c.subject(), Some("alice"));
        assert_eq!(c.scopes(), ["tools:read", "tools:write"]);
        let c = caller(claims(
            json!({"sub": "bob", "scp": ["tools:read", "tools:read"]}),
        ))
        .unwrap();
        assert_eq!(c.scopes(), ["tools:read"]);
        let c = caller(claims(json!({"sub": "carol"}))).unwrap();
        assert!(c.scopes().is_empty() && !c.is_anonymous());
    }

    #[test]
    fn a_subject_that_is_not_a_string_makes_the_token_invalid() {
        let claims = |v: serde_json::Value| v.as_object().unwrap().clone();
        for sub in [
            json!(1),
            json!(2.5),
            json!(null),
            json!(["a"]),
            json!({"a": 1}),
        ] {
            let err = caller(claims(json!({"sub": sub, "iss": "https://a"}))).unwrap_err();
            assert_eq!(err.0, "the token's subject (sub) is not a string", "{sub}");
        }
        assert!(
            caller(claims(json!({"iss": "https://a"}))).is_ok(),
            "no sub at all"
        );
    }

    #[test]
    fn tokens_that_name_no_subject_and_no_client_are_each_their_own_caller() {
        let claims = |v: serde_json::Value| v.as_object().unwrap().clone();
        let anonymous_token = || caller(claims(json!({"iss": "https://a", "aud": "x"}))).unwrap();
        let one = anonymous_token().with_token("token-one");
        let two = anonymous_token().with_token("token-two");
        assert_ne!(one.identity(), two.identity());
        assert_eq!(
            one.bearer(),
            Some("token-one"),
            "the token as sent, for a gateway"
        );
        assert_eq!(
            one.identity(),
            anonymous_token().with_token("token-one").identity()
        );
        assert!(
            !one.identity().contains("token-one"),
            "only a digest is kept"
        );
        // A subject or a client names the caller, whichever token it presents.
        let alice = |t| {
            caller(claims(json!({"iss": "https://a", "sub": "alice"})))
                .unwrap()
                .with_token(t)
        };
        assert_eq!(alice("t1").identity(), alice("t2").identity());
        let client = |t| {
            caller(claims(json!({"iss": "https://a", "azp": "svc"})))
                .unwrap()
                .with_token(t)
        };
        assert_eq!(client("t1").identity(), client("t2").identity());
        assert_ne!(client("t1").identity(), one.identity());
    }

    #[test]
    fn a_sign_in_token_is_one_caller_per_user_and_provider() {
        // The sign-in's own tokens: iss = the authorization server, sub = the provider's
        // subject, idp = the provider.
        let signed_in = |sub: &str, idp: &str| {
            let claims = json!({"iss": "http://127.0.0.1:8123", "sub": sub, "idp": idp,
                "email": format!("{sub}@example.com"), "groups": ["staff"]});
            caller(claims.as_object().unwrap().clone()).unwrap()
        };
        let google = "https://accounts.google.com";
        let ann = signed_in("1", google);
        assert_eq!(ann.identity(), signed_in("1", google).identity());
        assert_ne!(ann.identity(), signed_in("2", google).identity());
        assert_ne!(
            ann.identity(),
            signed_in("1", "https://github.com").identity()
        );
        assert_eq!(
            (ann.issuer(), ann.email(), ann.groups()),
            (Some(google), Some("1@example.com"), vec!["staff"])
        );
    }
}

//! [`Issuing`]: tokens of the server's own authorization server for another server that
//! trusts it (a gateway's upstream), minted for the caller of a tool.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::records::{now, random};
use super::server::AuthServer;
use crate::context::{CallContext, Caller, FromContext};

/// The server's own authorization server ([`Server::sign_in`](crate::Server::sign_in)), as a
/// context parameter: it mints, for the caller of a tool, an access token of another
/// audience (a server behind this one that trusts its JWKS, at
/// `/oauth/jwks`), so that the other server sees the user, never this server's client. The
/// caller's own token is never passed on.
///
/// A minted token names the caller as theirs does (`sub`, `idp`, `email`, `groups`, `name`),
/// the audience and scopes asked for, and this server as the one acting for the user
/// (`act`, RFC 8693). It lives at most as long as the caller's token; revoking the caller's
/// sign-in does not reach a token minted before: keep their lifetimes short.
///
/// ```
/// use std::time::Duration;
/// use toolsmith::context::Caller;
/// use toolsmith::signin::Issuing;
///
/// /// Ask the archive (which trusts this server's tokens) as the caller.
/// #[toolsmith::tool(read_only, open_world)]
/// fn archive_token(caller: Caller, issuing: Issuing) -> Result<String, toolsmith::ToolError> {
///     let minted = issuing
///         .mint(&caller, "https://archive.example/mcp", &["archive:read"], Duration::from_secs(300))
///         .map_err(toolsmith::ToolError::new)?;
///     Ok(format!("a token until {:?}", minted.expires_at))
/// }
///
/// // Outside a server that signs users in, there is nothing to mint with.
/// let err = Issuing::default()
///     .mint(&Caller::new("alice", ["tools:read"]), "https://archive.example/mcp", &[], Duration::from_secs(60))
///     .unwrap_err();
/// assert!(err.contains("signs users in"), "{err}");
/// ```
#[derive(Clone, Default)]
pub struct Issuing(Arc<OnceLock<Arc<AuthServer>>>);

/// A token [`Issuing::mint`] made.
#[derive(Clone)]
pub struct Minted {
    /// The token (a signed JWT), to send as `Authorization: Bearer …`.
    pub token: String,
    /// When it expires.
    pub expires_at: SystemTime,
}

/// Never the token itself.
impl std::fmt::Debug for Minted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Minted")
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Issuing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Issuing")
            .field("serving", &self.0.get().is_some())
            .finish()
    }
}

impl Issuing {
    /// The authorization server started: it mints from now on.
    pub(crate) fn serve(&self, server: Arc<AuthServer>) {
        let _ = self.0.set(server);
    }

    /// The issuer its tokens name (the server's public origin), once serving.
    ///
    /// ```
    /// assert_eq!(toolsmith::signin::Issuing::default().issuer(), None);
    /// ```
    pub fn issuer(&self) -> Option<&str> {
        self.0.get().map(|server| server.issuer())
    }

    /// A token for `audience` with `scopes`, naming `caller` (who must hold one of this
    /// server's own tokens), living `lifetime` at most (and never past the caller's token).
    /// An error says why none is made: the server does not sign users in, or the caller is
    /// not one of its users.
    pub fn mint(
        &self,
        caller: &Caller,
        audience: &str,
        scopes: &[&str],
        lifetime: Duration,
    ) -> Result<Minted, String> {
        let Some(server) = self.0.get() else {
            return Err(
                "no token can be minted: this server signs users in only when it serves over HTTP with sign-in (--signin-*)"
                    .into(),
            );
        };
        if caller.claim("iss").and_then(Value::as_str) != Some(server.issuer()) {
            return Err(format!(
                "no token can be minted for this caller: their token is not one {} issued",
                server.issuer()
            ));
        }
        let issued = now();
        let until = caller
            .claim("exp")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX)
            .min(issued.saturating_add(lifetime.as_secs()));
        if until <= issued {
            return Err("no token can be minted: the caller's token has expired".into());
        }
        let mut claims = json!({
            "iss": server.issuer(),
            "aud": audience,
            "sub": caller.subject(),
            "scope": scopes.join(" "),
            "jti": random(16),
            "iat": issued,
            "exp": until,
            "act": {"sub": server.issuer()},
        });
        for name in [
            "idp",
            "email",
            "email_verified",
            "groups",
            "name",
            "client_id",
        ] {
            if let Some(value) = caller.claim(name) {
                claims[name] = value.clone();
            }
        }
        let (kid, key) = server.keys.signing();
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.typ = Some("at+jwt".to_owned());
        header.kid = Some(kid);
        let token = jsonwebtoken::encode(&header, &claims, &key)
            .map_err(|err| format!("the token could not be signed: {err}"))?;
        Ok(Minted {
            token,
            expires_at: SystemTime::UNIX_EPOCH + Duration::from_secs(until),
        })
    }
}

/// A tool of a server that does not sign users in gets an `Issuing` that mints nothing
/// (its error says why).
impl FromContext for Issuing {
    type Rejection = std::convert::Infallible;

    fn from_context(context: &CallContext) -> Result<Self, Self::Rejection> {
        Ok(context
            .states
            .get::<Issuing>()
            .map(|issuing| (*issuing).clone())
            .unwrap_or_default())
    }
}

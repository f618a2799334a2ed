//! [`Caller`]: who is calling, as the transport established it.

use std::sync::Arc;

use serde_json::{Map, Value};

/// Who is calling a tool: a context parameter (`fn tool(caller: Caller, ...)`).
///
/// Over HTTP with authorization (feature `auth`), it is the holder of the access token: its
/// subject (`sub`), the scopes it was granted and every claim of the token, with what its
/// provider says of it: [`issuer`](Caller::issuer), verified [`email`](Caller::email),
/// [`groups`](Caller::groups) (approval rules name callers by these). Over stdio, and
/// over HTTP without authorization, it is the local user: anonymous, with no scopes.
///
/// The server has already checked that the token may call the tool; a tool uses `Caller` for
/// finer decisions (whose notes to show) or for audit.
///
/// ```
/// use toolsmith::{context::Caller, tool};
///
/// /// Say who is calling.
/// #[tool(read_only)]
/// fn whoami(caller: Caller) -> String {
///     caller.subject().unwrap_or("anonymous").to_owned()
/// }
///
/// assert_eq!(whoami(Caller::anonymous()), "anonymous");
/// let alice = Caller::new("alice", ["tools:read"]);
/// assert_eq!(whoami(alice), "alice");
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Caller(Option<Arc<Holder>>);

/// A token's holder (the local user has none: cloning and making a `Caller` cost nothing
/// then).
#[derive(PartialEq)]
struct Holder {
    subject: Option<String>,
    scopes: Vec<String>,
    claims: Map<String, Value>,
    /// A digest of the token itself, for a token that names no subject and no client.
    token: Option<String>,
    /// The token as the client sent it (see [`Caller::bearer`]): never printed.
    bearer: Option<String>,
    /// [`Caller::identity`], made once.
    identity: String,
}

/// Everything but the token itself.
impl std::fmt::Debug for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Holder")
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .field("claims", &self.claims)
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

impl Holder {
    fn is_anonymous(&self) -> bool {
        self.subject.is_none()
            && self.scopes.is_empty()
            && self.claims.is_empty()
            && self.token.is_none()
    }

    fn new(
        subject: Option<String>,
        scopes: Vec<String>,
        claims: Map<String, Value>,
        token: Option<String>,
    ) -> Holder {
        let mut holder = Holder {
            subject,
            scopes,
            claims,
            token,
            bearer: None,
            identity: String::new(),
        };
        holder.identity = identity_of(&holder);
        holder
    }
}

/// The identity of the local user.
const ANONYMOUS: &str = "anonymous";

/// Who a token's holder is, as one key: its issuer and subject (and the upstream provider,
/// `idp`, when the token names one); else (a client's own token) its issuer and client; else
/// (a token that names neither) the token itself.
fn identity_of(holder: &Holder) -> String {
    let claim = |name| {
        holder
            .claims
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    if holder.is_anonymous() {
        return ANONYMOUS.to_owned();
    }
    let iss = claim("iss");
    if let Some(subject) = holder.subject.as_deref().filter(|s| !s.is_empty()) {
        // A sign-in's own token names the provider that vouched for the subject (`idp`):
        // the same subject at two providers is two people.
        return match claim("idp") {
            "" => serde_json::json!([iss, subject]).to_string(),
            idp => serde_json::json!([iss, subject, idp]).to_string(),
        };
    }
    let client = Some(claim("azp"))
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| claim("client_id"));
    match (&holder.token, client.is_empty()) {
        (Some(token), true) => serde_json::json!([iss, "", "", token]).to_string(),
        _ => serde_json::json!([iss, "", client]).to_string(),
    }
}

/// No claims, for the local user.
static NO_CLAIMS: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

impl Caller {
    /// The local user: no subject, no scopes, no claims.
    ///
    /// ```
    /// let caller = toolsmith::context::Caller::anonymous();
    /// assert!(caller.is_anonymous() && caller.scopes().is_empty());
    /// ```
    pub fn anonymous() -> Self {
        Caller::default()
    }

    /// A caller with this subject and these scopes (for calling a tool from Rust, or tests).
    ///
    /// ```
    /// let caller = toolsmith::context::Caller::new("alice", ["tools:read", "tools:write"]);
    /// assert!(caller.has_scope("tools:write"));
    /// ```
    pub fn new<S: Into<String>>(
        subject: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        Caller(Some(Arc::new(Holder::new(
            Some(subject.into()),
            scopes.into_iter().map(Into::into).collect(),
            Map::new(),
            None,
        ))))
    }

    /// The same caller with these token claims.
    ///
    /// ```
    /// let mut claims = serde_json::Map::new();
    /// claims.insert("email".into(), "alice@example.com".into());
    /// let caller = toolsmith::context::Caller::new("alice", ["tools:read"]).with_claims(claims);
    /// assert_eq!(caller.claim("email").and_then(|v| v.as_str()), Some("alice@example.com"));
    /// ```
    pub fn with_claims(self, claims: Map<String, Value>) -> Self {
        let bearer = self.bearer().map(str::to_owned);
        let (subject, scopes, token) = self.into_parts();
        Caller(Some(Arc::new(Holder::new(subject, scopes, claims, token)))).holding(bearer)
    }

    /// The same caller, holding `token` as the access token it presented (what
    /// [`bearer`](Caller::bearer) answers). The HTTP transport sets it; a test or a program
    /// that authenticates callers itself may too.
    ///
    /// ```
    /// let alice = toolsmith::context::Caller::new("alice", ["tools:read"]).with_bearer("eyJ…");
    /// assert_eq!(alice.bearer(), Some("eyJ…"));
    /// // Never printed.
    /// assert!(!format!("{alice:?}").contains("eyJ"));
    /// ```
    pub fn with_bearer(self, token: impl Into<String>) -> Self {
        self.holding(Some(token.into()))
    }

    fn holding(self, bearer: Option<String>) -> Self {
        let Some(holder) = self.0 else {
            return self;
        };
        let mut holder = Arc::try_unwrap(holder).unwrap_or_else(|shared| Holder {
            subject: shared.subject.clone(),
            scopes: shared.scopes.clone(),
            claims: shared.claims.clone(),
            token: shared.token.clone(),
            bearer: None,
            identity: shared.identity.clone(),
        });
        holder.bearer = bearer;
        Caller(Some(Arc::new(holder)))
    }

    /// The access token the caller presented, as it sent it (over HTTP with authorization;
    /// `None` for the local user). For a gateway that exchanges it for a token of another
    /// server's (RFC 8693): the specification forbids passing it on as it is, and it is
    /// never printed (`Debug` leaves it out).
    ///
    /// ```
    /// use toolsmith::context::Caller;
    ///
    /// assert_eq!(Caller::anonymous().bearer(), None);
    /// assert_eq!(Caller::new("alice", ["tools:read"]).bearer(), None);
    /// ```
    pub fn bearer(&self) -> Option<&str> {
        self.0.as_ref().and_then(|holder| holder.bearer.as_deref())
    }

    /// The same caller, known by the access token it presented: a token that names no
    /// subject and no client is then an identity of its own (two such tokens share
    /// nothing). Its identity keeps a SHA-256 digest of `token`; [`bearer`](Caller::bearer) the token.
    #[cfg(feature = "auth")]
    pub(crate) fn with_token(self, token: &str) -> Self {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(token.as_bytes());
        let digest: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        let claims = self.claims().clone();
        let (subject, scopes, _) = self.into_parts();
        Caller(Some(Arc::new(Holder::new(
            subject,
            scopes,
            claims,
            Some(digest),
        ))))
        .with_bearer(token)
    }

    fn into_parts(self) -> (Option<String>, Vec<String>, Option<String>) {
        match self.0 {
            Some(holder) => match Arc::try_unwrap(holder) {
                Ok(holder) => (holder.subject, holder.scopes, holder.token),
                Err(shared) => (
                    shared.subject.clone(),
                    shared.scopes.clone(),
                    shared.token.clone(),
                ),
            },
            None => (None, Vec::new(), None),
        }
    }

    /// Who this caller is, as one key, for everything a caller owns (its tasks, its HTTP
    /// sessions, its rate-limit buckets, its confirmations): `"anonymous"` for the local
    /// user; for a token, its issuer and subject (`sub`), and the upstream provider (`idp`)
    /// when the token names one (the sign-in's own tokens do: the same subject at two
    /// providers is two callers); for a token without a subject, its issuer and client
    /// (`azp`, else `client_id`); for a token that names neither, the token itself. Two
    /// tokens that differ in any of these never share an identity.
    ///
    /// ```
    /// use toolsmith::context::Caller;
    ///
    /// assert_eq!(Caller::anonymous().identity(), "anonymous");
    /// let mut claims = serde_json::Map::new();
    /// claims.insert("iss".into(), "https://login.example.com".into());
    /// let alice = Caller::new("alice", ["tools:read"]).with_claims(claims.clone());
    /// let bob = Caller::new("bob", ["tools:read"]).with_claims(claims);
    /// assert_ne!(alice.identity(), bob.identity());
    /// assert_eq!(alice.identity(), Caller::new("alice", ["tools:write"]).with_claims(alice.claims().clone()).identity());
    ///
    /// // A sign-in's token: the same subject at two upstream providers is two callers.
    /// let signed_in = |idp: &str| {
    ///     let claims = serde_json::json!({"iss": "http://127.0.0.1:8123", "idp": idp});
    ///     Caller::new("1", ["tools:read"]).with_claims(claims.as_object().unwrap().clone())
    /// };
    /// assert_ne!(signed_in("https://github.com").identity(), signed_in("https://accounts.google.com").identity());
    /// ```
    pub fn identity(&self) -> &str {
        self.0.as_ref().map_or(ANONYMOUS, |h| &h.identity)
    }

    /// The token's subject (`sub`); `None` for the local user.
    ///
    /// ```
    /// assert_eq!(toolsmith::context::Caller::anonymous().subject(), None);
    /// ```
    pub fn subject(&self) -> Option<&str> {
        self.0.as_ref()?.subject.as_deref()
    }

    /// Whether this is the local user (no token).
    ///
    /// ```
    /// assert!(!toolsmith::context::Caller::new("alice", ["tools:read"]).is_anonymous());
    /// ```
    pub fn is_anonymous(&self) -> bool {
        self.0.as_ref().is_none_or(|h| h.is_anonymous())
    }

    /// The scopes the token grants, as it lists them (`scope` or `scp`).
    ///
    /// ```
    /// let caller = toolsmith::context::Caller::new("alice", ["tools:read"]);
    /// assert_eq!(caller.scopes(), ["tools:read".to_owned()]);
    /// ```
    pub fn scopes(&self) -> &[String] {
        self.0.as_ref().map_or(&[], |h| &h.scopes)
    }

    /// Whether the token grants `scope` itself (the order of the hint scopes is not applied
    /// here: see [`ScopeNames::permits`](crate::tool::ScopeNames::permits)).
    ///
    /// ```
    /// assert!(!toolsmith::context::Caller::anonymous().has_scope("tools:read"));
    /// ```
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes().iter().any(|s| s == scope)
    }

    /// Every claim of the token (empty for the local user).
    ///
    /// ```
    /// assert!(toolsmith::context::Caller::anonymous().claims().is_empty());
    /// ```
    pub fn claims(&self) -> &Map<String, Value> {
        self.0.as_ref().map_or(&NO_CLAIMS, |h| &h.claims)
    }

    /// One claim of the token.
    ///
    /// ```
    /// assert_eq!(toolsmith::context::Caller::anonymous().claim("sub"), None);
    /// ```
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims().get(name)
    }

    /// Who vouched for the subject: the upstream provider's issuer (claim `idp`, which the
    /// sign-in's own tokens carry) when the token names one, else the token's issuer
    /// (`iss`); `None` for the local user and a token that names neither.
    ///
    /// ```
    /// use toolsmith::context::Caller;
    ///
    /// let claims = |v: serde_json::Value| v.as_object().unwrap().clone();
    /// let signed_in = Caller::new("248289761001", ["tools:read"]).with_claims(claims(serde_json::json!({
    ///     "iss": "http://127.0.0.1:8123",
    ///     "idp": "https://accounts.google.com",
    /// })));
    /// assert_eq!(signed_in.issuer(), Some("https://accounts.google.com"));
    /// let direct = Caller::new("alice", ["tools:read"])
    ///     .with_claims(claims(serde_json::json!({"iss": "https://login.example.com"})));
    /// assert_eq!(direct.issuer(), Some("https://login.example.com"));
    /// assert_eq!(Caller::anonymous().issuer(), None);
    /// ```
    pub fn issuer(&self) -> Option<&str> {
        let text = |name| self.claim(name).and_then(Value::as_str);
        text("idp").or_else(|| text("iss"))
    }

    /// The caller's email address (claim `email`), unless the token says it is not verified
    /// (`email_verified` is `false`, or the text `"false"` as some providers write it);
    /// `None` for the local user and a token without one.
    ///
    /// ```
    /// use toolsmith::context::Caller;
    ///
    /// let with = |v: serde_json::Value| {
    ///     Caller::new("alice", ["tools:read"]).with_claims(v.as_object().unwrap().clone())
    /// };
    /// let verified = with(serde_json::json!({"email": "alice@example.com", "email_verified": true}));
    /// assert_eq!(verified.email(), Some("alice@example.com"));
    /// let unverified = with(serde_json::json!({"email": "alice@example.com", "email_verified": false}));
    /// assert_eq!(unverified.email(), None);
    /// assert_eq!(Caller::anonymous().email(), None);
    /// ```
    pub fn email(&self) -> Option<&str> {
        let unverified = match self.claim("email_verified") {
            Some(Value::Bool(verified)) => !verified,
            Some(Value::String(verified)) => verified.eq_ignore_ascii_case("false"),
            _ => false,
        };
        if unverified {
            return None;
        }
        self.claim("email").and_then(Value::as_str)
    }

    /// The groups the caller belongs to (the strings of the claim `groups`, an array); empty
    /// for the local user and a token without one.
    ///
    /// ```
    /// use toolsmith::context::Caller;
    ///
    /// let claims = serde_json::json!({"groups": ["admins", 7, "ops"]}).as_object().unwrap().clone();
    /// let caller = Caller::new("alice", ["tools:read"]).with_claims(claims);
    /// assert_eq!(caller.groups(), ["admins", "ops"]);
    /// assert!(Caller::anonymous().groups().is_empty());
    /// ```
    pub fn groups(&self) -> Vec<&str> {
        self.claim("groups")
            .and_then(Value::as_array)
            .map(|groups| groups.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }
}

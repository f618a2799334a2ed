//! [`Caller`]: who is calling, as the transport established it.

use std::sync::Arc;

use serde_json::{Map, Value};

/// Who is calling a tool: a context parameter (`fn tool(caller: Caller, ...)`).
///
/// Over HTTP with authorization (feature `auth`), it is the holder of the access token: its
/// subject (`sub`), the scopes it was granted and every claim of the token. Over stdio, and
/// over HTTP without authorization, it is the local user: anonymous, with no scopes.
///
/// The server has already checked that the token may call the tool; a tool uses `Caller` for
/// finer decisions (whose notes to show) or for audit.
///
/// ```
/// use toolsmith::{Caller, tool};
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
#[derive(Debug, PartialEq)]
struct Holder {
    subject: Option<String>,
    scopes: Vec<String>,
    claims: Map<String, Value>,
}

/// No claims, for the local user.
static NO_CLAIMS: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

impl Caller {
    /// The local user: no subject, no scopes, no claims.
    ///
    /// ```
    /// let caller = toolsmith::Caller::anonymous();
    /// assert!(caller.is_anonymous() && caller.scopes().is_empty());
    /// ```
    pub fn anonymous() -> Self {
        Caller::default()
    }

    /// A caller with this subject and these scopes (for calling a tool from Rust, or tests).
    ///
    /// ```
    /// let caller = toolsmith::Caller::new("alice", ["tools:read", "tools:write"]);
    /// assert!(caller.has_scope("tools:write"));
    /// ```
    pub fn new<S: Into<String>>(
        subject: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        Caller(Some(Arc::new(Holder {
            subject: Some(subject.into()),
            scopes: scopes.into_iter().map(Into::into).collect(),
            claims: Map::new(),
        })))
    }

    /// The same caller with these token claims.
    ///
    /// ```
    /// let mut claims = serde_json::Map::new();
    /// claims.insert("email".into(), "alice@example.com".into());
    /// let caller = toolsmith::Caller::new("alice", ["tools:read"]).with_claims(claims);
    /// assert_eq!(caller.claim("email").and_then(|v| v.as_str()), Some("alice@example.com"));
    /// ```
    pub fn with_claims(self, claims: Map<String, Value>) -> Self {
        let holder = match self.0 {
            Some(holder) => Arc::try_unwrap(holder).unwrap_or_else(|shared| Holder {
                subject: shared.subject.clone(),
                scopes: shared.scopes.clone(),
                claims: Map::new(),
            }),
            None => Holder {
                subject: None,
                scopes: Vec::new(),
                claims: Map::new(),
            },
        };
        Caller(Some(Arc::new(Holder { claims, ..holder })))
    }

    /// The token's subject (`sub`); `None` for the local user.
    ///
    /// ```
    /// assert_eq!(toolsmith::Caller::anonymous().subject(), None);
    /// ```
    pub fn subject(&self) -> Option<&str> {
        self.0.as_ref()?.subject.as_deref()
    }

    /// Whether this is the local user (no token).
    ///
    /// ```
    /// assert!(!toolsmith::Caller::new("alice", ["tools:read"]).is_anonymous());
    /// ```
    pub fn is_anonymous(&self) -> bool {
        self.0
            .as_ref()
            .is_none_or(|h| h.subject.is_none() && h.scopes.is_empty() && h.claims.is_empty())
    }

    /// The scopes the token grants, as it lists them (`scope` or `scp`).
    ///
    /// ```
    /// let caller = toolsmith::Caller::new("alice", ["tools:read"]);
    /// assert_eq!(caller.scopes(), ["tools:read".to_owned()]);
    /// ```
    pub fn scopes(&self) -> &[String] {
        self.0.as_ref().map_or(&[], |h| &h.scopes)
    }

    /// Whether the token grants `scope` itself (the order of the hint scopes is not applied
    /// here: see [`ScopeNames::permits`](crate::ScopeNames::permits)).
    ///
    /// ```
    /// assert!(!toolsmith::Caller::anonymous().has_scope("tools:read"));
    /// ```
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes().iter().any(|s| s == scope)
    }

    /// Every claim of the token (empty for the local user).
    ///
    /// ```
    /// assert!(toolsmith::Caller::anonymous().claims().is_empty());
    /// ```
    pub fn claims(&self) -> &Map<String, Value> {
        self.0.as_ref().map_or(&NO_CLAIMS, |h| &h.claims)
    }

    /// One claim of the token.
    ///
    /// ```
    /// assert_eq!(toolsmith::Caller::anonymous().claim("sub"), None);
    /// ```
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims().get(name)
    }
}

//! Why authorization refused a request: the `reason` label.

/// Why authorization refused a request: its `reason` label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No bearer token (401).
    NoToken,
    /// A token that does not verify: signature, issuer, audience, expiry, type (401).
    InvalidToken,
    /// A valid token without the scope the request needs (403).
    InsufficientScope,
}

impl Refusal {
    pub(crate) const ALL: [Refusal; 3] = [
        Refusal::NoToken,
        Refusal::InvalidToken,
        Refusal::InsufficientScope,
    ];

    /// The label value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Refusal::NoToken => "no_token",
            Refusal::InvalidToken => "invalid_token",
            Refusal::InsufficientScope => "insufficient_scope",
        }
    }
}

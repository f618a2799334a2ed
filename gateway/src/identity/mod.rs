//! Who an upstream sees: the gateway's own credentials, or each caller's own identity.
//! (The coordinator's `Identity` and the session pool replace this file on merge; it holds
//! the token exchange's modules and the contract's `UpstreamToken` meanwhile.)

// Used by the session pool (coordinator): until it lands, nothing calls them.
#[allow(dead_code)]
mod client_auth;
#[allow(dead_code)]
mod exchange;
pub(crate) mod exchange_config;
#[allow(dead_code)]
mod token_cache;

#[allow(unused_imports)]
pub(crate) use exchange::Exchanger;
pub use exchange_config::Exchange;

/// A token the upstream accepts, for one caller.
#[allow(dead_code)]
#[derive(Clone)]
pub(crate) struct UpstreamToken {
    /// Sent as `Authorization: Bearer {access}`.
    pub(crate) access: String,
    pub(crate) expires_at: Option<std::time::SystemTime>,
    /// Who the upstream will see (the token's `sub` when it says, for the audit log).
    pub(crate) subject: Option<String>,
}

/// Never the token itself.
impl std::fmt::Debug for UpstreamToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamToken")
            .field("subject", &self.subject)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

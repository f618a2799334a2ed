//! PLACEHOLDER until the coordinator's identity/mod.rs lands on main (merge takes theirs).

#[cfg(feature = "upstream-signin")]
pub(crate) mod signin;

/// Whose identity an upstream's calls carry.
#[derive(Clone, Default)]
#[allow(dead_code)]
pub(crate) enum Identity {
    #[default]
    Shared,
    #[cfg(feature = "upstream-signin")]
    SignIn(std::sync::Arc<signin::SignInClient>),
}

/// A token the upstream accepts, for one caller.
#[derive(Clone)]
#[allow(dead_code)]
pub(crate) struct UpstreamToken {
    pub(crate) access: String,
    pub(crate) expires_at: Option<std::time::SystemTime>,
    pub(crate) subject: Option<String>,
}

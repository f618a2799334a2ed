//! PLACEHOLDER until the coordinator's identity/mod.rs lands on main (merge takes theirs).

#[cfg(feature = "upstream-signin")]
pub(crate) mod signin;

/// A token the upstream accepts, for one caller.
#[derive(Clone)]
#[allow(dead_code)]
pub(crate) struct UpstreamToken {
    pub(crate) access: String,
    pub(crate) expires_at: Option<std::time::SystemTime>,
    pub(crate) subject: Option<String>,
}

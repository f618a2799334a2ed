//! The configuration file's entries of the ways an upstream acts as each user:
//! `[servers.NAME.sign_in]` and `[servers.NAME.mint]` (`[servers.NAME.exchange]` is in
//! `exchange_config.rs`).

#[cfg(any(feature = "mint", feature = "upstream-signin"))]
use std::time::Duration;

use serde::Deserialize;

/// `[servers.NAME.sign_in]`: see [`UpstreamSignIn`](crate::UpstreamSignIn).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(not(feature = "upstream-signin"), allow(dead_code))]
pub(crate) struct SignInEntry {
    token_key: String,
    #[serde(default)]
    scopes: Vec<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    issuer: Option<String>,
    callback_url: Option<String>,
    wait_secs: Option<u64>,
}

impl SignInEntry {
    /// Its secrets (`${file:PATH}` in them) with `root` applied: a configuration file's
    /// folder for a relative path.
    pub(crate) fn root(&mut self, root: &dyn Fn(&str) -> String) {
        self.token_key = root(&self.token_key);
        if let Some(secret) = &mut self.client_secret {
            *secret = root(secret);
        }
    }

    /// What is wrong with it on upstream `name` (remote at `url`, if it is).
    pub(crate) fn check(&self, name: &str, url: Option<&String>) -> Result<(), String> {
        if url.is_none() {
            return Err(format!(
                "upstream '{name}': `sign_in` is for a remote upstream (`url`) with its own authorization server"
            ));
        }
        if !cfg!(feature = "upstream-signin") {
            return Err(format!(
                "upstream '{name}': `sign_in` needs the gateway built with the feature `upstream-signin`"
            ));
        }
        if self.wait_secs == Some(0) {
            return Err(format!(
                "upstream '{name}': `sign_in.wait_secs` is 0: give 1 or more"
            ));
        }
        if self.client_secret.is_some() && self.client_id.is_none() {
            return Err(format!(
                "upstream '{name}': `sign_in.client_secret` without `client_id`: give the client it is the secret of"
            ));
        }
        if self.client_secret.is_some() && self.issuer.is_none() {
            return Err(format!(
                "upstream '{name}': `sign_in.client_secret` without `issuer`: add the issuer URL of the authorization server the client is registered at, so that its secret goes there only"
            ));
        }
        Ok(())
    }

    #[cfg(feature = "upstream-signin")]
    pub(crate) fn config(&self) -> crate::UpstreamSignIn {
        let mut config = crate::UpstreamSignIn::new(&self.token_key).scopes(self.scopes.clone());
        if let Some(id) = &self.client_id {
            config = config.client(id, self.client_secret.clone());
        }
        if let Some(url) = &self.callback_url {
            config = config.callback_url(url);
        }
        if let Some(issuer) = &self.issuer {
            config = config.issuer(issuer);
        }
        if let Some(secs) = self.wait_secs {
            config = config.wait(Duration::from_secs(secs));
        }
        config
    }
}

/// `[servers.NAME.mint]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(not(feature = "mint"), allow(dead_code))]
pub(crate) struct MintEntry {
    audience: String,
    #[serde(default)]
    scopes: Vec<String>,
    pub(crate) lifetime_secs: Option<u64>,
}

#[cfg(feature = "mint")]
impl MintEntry {
    pub(crate) fn config(&self) -> crate::Mint {
        let mut minted = crate::Mint::new(&self.audience).scopes(self.scopes.clone());
        if let Some(secs) = self.lifetime_secs {
            minted = minted.lifetime(Duration::from_secs(secs));
        }
        minted
    }
}

//! Signing a user out of an upstream: their tokens taken from the store (forgotten), the
//! refresh token (else the access token) revoked at the authorization server when it offers
//! revocation (RFC 7009). It takes the claim a refresh takes, on every replica (waiting,
//! bounded, for a refresh under way to keep what it got): a refresh never puts back tokens a
//! sign-out took.

use std::sync::Arc;
use std::time::Instant;

use toolsmith::ToolError;
use toolsmith::context::Caller;
use toolsmith::task::TaskStore;

use super::refresh::{POLL, REFRESH_CLAIM, refresh_claim};
use super::{SignInClient, Tokens, failed};

impl SignInClient {
    /// Forgets `caller`'s tokens at this upstream, revoking them first when the upstream's
    /// authorization server offers revocation: whether there were any.
    pub(crate) async fn sign_out(
        &self,
        caller: &Caller,
        store: &Arc<dyn TaskStore>,
    ) -> Result<bool, ToolError> {
        let key = self.token_key(caller);
        let claim = refresh_claim(&key);
        let until = Instant::now() + REFRESH_CLAIM;
        let claimed = loop {
            match store.put_new(&claim, "signing out", REFRESH_CLAIM).await {
                Ok(true) => break true,
                // A store without `put_new` keeps no claims to wait for.
                Err(_) => break false,
                // Past the wait, without it: a refresh that ends later finds the tokens gone
                // and keeps none (`refresh.rs`).
                Ok(false) if Instant::now() >= until => break false,
                Ok(false) => tokio::time::sleep(POLL).await,
            }
        };
        let taken = store.take(&key).await;
        if claimed {
            let _ = store.take(&claim).await;
        }
        let taken = taken.map_err(|e| failed(&self.upstream, e))?;
        let Some(sealed) = taken else {
            return Ok(false);
        };
        let Ok(tokens) = self.vault()?.open_json::<Tokens>(&key, &sealed) else {
            return Ok(true);
        };
        let (token, hint) = match &tokens.refresh {
            Some(refresh) => (refresh.as_str(), "refresh_token"),
            None => (tokens.access.as_str(), "access_token"),
        };
        let revoked = async {
            let metadata = self.metadata().await.map_err(|e| e.to_string())?;
            let client = self
                .oauth_client(metadata, self.callback().map_err(|e| e.to_string())?, store)
                .await?;
            self.revoke(metadata, &client, token, hint).await
        };
        match revoked.await {
            Ok(true) => {
                tracing::info!(upstream = %self.upstream, "upstream sign-in: a user signed out (revoked)")
            }
            Ok(false) => {
                tracing::info!(upstream = %self.upstream, "upstream sign-in: a user signed out (the upstream offers no revocation)")
            }
            Err(why) => {
                tracing::warn!(upstream = %self.upstream, "upstream sign-in: a user signed out, the revocation failed: {why}")
            }
        }
        Ok(true)
    }
}

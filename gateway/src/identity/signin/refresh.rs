//! A caller's kept tokens at the upstream: read and kept (sealed), refreshed when they expire
//! (the refresh token rotated) by one replica at a time under a claim in the store, which a
//! sign-out takes too (`signout.rs`), and marked expired when the upstream refuses them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use toolsmith::ToolError;
use toolsmith::context::Caller;
use toolsmith::task::TaskStore;

use super::vault::Vault;
use super::{SignInClient, Tokens, failed, now_secs};

/// A token this close to its expiry is refreshed first.
const REFRESH_BEFORE: u64 = 30;
/// How long a replica may take to refresh a user's token before another tries (a sign-out
/// waits as long for a refresh under way).
pub(super) const REFRESH_CLAIM: Duration = Duration::from_secs(15);
/// How often a wait (for a claim, or for a sign-in to finish) reads the store.
pub(super) const POLL: Duration = Duration::from_millis(250);
/// How long tokens with a refresh token are kept.
const REFRESHABLE_KEPT: Duration = Duration::from_secs(90 * 24 * 3600);

/// The store key a replica claims (`put_new`) while it refreshes, or signs out, the user
/// whose tokens are kept under `token_key`: one at a time, on every replica.
pub(super) fn refresh_claim(token_key: &str) -> String {
    format!("{token_key}:refreshing")
}

impl SignInClient {
    /// The upstream refused the caller's token: it is refreshed at the next call (or, with no
    /// refresh token, forgotten).
    pub(crate) async fn rejected(&self, caller: &Caller, store: &Arc<dyn TaskStore>) {
        let key = self.token_key(caller);
        let Ok(vault) = self.vault() else { return };
        // Under the claim of a refresh or a sign-out, so that marking never puts back tokens
        // a sign-out took; one under way renews them anyway.
        let claim = refresh_claim(&key);
        let claimed = match store.put_new(&claim, "1", REFRESH_CLAIM).await {
            Ok(false) => return,
            Ok(true) => true,
            Err(_) => false,
        };
        mark_expired(&key, vault, store).await;
        if claimed {
            let _ = store.take(&claim).await;
        }
    }

    /// The tokens kept under `key`: refreshed first when they expire within 30 s; `None`
    /// when there are none (or they cannot be refreshed: forgotten then).
    pub(super) async fn kept(
        &self,
        key: &str,
        store: &Arc<dyn TaskStore>,
    ) -> Result<Option<Tokens>, ToolError> {
        let fresh = |t: &Tokens| {
            t.expires_at
                .is_none_or(|at| at > now_secs() + REFRESH_BEFORE)
        };
        let read = self.read_tokens(key, store).await?;
        match read {
            Some(tokens) if fresh(&tokens) => return Ok(Some(tokens)),
            None => return Ok(None),
            Some(_) => {}
        }
        // One refresh at a time: a refresh token is spent once.
        let lock = {
            let mut refreshing = self.refreshing.lock().unwrap_or_else(|e| e.into_inner());
            if refreshing.len() > 10_000 {
                refreshing.retain(|_, lock| Arc::strong_count(lock) > 1);
            }
            refreshing.entry(key.to_owned()).or_default().clone()
        };
        let _one = lock.lock().await;
        // And one replica at a time: the others wait (bounded) for what it keeps.
        let claim = refresh_claim(key);
        let until = Instant::now() + REFRESH_CLAIM;
        let tokens = loop {
            let Some(tokens) = self.read_tokens(key, store).await? else {
                return Ok(None);
            };
            if fresh(&tokens) {
                return Ok(Some(tokens));
            }
            let claimed = store.put_new(&claim, "1", REFRESH_CLAIM).await;
            if claimed.unwrap_or(true) || Instant::now() >= until {
                break tokens;
            }
            tokio::time::sleep(POLL).await;
        };
        let refreshed = self.refresh(key, tokens, store).await;
        let _ = store.take(&claim).await;
        refreshed
    }

    /// Refreshes `tokens` (kept under `key`): the new ones kept, or (refused) forgotten.
    async fn refresh(
        &self,
        key: &str,
        tokens: Tokens,
        store: &Arc<dyn TaskStore>,
    ) -> Result<Option<Tokens>, ToolError> {
        let Some(refresh) = tokens.refresh.clone() else {
            let _ = store.take(key).await;
            return Ok(None);
        };
        let metadata = self.metadata().await?;
        let callback = self.callback()?;
        let client = self
            .oauth_client(metadata, callback, store)
            .await
            .map_err(|why| failed(&self.upstream, why))?;
        let fields = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh.as_str()),
            ("resource", metadata.resource.as_str()),
        ];
        match self
            .token_request(metadata, &client, &fields, Some(&refresh))
            .await
        {
            Ok(tokens) => {
                // The user may have signed out (or in again) while the token endpoint
                // answered, past the claim: what is kept now wins, and these new tokens are
                // revoked rather than kept.
                let now = self.read_tokens(key, store).await?;
                if now.as_ref().and_then(|t| t.refresh.as_deref()) != Some(refresh.as_str()) {
                    if let Some(new) = tokens.refresh.as_deref().filter(|new| *new != refresh) {
                        let _ = self.revoke(metadata, &client, new, "refresh_token").await;
                    }
                    tracing::info!(upstream = %self.upstream, "upstream sign-in: a refresh ended after the user signed out or in again: its tokens are dropped");
                    return Ok(now);
                }
                self.keep(key, &tokens, store).await?;
                tracing::info!(upstream = %self.upstream, "upstream sign-in: a user's token was refreshed");
                Ok(Some(tokens))
            }
            Err(why) => {
                tracing::warn!(upstream = %self.upstream, "upstream sign-in: a refresh failed, the user signs in again: {why}");
                let _ = store.take(key).await;
                Ok(None)
            }
        }
    }

    /// The tokens kept under `key`, opened (ones that do not open are forgotten).
    pub(super) async fn read_tokens(
        &self,
        key: &str,
        store: &Arc<dyn TaskStore>,
    ) -> Result<Option<Tokens>, ToolError> {
        let vault = self.vault()?;
        let sealed = store
            .read(key)
            .await
            .map_err(|e| failed(&self.upstream, e))?;
        let Some(sealed) = sealed else {
            return Ok(None);
        };
        match vault.open_json::<Tokens>(key, &sealed) {
            Ok(tokens) => Ok(Some(tokens)),
            Err(why) => {
                tracing::warn!(upstream = %self.upstream, "upstream sign-in: a user's kept token is forgotten: {why}");
                let _ = store.take(key).await;
                Ok(None)
            }
        }
    }

    /// Keeps `tokens` under `key`, sealed.
    pub(super) async fn keep(
        &self,
        key: &str,
        tokens: &Tokens,
        store: &Arc<dyn TaskStore>,
    ) -> Result<(), ToolError> {
        let sealed = self
            .vault()?
            .seal_json(key, tokens)
            .map_err(|why| failed(&self.upstream, why))?;
        let ttl = match (&tokens.refresh, tokens.expires_at) {
            (None, Some(at)) => Duration::from_secs(at.saturating_sub(now_secs()).max(1)),
            _ => REFRESHABLE_KEPT,
        };
        store
            .put(key, &sealed, ttl)
            .await
            .map_err(|e| failed(&self.upstream, e))
    }
}

/// Marks the tokens kept under `key` expired (refreshed at the next call), or forgets
/// them when they cannot be refreshed.
async fn mark_expired(key: &str, vault: &Vault, store: &Arc<dyn TaskStore>) {
    let Ok(Some(sealed)) = store.read(key).await else {
        return;
    };
    match vault.open_json::<Tokens>(key, &sealed) {
        Ok(mut tokens) if tokens.refresh.is_some() => {
            tokens.expires_at = Some(0);
            if let Ok(sealed) = vault.seal_json(key, &tokens) {
                let _ = store.put(key, &sealed, REFRESHABLE_KEPT).await;
            }
        }
        _ => {
            let _ = store.take(key).await;
        }
    }
}

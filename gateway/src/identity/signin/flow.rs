//! A caller's token at the upstream: the one kept (`refresh.rs`), else the sign-in: a state
//! (kept 10 minutes), PKCE S256 and `resource`, the user sent to the gateway's start page by a
//! URL-mode elicitation, then a bounded wait for the callback to keep the tokens.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use toolsmith::ToolError;
use toolsmith::context::{Caller, Elicit, Elicitation};
use toolsmith::task::TaskStore;

use super::refresh::POLL;
use super::register::OAuthClient;
use super::vault::{challenge, random_text};
use super::{SignInClient, digest, failed, now_secs, upstream_token};
use crate::identity::UpstreamToken;

/// How long a sign-in may take from its link to its callback.
pub(super) const STATE_TTL: Duration = Duration::from_secs(600);

/// A sign-in under way, as kept (sealed) under its state's digest.
#[derive(Serialize, Deserialize)]
pub(super) struct Pending {
    /// Where the caller's tokens go.
    pub(super) token_key: String,
    pub(super) verifier: String,
    /// The authorization request the start page sends the browser to.
    pub(super) authorize: String,
    pub(super) redirect_uri: String,
    pub(super) client: OAuthClient,
    /// The digest of the start page's cookie, once a browser posted its form (bound).
    #[serde(default)]
    pub(super) cookie: Option<String>,
    /// The gateway user the upstream account will be linked to, as the start page names
    /// them (their verified email, else their subject).
    #[serde(default)]
    pub(super) who: String,
    /// Unix seconds.
    pub(super) expires: u64,
}

/// The store key of the sign-in whose state digests to `state_digest`.
pub(super) fn state_key(state_digest: &str) -> String {
    format!("gateway:signin-state:{state_digest}")
}

/// The store key of the sign-in link whose id digests to `link_digest` (its state, sealed).
pub(super) fn link_key(link_digest: &str) -> String {
    format!("gateway:signin-link:{link_digest}")
}

/// The store key binding the link whose id digests to `link_digest` to the first browser
/// that posted its form (the digest of its cookie).
pub(super) fn bound_key(link_digest: &str) -> String {
    format!("gateway:signin-bound:{link_digest}")
}

/// How the start page names `caller`: their verified email, else their subject.
fn shown(caller: &Caller) -> String {
    caller
        .email()
        .or(caller.subject())
        .unwrap_or(caller.identity())
        .to_owned()
}

/// The store key of why the sign-in of `state_digest` failed (for the call that waits).
pub(super) fn failed_key(state_digest: &str) -> String {
    format!("gateway:signin-failed:{state_digest}")
}

impl SignInClient {
    /// The caller's token (refreshed when it expires), else the sign-in: asked of the user
    /// through `elicit` (a URL-mode elicitation, then a bounded wait), or (no way to ask, or
    /// a client that cannot open a URL) a tool error carrying the link.
    pub(crate) async fn token_for(
        &self,
        _upstream: &str,
        caller: &Caller,
        elicit: Option<&Elicit>,
        store: &Arc<dyn TaskStore>,
    ) -> Result<UpstreamToken, ToolError> {
        let key = self.token_key(caller);
        if let Some(tokens) = self.kept(&key, store).await? {
            return Ok(upstream_token(&tokens));
        }
        let (state, link) = self.pending(caller, &key, store).await?;
        let cannot = |why: String| {
            failed(
                &self.upstream,
                format!("sign in at {link} (within 10 minutes), then call again: {why}"),
            )
        };
        let Some(elicit) = elicit else {
            return Err(cannot(
                "the gateway cannot ask the client to open it".to_owned(),
            ));
        };
        let message = format!(
            "Sign in to '{}' so that the gateway calls its tools as you",
            self.upstream
        );
        match elicit.ask_url(message, link.clone()).await {
            Ok(Elicitation::Accept(())) => self.wait(&key, &digest(&state), &link, store).await,
            Ok(Elicitation::Decline) => Err(failed(
                &self.upstream,
                "the user did not sign in (declined); call again to be asked again",
            )),
            Ok(Elicitation::Cancel) => Err(failed(
                &self.upstream,
                "the user did not sign in (cancelled); call again to be asked again",
            )),
            Err(err) => Err(cannot(format!(
                "the client could not open the sign-in itself ({err})"
            ))),
        }
    }

    /// The caller's sign-in under way (the same link again while it lasts and has not failed:
    /// a 2026-07-28 client asks again with the same question), else a new one: its state and link. The
    /// link names a random id of its own, never the OAuth `state` (a leaked link cannot spend
    /// or cancel the state).
    pub(super) async fn pending(
        &self,
        caller: &Caller,
        token_key: &str,
        store: &Arc<dyn TaskStore>,
    ) -> Result<(String, String), ToolError> {
        let vault = self.vault()?;
        let callback = self.callback()?.to_owned();
        let start = format!("{}start", callback.trim_end_matches("callback"));
        let link = |id: &str| {
            let mut url = url::Url::parse(&start).expect("checked at connect");
            url.query_pairs_mut().append_pair("s", id);
            url.to_string()
        };
        let pending_key = format!(
            "gateway:signin-pending:{}:{}",
            self.upstream,
            digest(caller.identity())
        );
        let err = |e: toolsmith::task::StoreError| failed(&self.upstream, e);
        if let Some(sealed) = store.read(&pending_key).await.map_err(err)?
            && let Ok((state, id)) = vault.open_json::<(String, String)>(&pending_key, &sealed)
            && store
                .read(&state_key(&digest(&state)))
                .await
                .map_err(err)?
                .is_some()
            && store
                .read(&failed_key(&digest(&state)))
                .await
                .map_err(err)?
                .is_none()
        {
            return Ok((state, link(&id)));
        }
        let metadata = self.metadata().await?;
        let client = self
            .oauth_client(metadata, &callback, store)
            .await
            .map_err(|why| failed(&self.upstream, why))?;
        let fail = |why: String| failed(&self.upstream, why);
        let (state, verifier) = (random_text().map_err(fail)?, random_text().map_err(fail)?);
        let id = random_text().map_err(fail)?;
        let mut authorize = url::Url::parse(&metadata.authorization_endpoint)
            .map_err(|_| fail("its authorization endpoint is not a URL".to_owned()))?;
        {
            let mut query = authorize.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &client.id)
                .append_pair("redirect_uri", &callback)
                .append_pair("state", &state)
                .append_pair("code_challenge", &challenge(&verifier))
                .append_pair("code_challenge_method", "S256")
                .append_pair("resource", &metadata.resource);
            let scope = match self.config.scopes.is_empty() {
                false => Some(self.config.scopes.join(" ")),
                true => metadata.challenge_scope.clone(),
            };
            if let Some(scope) = scope.filter(|s| !s.is_empty()) {
                query.append_pair("scope", &scope);
            }
        }
        let pending = Pending {
            token_key: token_key.to_owned(),
            verifier,
            authorize: authorize.to_string(),
            redirect_uri: callback.clone(),
            client,
            cookie: None,
            who: shown(caller),
            expires: now_secs() + STATE_TTL.as_secs(),
        };
        let key = state_key(&digest(&state));
        let record = self.record(&key, &pending)?;
        let kept = store.put_new(&key, &record, STATE_TTL).await.map_err(err)?;
        if !kept {
            return Err(fail(
                "a sign-in state was made twice; call again".to_owned(),
            ));
        }
        let key = link_key(&digest(&id));
        let record = self.record(&key, &state)?;
        store.put(&key, &record, STATE_TTL).await.map_err(err)?;
        let sealed = vault
            .seal_json(&pending_key, &(&state, &id))
            .map_err(fail)?;
        store
            .put(&pending_key, &sealed, STATE_TTL)
            .await
            .map_err(err)?;
        Ok((state, link(&id)))
    }

    /// Waits (reading the store every 250 ms, at most the configured wait) for the callback
    /// to keep the caller's tokens.
    async fn wait(
        &self,
        key: &str,
        state_digest: &str,
        link: &str,
        store: &Arc<dyn TaskStore>,
    ) -> Result<UpstreamToken, ToolError> {
        let until = Instant::now() + self.config.wait;
        loop {
            if let Some(tokens) = self.read_tokens(key, store).await? {
                return Ok(upstream_token(&tokens));
            }
            if let Ok(Some(why)) = store.read(&failed_key(state_digest)).await {
                return Err(failed(
                    &self.upstream,
                    format!("the sign-in failed: {why}; call again to sign in again"),
                ));
            }
            if Instant::now() >= until {
                return Err(failed(
                    &self.upstream,
                    format!(
                        "the sign-in did not finish within {} s: finish it at {link}, then call again",
                        self.config.wait.as_secs()
                    ),
                ));
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

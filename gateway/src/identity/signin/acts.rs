//! The sign-in as the session pool sees it ([`ActsAs`]): a caller's token (the store and
//! the client's elicitation from the call), the gateway's own to list with, and a refusal.

use std::sync::Arc;

use futures::future::BoxFuture;
use toolsmith::ToolError;
use toolsmith::context::Caller;
use toolsmith::task::TaskStore;

use super::{SignInClient, failed, upstream_token};
use crate::identity::{ActsAs, Asking, UpstreamToken};

impl SignInClient {
    /// The server's store, which the call names.
    fn store_of(&self, asking: &Asking) -> Result<Arc<dyn TaskStore>, ToolError> {
        asking
            .store
            .as_ref()
            .map(|store| store.shared())
            .ok_or_else(|| {
                failed(
                    &self.upstream,
                    "its sign-in needs the server's store, and this call has none",
                )
            })
    }
}

impl ActsAs for SignInClient {
    fn identity(&self) -> &'static str {
        "sign_in"
    }

    fn token_for<'a>(
        &'a self,
        upstream: &'a str,
        caller: &'a Caller,
        asking: &'a Asking,
    ) -> BoxFuture<'a, Result<UpstreamToken, ToolError>> {
        Box::pin(async move {
            let store = self.store_of(asking)?;
            self.token_for(upstream, caller, asking.elicit.as_ref(), &store)
                .await
        })
    }

    fn own_token<'a>(
        &'a self,
        upstream: &'a str,
    ) -> BoxFuture<'a, Result<Option<UpstreamToken>, crate::Error>> {
        Box::pin(async move {
            self.ready()?;
            let tokens = self
                .own_token()
                .await
                .map_err(|why| crate::Error::Connect {
                    upstream: upstream.to_owned(),
                    why: format!("the gateway's own token (client credentials): {why}"),
                })?;
            Ok(tokens.as_ref().map(upstream_token))
        })
    }

    /// The session's token is still the one kept for the caller: a sign-out on any replica
    /// takes it away (one store read per call).
    fn still_current<'a>(
        &'a self,
        caller: &'a Caller,
        asking: &'a Asking,
        token: &'a UpstreamToken,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let Ok(store) = self.store_of(asking) else {
                return true;
            };
            match self.read_tokens(&self.token_key(caller), &store).await {
                Ok(Some(kept)) => kept.access_token() == token.access,
                Ok(None) => false,
                // The store cannot be read: the session stays (the upstream still checks).
                Err(_) => true,
            }
        })
    }

    fn rejected<'a>(&'a self, caller: &'a Caller, asking: &'a Asking) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Ok(store) = self.store_of(asking) {
                self.rejected(caller, &store).await;
            }
        })
    }
}

//! The `{prefix}sign_out` tool of a sign-in upstream: signs its caller out (see
//! `signout.rs`). Not read-only, not destructive (nothing of the user's is lost: they sign in
//! again), idempotent, closed-world.

use std::sync::Arc;

use rmcp::model::JsonObject;
use toolsmith::context::{Caller, Store};
use toolsmith::tool::{ToolFuture, ToolOutput};
use toolsmith::{CallContext, Hints, Tool, ToolDescription};

use super::SignInClient;

/// The `{prefix}sign_out` tool of a sign-in upstream.
pub(crate) struct SignOut {
    described: ToolDescription,
    client: Arc<SignInClient>,
}

impl SignOut {
    /// The tool of `client`, served as `{prefix}sign_out`.
    pub(crate) fn new(prefix: &str, client: Arc<SignInClient>) -> SignOut {
        let description = format!(
            "Sign out of '{}': the gateway revokes and forgets your tokens there; its next tool call asks you to sign in again.",
            client.upstream
        );
        let schema = serde_json::json!({"type": "object", "properties": {}});
        let hints = Hints {
            read_only: false,
            destructive: false,
            idempotent: true,
            open_world: false,
        };
        SignOut {
            described: ToolDescription::new(
                format!("{prefix}sign_out"),
                description,
                schema.as_object().cloned().unwrap_or_default(),
                hints,
            ),
            client,
        }
    }
}

impl Tool for SignOut {
    fn describe(&self) -> ToolDescription {
        self.described.clone()
    }

    fn call(&self, _arguments: JsonObject, context: &CallContext) -> ToolFuture {
        let client = self.client.clone();
        let caller = context.extract::<Caller>();
        let store = context.extract::<Store>();
        Box::pin(async move {
            let (caller, store) = (caller?, store?.shared());
            let upstream = client.upstream.clone();
            let text = match client.sign_out(&caller, &store).await? {
                true => {
                    format!("Signed out of '{upstream}': its next call asks you to sign in again.")
                }
                false => format!("Not signed in to '{upstream}': nothing to sign out of."),
            };
            Ok(ToolOutput::new().text(text))
        })
    }
}

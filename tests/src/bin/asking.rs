//! A server whose tools ask their client during the call: `confirm` through the test switch
//! `AskClient` (the tests of the two-way channel, `tests/tests/wire/asking.rs`), and the tools of
//! the confirmation and elicitation tests (`tests/tests/wire/confirm.rs`): one that declares
//! `confirm`, a destructive and an additive one that do not (for `--confirm`), one that
//! asks two questions with `Elicit`, and one that asks the client's model with `Sample`.

use std::sync::atomic::{AtomicUsize, Ordering};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolsmith::__private::AskClient;
use toolsmith::rmcp::model::{ClientResult, ServerRequest};
use toolsmith::{ToolError, context::Elicit, context::Elicitation, context::Sample};

/// Ask the user to confirm `what`; says what the client answered.
///
/// # Arguments
/// * `what` - What to confirm.
#[toolsmith::tool(read_only, idempotent, closed_world)]
async fn confirm(what: String, client: AskClient) -> String {
    let request: ServerRequest = serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": format!("Confirm {what}?"),
            "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}},
        },
    }))
    .expect("an elicitation request");
    match client.ask(request).await {
        Ok(ClientResult::ElicitResult(result)) => {
            let action = serde_json::to_value(&result.action).unwrap_or_default();
            format!(
                "{} {}",
                action.as_str().unwrap_or("?"),
                json!(result.content)
            )
        }
        Ok(other) => format!("unexpected answer: {other:?}"),
        Err(why) => format!("not asked: {why}"),
    }
}

/// How many times `remove`, `purge` and `rename` ran.
static RUNS: AtomicUsize = AtomicUsize::new(0);

/// Remove an item.
///
/// # Arguments
/// * `item` - What to remove.
#[toolsmith::tool(
    destructive,
    idempotent,
    closed_world,
    confirm = "Remove {item}?",
    timeout = "2s"
)]
fn remove(item: String) -> String {
    RUNS.fetch_add(1, Ordering::SeqCst);
    format!("removed {item}")
}

/// Purge everything.
#[toolsmith::tool(destructive, closed_world, title = "Purge")]
fn purge(everything: bool) -> String {
    RUNS.fetch_add(1, Ordering::SeqCst);
    format!("purged {everything}")
}

/// Rename the list.
///
/// # Arguments
/// * `name` - The new name.
#[toolsmith::tool(destructive = false, closed_world, allow_name_mismatch)]
fn rename(name: String) -> String {
    RUNS.fetch_add(1, Ordering::SeqCst);
    format!("renamed to {name}")
}

/// How many times the changing tools ran.
#[toolsmith::tool(read_only, closed_world)]
fn runs() -> u64 {
    RUNS.load(Ordering::SeqCst) as u64
}

/// A pizza size.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Size {
    /// Small (25 cm)
    Small,
    /// Large (35 cm)
    Large,
}

#[derive(Deserialize, JsonSchema)]
struct Pick {
    size: Size,
}

#[derive(Deserialize, JsonSchema)]
struct Count {
    /// How many.
    count: u32,
}

/// Order pizzas, asking the size and then how many.
#[toolsmith::tool(closed_world, destructive = false)]
async fn order(elicit: Elicit) -> Result<String, ToolError> {
    let fail = |err: toolsmith::context::AskError| ToolError::new(err.to_string());
    let size = match elicit.ask::<Pick>("Which size?").await.map_err(fail)? {
        Elicitation::Accept(pick) => pick.size,
        Elicitation::Decline | Elicitation::Cancel => return Ok("no order".into()),
    };
    let count = match elicit.ask::<Count>("How many?").await.map_err(fail)? {
        Elicitation::Accept(count) => count.count,
        Elicitation::Decline | Elicitation::Cancel => return Ok("no order".into()),
    };
    let size = match size {
        Size::Small => "small",
        Size::Large => "large",
    };
    Ok(format!("{count} x {size}"))
}

/// Ask the client's model to shorten a text.
///
/// # Arguments
/// * `text` - The text.
#[toolsmith::tool(read_only, closed_world)]
async fn shorten(text: String, sample: Sample) -> Result<String, ToolError> {
    sample
        .text(format!("Shorten: {text}"), 50)
        .await
        .map(|reply| format!("model says: {reply}"))
        .map_err(|err| ToolError::new(err.to_string()))
}

/// Send the user to a sign-in page (URL-mode elicitation).
#[toolsmith::tool(read_only, closed_world)]
async fn sign_in(elicit: Elicit) -> Result<String, ToolError> {
    match elicit
        .ask_url("Sign in to continue", "https://login.example/x")
        .await
    {
        Ok(Elicitation::Accept(())) => Ok("went".into()),
        Ok(_) => Ok("stayed".into()),
        Err(err) => Err(ToolError::new(err.to_string())),
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let mut server = toolsmith::__private::fast_path(
        toolsmith::Server::new(),
        std::env::var_os("TOOLSMITH_TEST_NO_FAST_PATH").is_none(),
    );
    if let Some(ms) = std::env::var("TOOLSMITH_TEST_STATE_TTL_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        server = server.state_ttl(std::time::Duration::from_millis(ms));
    }
    if let Some(secs) = std::env::var("TOOLSMITH_TEST_OFFER_REMEMBER_SECS")
        .ok()
        .and_then(|secs| secs.parse().ok())
    {
        server = server.offer_remember(std::time::Duration::from_secs(secs));
    }
    server.run().await
}

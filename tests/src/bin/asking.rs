//! A server with one tool that asks its client during the call, through the test switch
//! `AskClient`: the tests of the two-way channel (`tests/tests/asking.rs`) run it.

use serde_json::json;
use toolsmith::__private::AskClient;
use toolsmith::rmcp::model::{ClientResult, ServerRequest};

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

#[tokio::main]
async fn main() -> std::process::ExitCode {
    toolsmith::Server::new()
        .fast_path(std::env::var_os("TOOLSMITH_TEST_NO_FAST_PATH").is_none())
        .run()
        .await
}

//! How the test client answers the requests a server sends it during a call: an elicitation
//! (`elicitation/create`), sampling, listing roots.

use std::sync::Arc;

use rmcp::model::{
    ClientResult, ElicitResult, ElicitationAction, ErrorCode, ErrorData, ServerRequest,
};

/// Answers a request the server sends the test client: the client's result, or an error.
/// [`Client::connect`](super::Client::connect) uses [`decline`];
/// [`Client::connect_answering`](super::Client::connect_answering) takes your own.
///
/// ```
/// use std::sync::Arc;
/// use toolsmith::rmcp::model::{ClientResult, ElicitResult, ElicitationAction, ServerRequest};
/// use toolsmith::testing::Answerer;
///
/// // A user who accepts every elicitation with `{"confirm": true}`.
/// let accept: Answerer = Arc::new(|request: &ServerRequest| match request {
///     ServerRequest::ElicitRequest(_) => {
///         let mut result = ElicitResult::new(ElicitationAction::Accept);
///         result.content = Some(serde_json::json!({"confirm": true}));
///         Ok(ClientResult::ElicitResult(result))
///     }
///     other => toolsmith::testing::decline(other),
/// });
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Sure {
///     /// Yes, reset.
///     confirm: bool,
/// }
///
/// /// Reset every setting, once the user is sure.
/// #[toolsmith::tool(destructive, idempotent, closed_world)]
/// async fn reset_all_settings(elicit: toolsmith::context::Elicit) -> String {
///     match elicit.ask::<Sure>("Reset every setting?").await {
///         Ok(toolsmith::context::Elicitation::Accept(Sure { confirm: true })) => "reset".into(),
///         _ => "kept".into(),
///     }
/// }
///
/// # let server = || toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "reset_all_settings"));
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let client = toolsmith::testing::Client::connect_answering(server(), accept).await.unwrap();
/// assert_eq!(client.call("reset_all_settings", serde_json::json!({})).await.unwrap().text(), "reset");
/// let declining = toolsmith::testing::Client::connect(server()).await.unwrap();
/// assert_eq!(declining.call("reset_all_settings", serde_json::json!({})).await.unwrap().text(), "kept");
/// # });
/// ```
pub type Answerer =
    Arc<dyn Fn(&ServerRequest) -> Result<ClientResult, ErrorData> + Send + Sync + 'static>;

/// The default answer: an elicitation is declined (as a user who says no), anything else is
/// refused as a method the client does not support. A ping is answered.
///
/// ```
/// use toolsmith::rmcp::model::{ClientResult, ServerRequest};
///
/// let ping: ServerRequest = serde_json::from_value(serde_json::json!({"method": "ping"})).unwrap();
/// assert!(matches!(toolsmith::testing::decline(&ping), Ok(ClientResult::EmptyResult(_))));
/// ```
pub fn decline(request: &ServerRequest) -> Result<ClientResult, ErrorData> {
    match request {
        ServerRequest::ElicitRequest(_) => Ok(ClientResult::ElicitResult(ElicitResult::new(
            ElicitationAction::Decline,
        ))),
        ServerRequest::PingRequest(_) => Ok(ClientResult::empty(())),
        _ => Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            "the test client does not answer this request: connect with Client::connect_answering",
            None,
        )),
    }
}

/// The default [`Answerer`].
pub(super) fn declining() -> Answerer {
    Arc::new(decline)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rmcp::model::{ClientResult, ElicitResult, ElicitationAction, ServerRequest};
    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use super::{Answerer, declining};
    use crate::testing::driver::Driver;

    /// A server end that sends `request` and returns the client's answer.
    async fn ask(answerer: Answerer, request: Value) -> Value {
        let (client_end, server_end) = tokio::io::duplex(64 * 1024);
        let driver = Driver::start(client_end, answerer);
        let (read, mut write) = tokio::io::split(server_end);
        write
            .write_all(format!("{request}\n").as_bytes())
            .await
            .unwrap();
        let line = BufReader::new(read)
            .lines()
            .next_line()
            .await
            .unwrap()
            .unwrap();
        driver.stop();
        serde_json::from_str(&line).unwrap()
    }

    fn elicitation(id: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
            "mode": "form", "message": "Delete note 1?",
            "requestedSchema": {"type": "object", "properties": {
                "confirm": {"type": "boolean"}}}}})
    }

    #[tokio::test]
    async fn by_default_an_elicitation_is_declined_and_sampling_refused() {
        let answer = ask(declining(), elicitation("toolsmith-1")).await;
        assert_eq!(answer["id"], "toolsmith-1");
        assert_eq!(answer["result"]["action"], "decline");
        let sampling = json!({"jsonrpc": "2.0", "id": 4, "method": "sampling/createMessage",
            "params": {"messages": [], "maxTokens": 10}});
        let answer = ask(declining(), sampling).await;
        assert_eq!(answer["id"], 4);
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
    }

    #[tokio::test]
    async fn an_answerer_of_the_tests_own_answers_instead() {
        let accept: Answerer = Arc::new(|request: &ServerRequest| {
            assert!(matches!(request, ServerRequest::ElicitRequest(_)));
            let mut result = ElicitResult::new(ElicitationAction::Accept);
            result.content = Some(json!({"confirm": true}));
            Ok(ClientResult::ElicitResult(result))
        });
        let answer = ask(accept, elicitation("toolsmith-2")).await;
        assert_eq!(answer["result"]["action"], "accept", "{answer}");
        assert_eq!(answer["result"]["content"], json!({"confirm": true}));
    }
}

//! The test client's resources, prompts and completions: lists, reads and prompts with
//! typed results, and the same error kinds as calls ([`CallError`]): a resource that is not
//! there is `Protocol { code: -32002 }`, missing prompt arguments `Protocol { code: -32602 }`,
//! a [`ToolError`](crate::ToolError) of the function `Tool { kind: ErrorKind::Tool }`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequest, CompleteRequestParams, CompletionContext,
    GetPromptRequest, GetPromptRequestParams, ListPromptsRequest, ListResourceTemplatesRequest,
    ListResourcesRequest, PaginatedRequestParams, Prompt, PromptMessage, Reference, Resource,
    ResourceContents, ResourceTemplate, ServerResult,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::driver::Reply;
use super::{CallError, Client};
use crate::{Error, ErrorKind, META_ERROR};

/// What a `resources/read` returned.
#[derive(Debug, Clone)]
pub struct ReadOutcome {
    contents: Vec<ResourceContents>,
}

impl ReadOutcome {
    /// Every content, as the server sent it.
    pub fn contents(&self) -> &[ResourceContents] {
        &self.contents
    }

    /// The text contents, joined by newlines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .contents
            .iter()
            .filter_map(|c| match c {
                ResourceContents::TextResourceContents { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }

    /// The first blob's bytes, decoded from base64.
    pub fn blob(&self) -> Option<Vec<u8>> {
        self.contents.iter().find_map(|c| match c {
            ResourceContents::BlobResourceContents { blob, .. } => STANDARD.decode(blob).ok(),
            _ => None,
        })
    }

    /// The first content's MIME type.
    pub fn mime_type(&self) -> Option<&str> {
        self.contents.first().and_then(|c| match c {
            ResourceContents::TextResourceContents { mime_type, .. }
            | ResourceContents::BlobResourceContents { mime_type, .. } => mime_type.as_deref(),
            _ => None,
        })
    }

    /// The text, decoded from JSON as a `T`.
    pub fn data<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.text())
    }
}

/// What a `prompts/get` returned.
#[derive(Debug, Clone)]
pub struct PromptOutcome {
    /// Its description, if the server sent one.
    pub description: Option<String>,
    /// Its messages, in order.
    pub messages: Vec<PromptMessage>,
}

impl PromptOutcome {
    /// The text of every text message, joined by newlines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .messages
            .iter()
            .filter_map(|m| m.content.as_text().map(|t| t.text.as_str()))
            .collect();
        texts.join("\n")
    }
}

/// What a `completion/complete` returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completions {
    /// The candidates (at most 100).
    pub values: Vec<String>,
    /// How many there are in all.
    pub total: Option<u32>,
    /// Whether there are more than `values`.
    pub has_more: bool,
}

/// What to complete: a prompt's argument or a resource template's variable, with the value
/// typed so far and the other arguments' values.
#[derive(Debug, Clone)]
pub struct Complete {
    reference: Reference,
    argument: String,
    value: String,
    context: std::collections::HashMap<String, String>,
}

impl Complete {
    /// An argument of prompt `name`.
    pub fn prompt(name: &str, argument: &str, value: &str) -> Self {
        Complete::of(Reference::for_prompt(name), argument, value)
    }

    /// A variable of the resource template `template` (as declared: `notes://{note_id}`).
    pub fn resource(template: &str, variable: &str, value: &str) -> Self {
        Complete::of(Reference::for_resource(template), variable, value)
    }

    fn of(reference: Reference, argument: &str, value: &str) -> Self {
        Complete {
            reference,
            argument: argument.to_owned(),
            value: value.to_owned(),
            context: Default::default(),
        }
    }

    /// With another argument's value, as the client knows it.
    pub fn with(mut self, argument: &str, value: &str) -> Self {
        self.context.insert(argument.to_owned(), value.to_owned());
        self
    }
}

impl Client {
    /// Every resource the server lists (not templates).
    ///
    /// ```standalone_crate
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
    /// let resources = client.list_resources().await.unwrap();
    /// assert!(resources.is_empty(), "no #[resource] here");
    /// # }
    /// ```
    pub async fn list_resources(&self) -> Result<Vec<Resource>, Error> {
        let request = ClientRequest::ListResourcesRequest(ListResourcesRequest::with_param(
            PaginatedRequestParams::default(),
        ));
        match self.ask("resources/list", request).await? {
            ServerResult::ListResourcesResult(list) => Ok(list.resources),
            other => Err(unexpected("resources/list", other)),
        }
    }

    /// Every resource template the server lists.
    ///
    /// ```standalone_crate
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
    /// assert!(client.list_resource_templates().await.unwrap().is_empty());
    /// # }
    /// ```
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, Error> {
        let request = ClientRequest::ListResourceTemplatesRequest(
            ListResourceTemplatesRequest::with_param(PaginatedRequestParams::default()),
        );
        match self.ask("resources/templates/list", request).await? {
            ServerResult::ListResourceTemplatesResult(list) => Ok(list.resource_templates),
            other => Err(unexpected("resources/templates/list", other)),
        }
    }

    /// Reads `uri`.
    ///
    /// ```standalone_crate
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
    /// let err = client.read_resource("notes://none").await.unwrap_err();
    /// assert!(matches!(err, toolsmith::testing::CallError::Protocol { code: -32002, .. }));
    /// # }
    /// ```
    pub async fn read_resource(&self, uri: &str) -> Result<ReadOutcome, CallError> {
        let params = rmcp::model::ReadResourceRequestParams::new(uri);
        let request =
            ClientRequest::ReadResourceRequest(rmcp::model::ReadResourceRequest::new(params));
        match self.answer(uri, request).await? {
            ServerResult::ReadResourceResult(result) => Ok(ReadOutcome {
                contents: result.contents,
            }),
            other => Err(not_a(uri, "resources/read", other)),
        }
    }

    /// Every prompt the server lists.
    ///
    /// ```standalone_crate
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
    /// assert!(client.list_prompts().await.unwrap().is_empty());
    /// # }
    /// ```
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, Error> {
        let request = ClientRequest::ListPromptsRequest(ListPromptsRequest::with_param(
            PaginatedRequestParams::default(),
        ));
        match self.ask("prompts/list", request).await? {
            ServerResult::ListPromptsResult(list) => Ok(list.prompts),
            other => Err(unexpected("prompts/list", other)),
        }
    }

    /// Gets prompt `name` with `args` (a JSON object of strings).
    ///
    /// ```standalone_crate
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
    /// let err = client.get_prompt("nope", serde_json::json!({})).await.unwrap_err();
    /// assert!(matches!(err, toolsmith::testing::CallError::Protocol { code: -32602, .. }));
    /// # }
    /// ```
    pub async fn get_prompt(&self, name: &str, args: Value) -> Result<PromptOutcome, CallError> {
        let Value::Object(arguments) = args else {
            return Err(CallError::Protocol {
                code: -32602,
                message: format!("the arguments of prompt '{name}' must be a JSON object"),
            });
        };
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = Some(arguments);
        let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(params));
        match self.answer(name, request).await? {
            ServerResult::GetPromptResult(result) => Ok(PromptOutcome {
                description: result.description,
                messages: result.messages,
            }),
            other => Err(not_a(name, "prompts/get", other)),
        }
    }

    /// Completes an argument (`completion/complete`).
    ///
    /// ```standalone_crate
    /// use toolsmith::testing::Complete;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
    /// let err = client.complete(Complete::prompt("nope", "tag", "w")).await.unwrap_err();
    /// assert!(matches!(err, toolsmith::testing::CallError::Protocol { code: -32602, .. }));
    /// # }
    /// ```
    pub async fn complete(&self, complete: Complete) -> Result<Completions, CallError> {
        let mut params = CompleteRequestParams::new(
            complete.reference,
            ArgumentInfo::new(complete.argument.clone(), complete.value),
        );
        if !complete.context.is_empty() {
            params = params.with_context(CompletionContext::with_arguments(complete.context));
        }
        let request = ClientRequest::CompleteRequest(CompleteRequest::new(params));
        match self.answer(&complete.argument, request).await? {
            ServerResult::CompleteResult(result) => Ok(Completions {
                values: result.completion.values,
                total: result.completion.total,
                has_more: result.completion.has_more.unwrap_or(false),
            }),
            other => Err(not_a(&complete.argument, "completion/complete", other)),
        }
    }

    /// One request whose answer is a result or an [`Error::Protocol`].
    async fn ask(
        &self,
        method: &'static str,
        request: ClientRequest,
    ) -> Result<ServerResult, Error> {
        let _turn = self.turn.lock().await;
        match self.request(request, None).await {
            Reply::Result(result) => Ok(*result),
            other => Err(Error::Protocol {
                request: method,
                answer: format!("{other:?}"),
            }),
        }
    }

    /// One request about `what`, its errors as a [`CallError`].
    async fn answer(&self, what: &str, request: ClientRequest) -> Result<ServerResult, CallError> {
        let _turn = self.turn.lock().await;
        match self.request(request, None).await {
            Reply::Result(result) => Ok(*result),
            Reply::Error(error) => {
                let kind = error
                    .data
                    .as_ref()
                    .and_then(|d| d.get(META_ERROR))
                    .and_then(Value::as_str)
                    .and_then(ErrorKind::parse);
                Err(match kind {
                    Some(kind) => CallError::Tool {
                        tool: what.to_owned(),
                        message: error.message.into_owned(),
                        kind,
                    },
                    None => CallError::Protocol {
                        code: error.code.0,
                        message: error.message.into_owned(),
                    },
                })
            }
            Reply::TimedOut(after) => Err(CallError::Timeout {
                tool: what.to_owned(),
                after,
            }),
            Reply::Closed => Err(CallError::Closed {
                tool: what.to_owned(),
            }),
        }
    }
}

fn unexpected(request: &'static str, result: ServerResult) -> Error {
    Error::Protocol {
        request,
        answer: format!("not a {request} result: {result:?}"),
    }
}

fn not_a(what: &str, request: &str, result: ServerResult) -> CallError {
    CallError::Protocol {
        code: -32603,
        message: format!("not a {request} result for '{what}': {result:?}"),
    }
}

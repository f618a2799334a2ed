//! The test client's resources, prompts and completions: lists, reads and prompts with
//! typed results, and the same error kinds as calls ([`CallError`]): a resource that is not
//! there is `Protocol { code: -32002 }`, missing prompt arguments `Protocol { code: -32602 }`,
//! a [`ToolError`](crate::ToolError) of the function `Tool { kind: ErrorKind::Tool }`.

use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequest, CompleteRequestParams, CompletionContext,
    GetPromptRequest, GetPromptRequestParams, ListPromptsRequest, ListResourceTemplatesRequest,
    ListResourcesRequest, PaginatedRequestParams, Prompt, Resource, ResourceTemplate, ServerResult,
};
use serde_json::Value;

use super::answers::{Complete, Completions, PromptOutcome, ReadOutcome};
use super::driver::Reply;
use super::{CallError, Client};
use crate::{Error, error::ErrorKind, error::META_ERROR};

impl Client {
    /// Every resource the server lists (not templates).
    ///
    /// ```
    /// /// The motto.
    /// #[toolsmith::resource(uri = "club://motto")]
    /// fn club_motto() -> String { "Be kind.".into() }
    ///
    /// /// Memos by id.
    /// ///
    /// /// # Arguments
    /// /// * `id` - The id.
    /// #[toolsmith::resource(uri = "memos://{id}", complete(id = ids))]
    /// fn memo(id: u64) -> Option<String> { (id == 1).then(|| "milk".into()) }
    ///
    /// fn ids(value: &str, _: &toolsmith::complete::Completion) -> Vec<String> {
    ///     ["1", "12"].into_iter().filter(|i| i.starts_with(value)).map(String::from).collect()
    /// }
    ///
    /// /// Welcome someone.
    /// ///
    /// /// # Arguments
    /// /// * `name` - Whom.
    /// #[toolsmith::prompt]
    /// fn welcome(name: String) -> String { format!("Welcome {name}.") }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let registry = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let client = toolsmith::testing::Client::connect(toolsmith::Server::with_registry(registry)).await.unwrap();
    /// let resources = client.list_resources().await.unwrap();
    /// assert_eq!(resources[0].uri, "club://motto");
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
    /// ```
    /// /// The motto.
    /// #[toolsmith::resource(uri = "school://motto")]
    /// fn school_motto() -> String { "Be kind.".into() }
    ///
    /// /// Jottings by id.
    /// ///
    /// /// # Arguments
    /// /// * `id` - The id.
    /// #[toolsmith::resource(uri = "jottings://{id}", complete(id = ids))]
    /// fn jotting(id: u64) -> Option<String> { (id == 1).then(|| "milk".into()) }
    ///
    /// fn ids(value: &str, _: &toolsmith::complete::Completion) -> Vec<String> {
    ///     ["1", "12"].into_iter().filter(|i| i.starts_with(value)).map(String::from).collect()
    /// }
    ///
    /// /// Introduce someone.
    /// ///
    /// /// # Arguments
    /// /// * `name` - Whom.
    /// #[toolsmith::prompt]
    /// fn introduce(name: String) -> String { format!("Introduce {name}.") }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let registry = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let client = toolsmith::testing::Client::connect(toolsmith::Server::with_registry(registry)).await.unwrap();
    /// let templates = client.list_resource_templates().await.unwrap();
    /// assert_eq!(templates[0].uri_template, "jottings://{id}");
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
    /// ```
    /// /// The motto.
    /// #[toolsmith::resource(uri = "team://motto")]
    /// fn team_motto() -> String { "Be kind.".into() }
    ///
    /// /// Reminders by id.
    /// ///
    /// /// # Arguments
    /// /// * `id` - The id.
    /// #[toolsmith::resource(uri = "reminders://{id}", complete(id = ids))]
    /// fn reminder(id: u64) -> Option<String> { (id == 1).then(|| "milk".into()) }
    ///
    /// fn ids(value: &str, _: &toolsmith::complete::Completion) -> Vec<String> {
    ///     ["1", "12"].into_iter().filter(|i| i.starts_with(value)).map(String::from).collect()
    /// }
    ///
    /// /// Thank someone.
    /// ///
    /// /// # Arguments
    /// /// * `name` - Whom.
    /// #[toolsmith::prompt]
    /// fn thank(name: String) -> String { format!("Thank {name}.") }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let registry = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let client = toolsmith::testing::Client::connect(toolsmith::Server::with_registry(registry)).await.unwrap();
    /// assert_eq!(client.read_resource("reminders://1").await.unwrap().text(), "milk");
    /// let err = client.read_resource("reminders://2").await.unwrap_err();
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
    /// ```
    /// /// The motto.
    /// #[toolsmith::resource(uri = "guild://motto")]
    /// fn guild_motto() -> String { "Be kind.".into() }
    ///
    /// /// Scraps by id.
    /// ///
    /// /// # Arguments
    /// /// * `id` - The id.
    /// #[toolsmith::resource(uri = "scraps://{id}", complete(id = ids))]
    /// fn scrap(id: u64) -> Option<String> { (id == 1).then(|| "milk".into()) }
    ///
    /// fn ids(value: &str, _: &toolsmith::complete::Completion) -> Vec<String> {
    ///     ["1", "12"].into_iter().filter(|i| i.starts_with(value)).map(String::from).collect()
    /// }
    ///
    /// /// Congratulate someone.
    /// ///
    /// /// # Arguments
    /// /// * `name` - Whom.
    /// #[toolsmith::prompt]
    /// fn congratulate(name: String) -> String { format!("Congratulate {name}.") }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let registry = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let client = toolsmith::testing::Client::connect(toolsmith::Server::with_registry(registry)).await.unwrap();
    /// let prompts = client.list_prompts().await.unwrap();
    /// assert_eq!(prompts[0].name, "congratulate");
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
    /// ```
    /// /// The motto.
    /// #[toolsmith::resource(uri = "crew://motto")]
    /// fn crew_motto() -> String { "Be kind.".into() }
    ///
    /// /// Post-its by id.
    /// ///
    /// /// # Arguments
    /// /// * `id` - The id.
    /// #[toolsmith::resource(uri = "postits://{id}", complete(id = ids))]
    /// fn postit(id: u64) -> Option<String> { (id == 1).then(|| "milk".into()) }
    ///
    /// fn ids(value: &str, _: &toolsmith::complete::Completion) -> Vec<String> {
    ///     ["1", "12"].into_iter().filter(|i| i.starts_with(value)).map(String::from).collect()
    /// }
    ///
    /// /// Greet a guest.
    /// ///
    /// /// # Arguments
    /// /// * `name` - Whom.
    /// #[toolsmith::prompt]
    /// fn greet_guest(name: String) -> String { format!("Greet {name}.") }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let registry = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let client = toolsmith::testing::Client::connect(toolsmith::Server::with_registry(registry)).await.unwrap();
    /// let greeting = client.get_prompt("greet_guest", serde_json::json!({"name": "Ada"})).await.unwrap();
    /// assert_eq!(greeting.text(), "Greet Ada.");
    /// let err = client.get_prompt("greet_guest", serde_json::json!({})).await.unwrap_err();
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
    /// ```
    /// use toolsmith::testing::Complete;
    ///
    /// /// The motto.
    /// #[toolsmith::resource(uri = "band://motto")]
    /// fn band_motto() -> String { "Be kind.".into() }
    ///
    /// /// To-dos by id.
    /// ///
    /// /// # Arguments
    /// /// * `id` - The id.
    /// #[toolsmith::resource(uri = "todos://{id}", complete(id = ids))]
    /// fn todo_item(id: u64) -> Option<String> { (id == 1).then(|| "milk".into()) }
    ///
    /// fn ids(value: &str, _: &toolsmith::complete::Completion) -> Vec<String> {
    ///     ["1", "12"].into_iter().filter(|i| i.starts_with(value)).map(String::from).collect()
    /// }
    ///
    /// /// Praise someone.
    /// ///
    /// /// # Arguments
    /// /// * `name` - Whom.
    /// #[toolsmith::prompt]
    /// fn praise(name: String) -> String { format!("Praise {name}.") }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let registry = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let client = toolsmith::testing::Client::connect(toolsmith::Server::with_registry(registry)).await.unwrap();
    /// let ids = client.complete(Complete::resource("todos://{id}", "id", "1")).await.unwrap();
    /// assert_eq!(ids.values, ["1", "12"]);
    /// let err = client.complete(Complete::prompt("nope", "name", "A")).await.unwrap_err();
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

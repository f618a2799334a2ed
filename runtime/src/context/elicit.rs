//! [`Elicit`] and [`Sample`]: context parameters through which a tool asks its client
//! during a call, for the user's input (`elicitation/create`) or for a completion of the
//! client's model (`sampling/createMessage`). Both ask the way the call came in allows: on
//! revisions up to 2025-11-25 a request to the client on the call's session; on 2026-07-28 an
//! `input_required` answer, after which the client calls again with the answers and the tool
//! runs again from its start (see [`Elicit`] on what that means for side effects).

#![allow(deprecated)] // rmcp marks sampling deprecated (SEP-2577); every revision served still has it.

mod form;

use std::sync::Arc;

use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitResult, ElicitationAction, ElicitationSchema, InputRequest, ServerRequest,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::channel::{Asker, ChannelError};
use super::inquiry::Inquiry;
use super::{CallContext, FromContext};

/// Why a question got no answer.
///
/// ```
/// let err = toolsmith::context::AskError::NotDeclared("elicitation");
/// assert!(err.to_string().contains("elicitation"));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// The client did not declare the capability the question needs (named).
    #[error("the client cannot answer: it did not declare the `{0}` capability")]
    NotDeclared(&'static str),
    /// The question could not be asked or answered here: the way this call came in cannot
    /// carry it, the session ended first, or (2026-07-28) the run stopped for its answer and
    /// runs again with it; the text says which, and what to do.
    #[error("{0}")]
    Unsupported(String),
    /// The client answered with an error.
    #[error("the client answered with an error: {0}")]
    Client(String),
    /// What was asked does not fit the protocol (an elicitation form takes only flat
    /// strings, numbers, booleans and enums); the text says which part.
    #[error("{0}")]
    Schema(String),
    /// The client's answer does not fit what was asked.
    #[error("the client's answer does not fit: {0}")]
    Answer(String),
}

impl From<ChannelError> for AskError {
    fn from(err: ChannelError) -> Self {
        match err {
            ChannelError::NotDeclared(capability) => AskError::NotDeclared(capability),
            ChannelError::Client(error) => AskError::Client(error.message.into_owned()),
            other => AskError::Unsupported(other.to_string()),
        }
    }
}

/// What the user did with a form.
///
/// ```
/// let answer: toolsmith::context::Elicitation<u32> = toolsmith::context::Elicitation::Accept(3);
/// assert_eq!(answer.accepted(), Some(3));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation<T> {
    /// The user filled the form in: its content.
    Accept(T),
    /// The user said no.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

impl<T> Elicitation<T> {
    /// The content, when the user accepted.
    ///
    /// ```
    /// assert_eq!(toolsmith::context::Elicitation::<u32>::Decline.accepted(), None);
    /// ```
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accept(value) => Some(value),
            Elicitation::Decline | Elicitation::Cancel => None,
        }
    }
}

/// How a call asks its client: a request on its session, or a question of this round.
#[derive(Clone)]
struct Ask {
    asker: Asker,
    /// On 2026-07-28, this call's questions; `None` on earlier revisions.
    inquiry: Option<Arc<Inquiry>>,
}

impl Ask {
    fn of(context: &CallContext) -> Ask {
        Ask {
            asker: context.asker(),
            inquiry: context.inquiry.clone(),
        }
    }

    /// The client's answer to `request`.
    async fn ask(&self, request: InputRequest) -> Result<Value, AskError> {
        if let Some(inquiry) = &self.inquiry {
            inquiry.permits(&request).map_err(AskError::NotDeclared)?;
            return match inquiry.ask(request) {
                Some(answer) => Ok(answer),
                // The engine stops the run here, and the call answers `input_required`; a
                // tool that still waits (a sync one, blocked on this) is told so.
                None => {
                    inquiry.halted().await;
                    Err(AskError::Unsupported(
                        "the run stopped for the client's answer; it runs again with it".into(),
                    ))
                }
            };
        }
        let request = match request {
            InputRequest::Elicitation(request) => ServerRequest::ElicitRequest(request),
            InputRequest::CreateMessage(request) => ServerRequest::CreateMessageRequest(request),
            InputRequest::ListRoots(request) => ServerRequest::ListRootsRequest(request),
            _ => return Err(AskError::Schema("an unknown kind of question".into())),
        };
        match self.asker.ask(request).await? {
            ClientResult::ElicitResult(result) => to_value(&result),
            ClientResult::CreateMessageResult(result) => to_value(&result),
            other => Err(AskError::Answer(format!(
                "an answer of another kind: {other:?}"
            ))),
        }
    }
}

fn to_value(result: &impl serde::Serialize) -> Result<Value, AskError> {
    serde_json::to_value(result).map_err(|err| AskError::Answer(err.to_string()))
}

/// A context parameter that asks the user to fill in a form (`elicitation/create`).
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use toolsmith::{context::Elicit, context::Elicitation, ToolError, tool};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Copies {
///     /// How many copies to print.
///     count: u32,
/// }
///
/// /// Print the report, asking how many copies.
/// #[tool(closed_world)]
/// async fn print_copies(elicit: Elicit) -> Result<String, ToolError> {
///     match elicit.ask::<Copies>("How many copies?").await {
///         Ok(Elicitation::Accept(copies)) => Ok(format!("printing {}", copies.count)),
///         Ok(_) => Ok("not printed".into()),
///         Err(err) => Err(ToolError::new(err.to_string())),
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = || toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "print_copies"));
/// use toolsmith::testing::Client;
///
/// // By default the test client declines every form, as a user who says no.
/// let client = Client::connect(server()).await.unwrap();
/// let declined = client.call("print_copies", serde_json::json!({})).await.unwrap();
/// assert_eq!(declined.text(), "not printed");
///
/// let client = client.on_elicit(|_| Elicitation::Accept(serde_json::json!({"count": 2})));
/// let printed = client.call("print_copies", serde_json::json!({})).await.unwrap();
/// assert_eq!(printed.text(), "printing 2");
///
/// // A client that declared no elicitation is not asked: the tool gets an error.
/// let agent = Client::connect_unattended(server()).await.unwrap();
/// let err = agent.call("print_copies", serde_json::json!({})).await.unwrap_err();
/// assert!(err.message().contains("`elicitation`"), "{err}");
/// # }
/// ```
///
/// On the 2026-07-28 revision a server cannot send a request during a call: the call
/// answers `input_required` with the question, and the client calls again with the answer,
/// which runs the tool again from its start; this time the question returns the answer at
/// once. So **a tool that asks must ask before it changes anything**: what it did before
/// its question is done once per round. (On earlier revisions the question is a request on
/// the call's session, and the tool runs once.)
#[derive(Clone)]
pub struct Elicit(Ask);

impl Elicit {
    /// Asks the user to fill in a form for `T`: its fields become the form's
    /// `requestedSchema`, flat as the protocol requires (strings, numbers, integers,
    /// booleans, enums of strings, lists of enum values; `Option` fields are optional, a
    /// `#[serde(default)]` gives the default). A type outside that subset is an
    /// [`AskError::Schema`] naming the field.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use toolsmith::context::{Elicit, Elicitation};
    /// use toolsmith::{ToolError, tool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Name {
    ///     /// What to call you.
    ///     name: String,
    ///     /// Whether to be formal.
    ///     #[serde(default)]
    ///     formal: bool,
    /// }
    ///
    /// /// Greet the user by the name they give.
    /// #[tool(read_only, closed_world)]
    /// async fn greet_by_name(elicit: Elicit) -> Result<String, ToolError> {
    ///     match elicit.ask::<Name>("Your name?").await {
    ///         Ok(Elicitation::Accept(n)) if n.formal => Ok(format!("Good day, {}.", n.name)),
    ///         Ok(Elicitation::Accept(n)) => Ok(format!("Hi {}!", n.name)),
    ///         Ok(_) => Ok("Hi!".into()),
    ///         Err(err) => Err(ToolError::new(err.to_string())),
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "greet_by_name"));
    /// let asked = Arc::new(Mutex::new(serde_json::Value::Null));
    /// let seen = asked.clone();
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap().on_elicit(move |form| {
    ///     *seen.lock().unwrap() = form.schema.clone();
    ///     Elicitation::Accept(serde_json::json!({"name": "Ada"}))
    /// });
    /// let greeting = client.call("greet_by_name", serde_json::json!({})).await.unwrap();
    /// assert_eq!(greeting.text(), "Hi Ada!"); // `formal` took its default
    ///
    /// let form = asked.lock().unwrap().clone();
    /// assert_eq!(form["properties"]["name"]["type"], "string");
    /// assert_eq!(form["properties"]["formal"]["default"], false);
    /// assert_eq!(form["required"], serde_json::json!(["name"]));
    /// # }
    /// ```
    pub async fn ask<T: JsonSchema + DeserializeOwned>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, AskError> {
        let schema = form::schema_of::<T>()?;
        let answer = self.ask_form(message, schema).await?;
        match answer {
            Elicitation::Accept(content) => serde_json::from_value(content)
                .map(Elicitation::Accept)
                .map_err(|err| AskError::Answer(err.to_string())),
            Elicitation::Decline => Ok(Elicitation::Decline),
            Elicitation::Cancel => Ok(Elicitation::Cancel),
        }
    }

    /// Asks the user to fill in a form given as rmcp's [`ElicitationSchema`], for shapes a
    /// Rust type does not say (titled enum options, `enumNames`); the content comes back as
    /// JSON.
    ///
    /// ```
    /// use toolsmith::context::{Elicit, Elicitation};
    /// use toolsmith::rmcp::model::ElicitationSchema;
    /// use toolsmith::{ToolError, tool};
    ///
    /// /// Subscribe the user to the newsletter.
    /// #[tool(destructive = false, idempotent, closed_world)]
    /// async fn subscribe_newsletter(elicit: Elicit) -> Result<String, ToolError> {
    ///     let schema = ElicitationSchema::builder().required_email("email").build().map_err(ToolError::new)?;
    ///     match elicit.ask_form("Your e-mail?", schema).await {
    ///         Ok(Elicitation::Accept(content)) => Ok(format!("subscribed {}", content["email"])),
    ///         Ok(_) => Ok("not subscribed".into()),
    ///         Err(err) => Err(ToolError::new(err.to_string())),
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "subscribe_newsletter"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// // A user who gives an address only when asked for one.
    /// let client = client.on_elicit(|form| match form.schema["properties"]["email"]["format"].as_str() {
    ///     Some("email") => Elicitation::Accept(serde_json::json!({"email": "ada@example.com"})),
    ///     _ => Elicitation::Decline,
    /// });
    /// let subscribed = client.call("subscribe_newsletter", serde_json::json!({})).await.unwrap();
    /// assert_eq!(subscribed.text(), r#"subscribed "ada@example.com""#);
    /// # }
    /// ```
    pub async fn ask_form(
        &self,
        message: impl Into<String>,
        schema: ElicitationSchema,
    ) -> Result<Elicitation<Value>, AskError> {
        let request = json!({"method": "elicitation/create", "params": {
            "mode": "form", "message": message.into(), "requestedSchema": schema}});
        let answer = self.elicit(request).await?;
        Ok(match answer.action {
            ElicitationAction::Accept => Elicitation::Accept(answer.content.unwrap_or(json!({}))),
            ElicitationAction::Decline => Elicitation::Decline,
            _ => Elicitation::Cancel,
        })
    }

    /// Sends the user to `url` (URL-mode elicitation: a sign-in, a payment), and says
    /// whether they agreed to go.
    ///
    /// ```
    /// use toolsmith::context::{Elicit, Elicitation};
    /// use toolsmith::{ToolError, tool};
    ///
    /// /// Open the archive, once the user signed in.
    /// #[tool(read_only)]
    /// async fn open_archive(elicit: Elicit) -> Result<String, ToolError> {
    ///     match elicit.ask_url("Sign in to the archive", "https://archive.example/login").await {
    ///         Ok(Elicitation::Accept(())) => Ok("signed in".into()),
    ///         Ok(_) => Ok("not signed in".into()),
    ///         Err(err) => Err(ToolError::new(err.to_string())),
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "open_archive"));
    /// // The test client declares form elicitation only: a URL is not asked, and the error
    /// // names the capability it lacks.
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let err = client.call("open_archive", serde_json::json!({})).await.unwrap_err();
    /// assert!(err.message().contains("`elicitation.url`"), "{err}");
    /// # }
    /// ```
    pub async fn ask_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Elicitation<()>, AskError> {
        let url = url.into();
        let id = format!("toolsmith-{:016x}", super::inquiry::fingerprint_text(&url));
        let request = json!({"method": "elicitation/create", "params": {
            "mode": "url", "message": message.into(), "url": url, "elicitationId": id}});
        let answer = self.elicit(request).await?;
        Ok(match answer.action {
            ElicitationAction::Accept => Elicitation::Accept(()),
            ElicitationAction::Decline => Elicitation::Decline,
            _ => Elicitation::Cancel,
        })
    }

    /// Asks the client a question another server asked (a gateway's upstream, say): its
    /// elicitation or sampling request as rmcp models it, the client's answer as the
    /// protocol has it (an `ElicitResult` or a `CreateMessageResult`, as JSON). On
    /// 2026-07-28 the tool must say it asks ([`ToolDescription::asks_client`](crate::ToolDescription::asks_client)).
    ///
    /// ```
    /// use toolsmith::context::{Elicit, Elicitation};
    /// use toolsmith::rmcp::model::{ElicitRequest, InputRequest};
    /// use toolsmith::{ToolError, tool};
    ///
    /// /// Ask the user what an upstream server asked, and pass the answer on.
    /// #[tool(read_only, closed_world)]
    /// async fn relay_question(elicit: Elicit) -> Result<serde_json::Value, ToolError> {
    ///     let asked: ElicitRequest = serde_json::from_value(serde_json::json!({
    ///         "method": "elicitation/create",
    ///         "params": {"mode": "form", "message": "Which city?", "requestedSchema": {
    ///             "type": "object", "properties": {"city": {"type": "string"}}}},
    ///     }))
    ///     .map_err(|err| ToolError::new(err.to_string()))?;
    ///     elicit.relay(InputRequest::Elicitation(asked)).await.map_err(|err| ToolError::new(err.to_string()))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "relay_question"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let client = client.on_elicit(|form| match form.message.as_str() {
    ///     "Which city?" => Elicitation::Accept(serde_json::json!({"city": "Paris"})),
    ///     _ => Elicitation::Decline,
    /// });
    /// let relayed = client.call("relay_question", serde_json::json!({})).await.unwrap();
    /// let answer: serde_json::Value = relayed.data().unwrap();
    /// assert_eq!(answer["action"], "accept");
    /// assert_eq!(answer["content"], serde_json::json!({"city": "Paris"}));
    /// # }
    /// ```
    pub async fn relay(&self, request: InputRequest) -> Result<Value, AskError> {
        self.0.ask(request).await
    }

    async fn elicit(&self, request: Value) -> Result<ElicitResult, AskError> {
        let request: ElicitRequest =
            serde_json::from_value(request).map_err(|err| AskError::Schema(err.to_string()))?;
        let answer = self.0.ask(InputRequest::Elicitation(request)).await?;
        serde_json::from_value(answer).map_err(|err| AskError::Answer(err.to_string()))
    }
}

/// A context parameter that asks the client's model for a completion
/// (`sampling/createMessage`).
///
/// ```
/// use toolsmith::{context::Sample, ToolError, tool};
///
/// /// Summarize a text with the client's model.
/// #[tool(read_only, closed_world)]
/// async fn summarize_text(text: String, sample: Sample) -> Result<String, ToolError> {
///     sample
///         .text(format!("Summarize in one line: {text}"), 100)
///         .await
///         .map_err(|err| ToolError::new(err.to_string()))
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "summarize_text"));
/// let args = serde_json::json!({"text": "A long story."});
/// // By default the test client refuses sampling: the tool's error says so.
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let err = client.call("summarize_text", args.clone()).await.unwrap_err();
/// assert!(err.message().contains("the client answered with an error"), "{err}");
///
/// let client = client.on_sample(|request| format!("{} message, {} tokens", request.messages.len(), request.max_tokens));
/// let summary = client.call("summarize_text", args).await.unwrap();
/// assert_eq!(summary.text(), "1 message, 100 tokens");
/// # }
/// ```
///
/// On 2026-07-28 the question is part of an `input_required` answer, as for [`Elicit`].
pub struct Sample(Ask);

impl Sample {
    /// Asks the model to answer `prompt` (one user message) in at most `max_tokens`, and
    /// returns the text of its answer.
    ///
    /// ```
    /// use toolsmith::{context::Sample, ToolError, tool};
    ///
    /// /// Have the client's model say hello.
    /// #[tool(read_only, closed_world)]
    /// async fn say_hello_model(sample: Sample) -> Result<String, ToolError> {
    ///     sample.text("Say hello", 20).await.map_err(|err| ToolError::new(err.to_string()))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "say_hello_model"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let client = client.on_sample(|request| format!("Hello, in {} tokens at most", request.max_tokens));
    /// let said = client.call("say_hello_model", serde_json::json!({})).await.unwrap();
    /// assert_eq!(said.text(), "Hello, in 20 tokens at most");
    /// # }
    /// ```
    pub async fn text(
        &self,
        prompt: impl Into<String>,
        max_tokens: u32,
    ) -> Result<String, AskError> {
        let params = json!({"messages": [{"role": "user",
            "content": {"type": "text", "text": prompt.into()}}], "maxTokens": max_tokens});
        let params: CreateMessageRequestParams =
            serde_json::from_value(params).map_err(|err| AskError::Schema(err.to_string()))?;
        let result = self.create_message(params).await?;
        let text: Vec<&str> = result
            .message
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
            .collect();
        Ok(text.join(""))
    }

    /// Sends a whole `sampling/createMessage` request (a conversation, a system prompt,
    /// model preferences), and returns the model's result.
    ///
    /// ```
    /// use toolsmith::rmcp::model::CreateMessageRequestParams;
    /// use toolsmith::{context::Sample, ToolError, tool};
    ///
    /// /// Say which model answered, and what.
    /// #[tool(read_only, closed_world)]
    /// async fn which_model(sample: Sample) -> Result<String, ToolError> {
    ///     let params: CreateMessageRequestParams = serde_json::from_value(serde_json::json!({
    ///         "messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}],
    ///         "systemPrompt": "Answer in French.",
    ///         "maxTokens": 50,
    ///     }))
    ///     .map_err(|err| ToolError::new(err.to_string()))?;
    ///     let result = sample.create_message(params).await.map_err(|err| ToolError::new(err.to_string()))?;
    ///     let said: String = result.message.content.iter().filter_map(|b| b.as_text()).map(|t| t.text.as_str()).collect();
    ///     Ok(format!("{}: {said}", result.model))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "which_model"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// // A model that answers with the system prompt it was given.
    /// let client = client.on_sample(|request| request.system_prompt.clone().unwrap_or_default());
    /// let answered = client.call("which_model", serde_json::json!({})).await.unwrap();
    /// assert_eq!(answered.text(), "toolsmith-testing: Answer in French.");
    /// # }
    /// ```
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, AskError> {
        let request = CreateMessageRequest::new(params);
        let answer = self.0.ask(InputRequest::CreateMessage(request)).await?;
        serde_json::from_value(answer).map_err(|err| AskError::Answer(err.to_string()))
    }
}

impl FromContext for Elicit {
    type Rejection = std::convert::Infallible;

    fn from_context(context: &CallContext) -> Result<Self, Self::Rejection> {
        Ok(Elicit(Ask::of(context)))
    }

    fn asks() -> bool {
        true
    }
}

impl FromContext for Sample {
    type Rejection = std::convert::Infallible;

    fn from_context(context: &CallContext) -> Result<Self, Self::Rejection> {
        Ok(Sample(Ask::of(context)))
    }

    fn asks() -> bool {
        true
    }
}

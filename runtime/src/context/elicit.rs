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
/// ```no_run
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
/// async fn print_report(elicit: Elicit) -> Result<String, ToolError> {
///     match elicit.ask::<Copies>("How many copies?").await {
///         Ok(Elicitation::Accept(copies)) => Ok(format!("printing {}", copies.count)),
///         Ok(_) => Ok("not printed".into()),
///         Err(err) => Err(ToolError::new(err.to_string())),
///     }
/// }
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
    /// ```no_run
    /// # async fn f(elicit: toolsmith::context::Elicit) {
    /// let name: Result<toolsmith::context::Elicitation<String>, _> = async {
    ///     #[derive(serde::Deserialize, schemars::JsonSchema)]
    ///     struct Name { name: String }
    ///     let answer = elicit.ask::<Name>("Your name?").await?;
    ///     Ok::<_, toolsmith::context::AskError>(match answer {
    ///         toolsmith::context::Elicitation::Accept(n) => toolsmith::context::Elicitation::Accept(n.name),
    ///         toolsmith::context::Elicitation::Decline => toolsmith::context::Elicitation::Decline,
    ///         toolsmith::context::Elicitation::Cancel => toolsmith::context::Elicitation::Cancel,
    ///     })
    /// }.await;
    /// # let _ = name;
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
    /// ```no_run
    /// use toolsmith::rmcp::model::ElicitationSchema;
    /// # async fn f(elicit: toolsmith::context::Elicit) {
    /// let schema = ElicitationSchema::builder().required_email("email").build().unwrap();
    /// let answer = elicit.ask_form("Your e-mail?", schema).await;
    /// # let _ = answer;
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
    /// ```no_run
    /// # async fn f(elicit: toolsmith::context::Elicit) {
    /// let went = elicit.ask_url("Sign in to the archive", "https://archive.example/login").await;
    /// # let _ = went;
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
    /// 2026-07-28 the tool must say it asks ([`Tool::asks_client`](crate::Tool::asks_client)).
    ///
    /// ```
    /// use toolsmith::context::Elicit;
    /// use toolsmith::rmcp::model::InputRequest;
    ///
    /// async fn passed_on(elicit: &Elicit, asked: InputRequest) -> serde_json::Value {
    ///     match elicit.relay(asked).await {
    ///         Ok(answer) => answer,
    ///         Err(err) => serde_json::json!({"action": "cancel", "why": err.to_string()}),
    ///     }
    /// }
    /// # let _ = passed_on;
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
/// ```no_run
/// use toolsmith::{context::Sample, ToolError, tool};
///
/// /// Summarize a text with the client's model.
/// #[tool(read_only, closed_world)]
/// async fn summarize(text: String, sample: Sample) -> Result<String, ToolError> {
///     sample
///         .text(format!("Summarize in one line: {text}"), 100)
///         .await
///         .map_err(|err| ToolError::new(err.to_string()))
/// }
/// ```
///
/// On 2026-07-28 the question is part of an `input_required` answer, as for [`Elicit`].
pub struct Sample(Ask);

impl Sample {
    /// Asks the model to answer `prompt` (one user message) in at most `max_tokens`, and
    /// returns the text of its answer.
    ///
    /// ```no_run
    /// # async fn f(sample: toolsmith::context::Sample) {
    /// let line = sample.text("Say hello", 20).await;
    /// # let _ = line;
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
    /// ```no_run
    /// use toolsmith::rmcp::model::CreateMessageRequestParams;
    /// # async fn f(sample: toolsmith::context::Sample) {
    /// let params: CreateMessageRequestParams = serde_json::from_value(serde_json::json!({
    ///     "messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}],
    ///     "maxTokens": 50,
    /// })).unwrap();
    /// let result = sample.create_message(params).await;
    /// # let _ = result;
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

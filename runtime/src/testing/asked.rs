//! How a test plays the user: it answers a tool's confirmation ([`Client::on_confirm`]), its
//! forms ([`Client::on_elicit`]) and its sampling requests ([`Client::on_sample`]) with
//! handlers of its own. Each handler sees what was asked.

#![allow(deprecated)] // rmcp marks sampling deprecated (SEP-2577); every revision served still has it.

use std::sync::Arc;

use rmcp::model::{
    ClientResult, CreateMessageRequestParams, CreateMessageResult, ElicitRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, RequestMetaObject, Role, SamplingMessage,
    ServerRequest,
};
use serde_json::{Value, json};

use super::Client;
use super::requests::Answerer;
use crate::context::Elicitation;

/// A user's answer to a confirmation.
///
/// ```
/// assert_ne!(toolsmith::testing::Answer::Accept, toolsmith::testing::Answer::Decline);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Yes: the tool runs.
    Accept,
    /// No: the tool does not run.
    Decline,
    /// The question was dismissed: the tool does not run.
    Cancel,
}

/// A confirmation the server asked for: the question the user reads (see
/// [`Client::on_confirm`]).
///
/// ```
/// use toolsmith::testing::{Answer, Confirmation};
///
/// fn say_yes_to_deletes(asked: &Confirmation) -> Answer {
///     if asked.message.starts_with("Delete") { Answer::Accept } else { Answer::Decline }
/// }
///
/// /// Delete old drafts.
/// #[toolsmith::tool(destructive, idempotent, closed_world, confirm = "Delete the drafts older than {days} days?")]
/// fn delete_old_drafts(days: u32) -> String {
///     format!("deleted drafts older than {days} days")
/// }
///
/// /// Archive old drafts.
/// #[toolsmith::tool(destructive = false, idempotent, closed_world, confirm = "Archive the drafts older than {days} days?")]
/// fn archive_old_drafts(days: u32) -> String {
///     format!("archived drafts older than {days} days")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name().ends_with("_old_drafts")));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap().on_confirm(say_yes_to_deletes);
/// let deleted = client.call("delete_old_drafts", serde_json::json!({"days": 30})).await.unwrap();
/// assert_eq!(deleted.text(), "deleted drafts older than 30 days");
/// let archived = client.call("archive_old_drafts", serde_json::json!({"days": 30})).await;
/// assert!(archived.unwrap_err().message().contains("declined"));
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Confirmation {
    /// The question, as the client shows it.
    pub message: String,
}

/// A form the server asked the user to fill in (see [`Client::on_elicit`]).
///
/// ```
/// use toolsmith::context::{Elicit, Elicitation};
///
/// fn fill(form: &toolsmith::testing::Form) -> Elicitation<serde_json::Value> {
///     match form.schema["properties"].get("count") {
///         Some(_) => Elicitation::Accept(serde_json::json!({"count": 2})),
///         None => Elicitation::Decline,
///     }
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Cups {
///     /// How many cups.
///     count: u32,
/// }
///
/// /// Order coffee, asking how many cups.
/// #[toolsmith::tool(destructive = false, closed_world)]
/// async fn order_coffee(elicit: Elicit) -> String {
///     match elicit.ask::<Cups>("How many cups?").await {
///         Ok(Elicitation::Accept(cups)) => format!("{} cups ordered", cups.count),
///         _ => "nothing ordered".into(),
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "order_coffee"));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap().on_elicit(fill);
/// let ordered = client.call("order_coffee", serde_json::json!({})).await.unwrap();
/// assert_eq!(ordered.text(), "2 cups ordered");
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Form {
    /// The question.
    pub message: String,
    /// Its `requestedSchema`.
    pub schema: Value,
}

/// Whether `params` is a confirmation: a form its `_meta` marks as one
/// (`dev.toolsmith/confirm`), so that a tool's own form of one boolean is not taken for it.
fn confirmation(request: &ElicitRequest) -> Option<Confirmation> {
    let ElicitRequestParams::FormElicitationParams { message, meta, .. } = &request.params else {
        return None;
    };
    // rmcp keeps a request's `_meta` with the request once read (its extensions).
    let meta = meta
        .as_ref()
        .or_else(|| request.extensions.get::<RequestMetaObject>())?;
    let marked = meta.get("dev.toolsmith/confirm")? == &Value::Bool(true);
    marked.then(|| Confirmation {
        message: message.clone(),
    })
}

/// The user's answer to a form.
fn elicited(answer: Elicitation<Value>) -> ClientResult {
    let (action, content) = match answer {
        Elicitation::Accept(content) => (ElicitationAction::Accept, Some(content)),
        Elicitation::Decline => (ElicitationAction::Decline, None),
        Elicitation::Cancel => (ElicitationAction::Cancel, None),
    };
    let mut result = ElicitResult::new(action);
    result.content = content;
    ClientResult::ElicitResult(result)
}

impl Client {
    /// Answers every confirmation with `handler` from now on (by default the client declines
    /// them). The handler sees the question the user would read.
    ///
    /// ```
    /// use toolsmith::testing::{Answer, Client};
    ///
    /// /// Delete a note.
    /// #[toolsmith::tool(destructive, closed_world, confirm = "Delete note {note_id}?")]
    /// fn remove_note(note_id: u64) -> String {
    ///     format!("deleted {note_id}")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let tools = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let client = Client::connect(toolsmith::Server::with_registry(tools)).await.unwrap();
    /// let declined = client.call("remove_note", serde_json::json!({"note_id": 3})).await;
    /// assert!(declined.unwrap_err().message().contains("declined"));
    ///
    /// let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    /// let seen = asked.clone();
    /// let client = client.on_confirm(move |question| {
    ///     seen.lock().unwrap().push(question.message.clone());
    ///     Answer::Accept
    /// });
    /// let outcome = client.call("remove_note", serde_json::json!({"note_id": 3})).await.unwrap();
    /// assert_eq!(outcome.text(), "deleted 3");
    /// assert_eq!(*asked.lock().unwrap(), ["Delete note 3?"]);
    /// # }
    /// ```
    pub fn on_confirm(
        self,
        handler: impl Fn(&Confirmation) -> Answer + Send + Sync + 'static,
    ) -> Self {
        self.answering(move |request| {
            let ServerRequest::ElicitRequest(elicit) = request else {
                return None;
            };
            let answer = match handler(&confirmation(elicit)?) {
                Answer::Accept => Elicitation::Accept(json!({"confirm": true})),
                Answer::Decline => Elicitation::Decline,
                Answer::Cancel => Elicitation::Cancel,
            };
            Some(elicited(answer))
        })
    }

    /// Answers every form that is not a confirmation (a tool's
    /// [`Elicit`](crate::context::Elicit)) with `handler` from now on: the user's content, or a
    /// decline or cancel (by default the client declines).
    ///
    /// ```
    /// use toolsmith::context::{Elicit, Elicitation};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Tickets {
    ///     /// How many tickets.
    ///     count: u32,
    /// }
    ///
    /// /// Book tickets, asking how many.
    /// #[toolsmith::tool(destructive = false, closed_world)]
    /// async fn book_tickets(elicit: Elicit) -> String {
    ///     match elicit.ask::<Tickets>("How many tickets?").await {
    ///         Ok(Elicitation::Accept(tickets)) => format!("{} booked", tickets.count),
    ///         Ok(Elicitation::Decline) => "declined".into(),
    ///         Ok(Elicitation::Cancel) => "cancelled".into(),
    ///         Err(err) => err.to_string(),
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "book_tickets"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let call = || client.call("book_tickets", serde_json::json!({}));
    /// assert_eq!(call().await.unwrap().text(), "declined"); // the default answer
    ///
    /// let client = client.on_elicit(|form| match form.message.as_str() {
    ///     "How many tickets?" => Elicitation::Accept(serde_json::json!({"count": 2})),
    ///     _ => Elicitation::Cancel,
    /// });
    /// assert_eq!(client.call("book_tickets", serde_json::json!({})).await.unwrap().text(), "2 booked");
    /// # }
    /// ```
    pub fn on_elicit(
        self,
        handler: impl Fn(&Form) -> Elicitation<Value> + Send + Sync + 'static,
    ) -> Self {
        self.answering(move |request| {
            let ServerRequest::ElicitRequest(elicit) = request else {
                return None;
            };
            let ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } = &elicit.params
            else {
                return None;
            };
            if confirmation(elicit).is_some() {
                return None;
            }
            let form = Form {
                message: message.clone(),
                schema: serde_json::to_value(requested_schema).unwrap_or_default(),
            };
            Some(elicited(handler(&form)))
        })
    }

    /// Answers every sampling request (a tool's [`Sample`](crate::context::Sample)) with the text
    /// `handler` returns, as model `toolsmith-testing` (by default the client refuses them).
    ///
    /// ```
    /// use toolsmith::context::Sample;
    ///
    /// /// Name a colour, asking the client's model.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// async fn name_a_colour(sample: Sample) -> String {
    ///     sample.text("Name a colour.", 5).await.unwrap_or_else(|err| err.to_string())
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "name_a_colour"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let client = client.on_sample(|request| format!("{} message, {} tokens", request.messages.len(), request.max_tokens));
    /// let named = client.call("name_a_colour", serde_json::json!({})).await.unwrap();
    /// assert_eq!(named.text(), "1 message, 5 tokens");
    /// # }
    /// ```
    pub fn on_sample(
        self,
        handler: impl Fn(&CreateMessageRequestParams) -> String + Send + Sync + 'static,
    ) -> Self {
        self.answering(move |request| {
            let ServerRequest::CreateMessageRequest(sample) = request else {
                return None;
            };
            let text = handler(&sample.params);
            let message = SamplingMessage::new(
                Role::Assistant,
                rmcp::model::SamplingMessageContentBlock::text(text),
            );
            let mut result = CreateMessageResult::new(message, "toolsmith-testing".into());
            result.stop_reason = Some("endTurn".into());
            Some(ClientResult::CreateMessageResult(Box::new(result)))
        })
    }

    /// From now on, `first` answers the requests it takes (`Some`); the answerer before it,
    /// the rest.
    fn answering(
        self,
        first: impl Fn(&ServerRequest) -> Option<ClientResult> + Send + Sync + 'static,
    ) -> Self {
        let previous = self.driver.answerer();
        let answerer: Answerer = Arc::new(move |request: &ServerRequest| match first(request) {
            Some(answer) => Ok(answer),
            None => previous(request),
        });
        self.driver.set_answerer(answerer);
        self
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ServerRequest;
    use serde_json::json;

    #[test]
    fn a_confirmation_is_told_by_its_meta() {
        let asked = json!({"method": "elicitation/create", "params": {
            "_meta": {"dev.toolsmith/confirm": true}, "mode": "form", "message": "Remove x?",
            "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}}}});
        let ServerRequest::ElicitRequest(request) = serde_json::from_value(asked).unwrap() else {
            panic!("an elicitation");
        };
        assert_eq!(super::confirmation(&request).unwrap().message, "Remove x?");
    }
}

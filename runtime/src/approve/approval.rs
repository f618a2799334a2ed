//! [`Approval`]: a call waiting for its confirmation, as approvers see it.

use std::sync::Arc;

use rmcp::model::JsonObject;

use crate::context::Caller;
use crate::tool::Hints;

/// A call waiting for its confirmation: the tool, its hints and tags, the question the user
/// would be asked, the arguments, and who calls.
///
/// ```
/// use toolsmith::Hints;
/// use toolsmith::approve::Approval;
///
/// let approval = Approval::new("delete_note", Hints::DESTRUCTIVE.idempotent())
///     .with_question("Delete note 7?")
///     .with_arguments(serde_json::json!({"note_id": 7}).as_object().unwrap().clone());
/// assert_eq!(approval.tool(), "delete_note");
/// assert_eq!(approval.arguments()["note_id"], 7);
/// assert!(approval.caller().is_anonymous());
/// ```
#[derive(Clone, Debug)]
pub struct Approval {
    tool: Arc<str>,
    /// The session the call came in, if any (what [`Remember::Session`] remembers it for).
    pub(crate) session: Option<u64>,
    hints: Hints,
    tags: Vec<String>,
    question: String,
    arguments: JsonObject,
    caller: Caller,
}

impl Approval {
    /// A call of `tool`, whose hints are `hints`, by an anonymous caller, without arguments.
    pub fn new(tool: &str, hints: Hints) -> Approval {
        Approval {
            tool: tool.into(),
            session: None,
            hints,
            tags: Vec::new(),
            question: String::new(),
            arguments: JsonObject::new(),
            caller: Caller::anonymous(),
        }
    }

    /// With the tool's tags.
    pub fn with_tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Approval {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// With the question the user would be asked.
    pub fn with_question(mut self, question: impl Into<String>) -> Approval {
        self.question = question.into();
        self
    }

    /// With the call's arguments.
    pub fn with_arguments(mut self, arguments: JsonObject) -> Approval {
        self.arguments = arguments;
        self
    }

    /// With who calls.
    pub fn with_caller(mut self, caller: Caller) -> Approval {
        self.caller = caller;
        self
    }

    /// In session `session` (the server's number for it).
    pub(crate) fn in_session(mut self, session: Option<u64>) -> Approval {
        self.session = session;
        self
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The tool's hints.
    pub fn hints(&self) -> Hints {
        self.hints
    }

    /// The tool's tags.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// The question the user would be asked.
    pub fn question(&self) -> &str {
        &self.question
    }

    /// The call's arguments.
    pub fn arguments(&self) -> &JsonObject {
        &self.arguments
    }

    /// Who calls.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }
}

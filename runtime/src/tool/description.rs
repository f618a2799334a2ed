//! [`ToolDescription`]: what a tool made at run time says of itself, as data. A
//! [`Tool`](crate::Tool) gives it from [`describe`](crate::Tool::describe); a tool wrapping
//! another changes the fields it changes and keeps the others.

use rmcp::model::JsonObject;

use crate::Hints;
use crate::item::About;
use crate::tool::def::TaskSupport;

/// What a [`Tool`](crate::Tool) says of itself: what it shares with resources and prompts
/// ([`About`]: name, title, description, icons, scopes, timeout, origin), its schemas, hints,
/// category and tags, whether its calls are confirmed, run as tasks, limited in number, and
/// ask the client. Read once, when the tool is added to a registry.
///
/// Made with [`ToolDescription::new`] and the `with_` methods; what it does not say has the
/// default of a `#[tool]` without the key. Its fields are public: a tool that wraps another
/// changes the ones it changes and keeps the others.
///
/// ```
/// use toolsmith::rmcp::model::JsonObject;
/// use toolsmith::{CallContext, Hints, Registry, Tool, ToolDescription, tool::ToolFuture};
///
/// /// Another tool, destructive whatever it says.
/// struct Careful<T>(T);
///
/// impl<T: Tool> Tool for Careful<T> {
///     fn describe(&self) -> ToolDescription {
///         let mut description = self.0.describe();
///         description.hints = Hints::DESTRUCTIVE;
///         description
///     }
///     fn call(&self, arguments: JsonObject, context: &CallContext) -> ToolFuture {
///         self.0.call(arguments, context)
///     }
/// }
///
/// struct Clear;
///
/// impl Tool for Clear {
///     fn describe(&self) -> ToolDescription {
///         let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
///         ToolDescription::new("clear", "Clear the screen.", schema, Hints::ADDITIVE)
///             .with_title("Clear")
///             .with_category("screen")
///     }
///     fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
///         Box::pin(async { Ok(toolsmith::tool::ToolOutput::new().text("cleared")) })
///     }
/// }
///
/// let (careful, plain) = (Careful(Clear).describe(), Clear.describe());
/// assert_eq!((careful.hints, plain.hints), (Hints::DESTRUCTIVE, Hints::ADDITIVE));
/// assert_eq!((careful.about, careful.category), (plain.about, plain.category));
/// let registry = Registry::new().with_tool(Careful(Clear)).unwrap();
/// let tool = registry.get("clear").unwrap();
/// assert!(tool.hints().destructive);
/// assert_eq!((tool.header().title(), tool.category()), (Some("Clear"), Some("screen")));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolDescription {
    /// Its name (what a client calls it by: 1 to 128 characters of `A-Z a-z 0-9 _ - .`),
    /// title, description (what the model reads to decide whether to call it), icons,
    /// scopes (empty: the scope its hints imply), timeout and origin.
    pub about: About,
    /// The JSON Schema of its arguments: an object schema (`"type": "object"`). A call's
    /// arguments are checked against it before anything else runs for the call.
    pub input_schema: JsonObject,
    /// The JSON Schema of its structured result, when it returns one (an object schema).
    pub output_schema: Option<JsonObject>,
    /// Its four behaviour hints. They decide the scope a caller needs, whether the user
    /// confirms a call under [`Confirm::Destructive`](crate::server::Confirm::Destructive), and
    /// whether the read-only and closed-world modes offer it: say what it does. A tool both
    /// read-only and destructive is refused when it is added, as `#[tool]` refuses it.
    pub hints: Hints,
    /// A category, for [`Search`](crate::registry::Search) and the policy.
    pub category: Option<String>,
    /// Tags, for [`Search`](crate::registry::Search) and the policy.
    pub tags: Vec<String>,
    /// Whether the user is asked before every call, whatever the server's
    /// [`Confirm`](crate::server::Confirm) policy.
    pub confirms: bool,
    /// The confirmation's question, with `{argument}` placeholders (`{{` and `}}` are
    /// braces); `None`: a sentence naming the tool and its arguments.
    pub confirm_message: Option<String>,
    /// Whether the server its calls are sent on to asks the user before every one of them
    /// itself (a gateway's upstream that confirms its own calls): the server's
    /// [`Confirm`](crate::server::Confirm) policy then does not ask a second time (a tool
    /// that [`confirms`](Self::confirms) still does), and its listing says it is confirmed.
    pub upstream_confirms: bool,
    /// Whether its calls may, or must, run as tasks.
    pub task: TaskSupport,
    /// At most this many of its calls run at once (more wait); not 0.
    pub max_concurrency: Option<u32>,
    /// Whether it asks its client during a call ([`Elicit`](crate::context::Elicit) or
    /// [`Sample`](crate::context::Sample) taken from its context): on 2026-07-28 its calls
    /// then carry the questions of earlier rounds and their answers.
    pub asks_client: bool,
    /// The `_meta` it is listed with, for keys of its own (an MCP App's `ui`, with the
    /// `ui://` resource that renders it; a vendor's): toolsmith's own keys (its category,
    /// tags, confirmation) are set over it.
    pub meta: Option<JsonObject>,
    /// Who may see and call it (a per-caller view; `None`: every caller its scope admits).
    pub audience: Option<crate::tool::Audience>,
}

impl ToolDescription {
    /// A tool called `name`, described to the model by `description`, taking arguments of
    /// `input_schema`, doing what `hints` say; the rest as a `#[tool]` without the key (no
    /// title, no output schema, not confirmed, never a task, no limits), its origin the
    /// `file:line` of this call.
    ///
    /// ```
    /// use toolsmith::{Hints, ToolDescription, tool::TaskSupport};
    ///
    /// let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let description = ToolDescription::new("ping", "Answers pong.", schema, Hints::READ_ONLY);
    /// assert_eq!(description.about.name, "ping");
    /// assert_eq!(description.hints, Hints::READ_ONLY);
    /// assert_eq!((description.confirms, description.task), (false, TaskSupport::Never));
    /// assert!(description.about.origin.starts_with(file!()));
    /// ```
    #[track_caller]
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: JsonObject,
        hints: Hints,
    ) -> ToolDescription {
        ToolDescription {
            about: About::new(name, description),
            input_schema,
            output_schema: None,
            hints,
            category: None,
            tags: Vec::new(),
            confirms: false,
            confirm_message: None,
            upstream_confirms: false,
            task: TaskSupport::Never,
            meta: None,
            audience: None,
            max_concurrency: None,
            asks_client: false,
        }
    }

    /// With this JSON Schema of its structured result (an object schema).
    ///
    /// ```
    /// # let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let output = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let ping = toolsmith::ToolDescription::new("ping", "", schema, toolsmith::Hints::READ_ONLY)
    ///     .with_output_schema(output.clone());
    /// assert_eq!(ping.output_schema, Some(output));
    /// ```
    #[must_use]
    pub fn with_output_schema(mut self, output_schema: JsonObject) -> ToolDescription {
        self.output_schema = Some(output_schema);
        self
    }

    /// In this category.
    ///
    /// ```
    /// # let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let ping = toolsmith::ToolDescription::new("ping", "", schema, toolsmith::Hints::READ_ONLY)
    ///     .with_category("net");
    /// assert_eq!(ping.category.as_deref(), Some("net"));
    /// ```
    #[must_use]
    pub fn with_category(mut self, category: impl Into<String>) -> ToolDescription {
        self.category = Some(category.into());
        self
    }

    /// With these tags.
    ///
    /// ```
    /// # let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let ping = toolsmith::ToolDescription::new("ping", "", schema, toolsmith::Hints::READ_ONLY)
    ///     .with_tags(["net", "probe"]);
    /// assert_eq!(ping.tags, ["net", "probe"]);
    /// ```
    #[must_use]
    pub fn with_tags<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        tags: I,
    ) -> ToolDescription {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// The user asked before every call (`confirms`), or not.
    ///
    /// ```
    /// # let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let wipe = toolsmith::ToolDescription::new("wipe", "", schema, toolsmith::Hints::DESTRUCTIVE)
    ///     .with_confirms(true);
    /// assert!(wipe.confirms);
    /// ```
    #[must_use]
    pub fn with_confirms(mut self, confirms: bool) -> ToolDescription {
        self.confirms = confirms;
        self
    }

    /// With this confirmation question (`{argument}` placeholders).
    ///
    /// ```
    /// # let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let wipe = toolsmith::ToolDescription::new("wipe", "", schema, toolsmith::Hints::DESTRUCTIVE)
    ///     .with_confirms(true)
    ///     .with_confirm_message("Wipe {disk}?");
    /// assert_eq!(wipe.confirm_message.as_deref(), Some("Wipe {disk}?"));
    /// ```
    #[must_use]
    pub fn with_confirm_message(mut self, question: impl Into<String>) -> ToolDescription {
        self.confirm_message = Some(question.into());
        self
    }

    /// The server its calls are sent on to confirms them itself, or not.
    ///
    /// ```
    /// # let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let wipe = toolsmith::ToolDescription::new("wipe", "", schema, toolsmith::Hints::DESTRUCTIVE)
    ///     .with_upstream_confirms(true);
    /// assert!(wipe.upstream_confirms && !wipe.confirms);
    /// ```
    #[must_use]
    pub fn with_upstream_confirms(mut self, upstream_confirms: bool) -> ToolDescription {
        self.upstream_confirms = upstream_confirms;
        self
    }

    /// Listed, found and callable only for the callers `audience` admits.
    ///
    /// ```
    /// use toolsmith::{Hints, ToolDescription, tool::Audience};
    ///
    /// let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let payroll = ToolDescription::new("payroll", "Show the payroll.", schema, Hints::READ_ONLY)
    ///     .with_audience(Audience::new().group("hr"));
    /// assert_eq!(payroll.audience.unwrap().groups, ["hr"]);
    /// ```
    pub fn with_audience(mut self, audience: crate::tool::Audience) -> ToolDescription {
        self.audience = (!audience.is_everyone()).then_some(audience);
        self
    }

    /// Its calls may, or must, run as tasks.
    ///
    /// ```
    /// use toolsmith::tool::TaskSupport;
    /// # let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let scan = toolsmith::ToolDescription::new("scan", "", schema, toolsmith::Hints::READ_ONLY)
    ///     .with_task(TaskSupport::Optional);
    /// assert_eq!(scan.task, TaskSupport::Optional);
    /// ```
    #[must_use]
    pub fn with_task(mut self, task: TaskSupport) -> ToolDescription {
        self.task = task;
        self
    }

    /// At most `calls` of its calls run at once (1 or more).
    ///
    /// ```
    /// # let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let scan = toolsmith::ToolDescription::new("scan", "", schema, toolsmith::Hints::READ_ONLY)
    ///     .with_max_concurrency(2);
    /// assert_eq!(scan.max_concurrency, Some(2));
    /// ```
    #[must_use]
    pub fn with_max_concurrency(mut self, calls: u32) -> ToolDescription {
        self.max_concurrency = Some(calls);
        self
    }

    /// It asks its client during a call, or not.
    ///
    /// ```
    /// # let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let pick = toolsmith::ToolDescription::new("pick", "", schema, toolsmith::Hints::READ_ONLY)
    ///     .with_asks_client(true);
    /// assert!(pick.asks_client);
    /// ```
    #[must_use]
    pub fn with_asks_client(mut self, asks_client: bool) -> ToolDescription {
        self.asks_client = asks_client;
        self
    }

    /// Listed with this `_meta` (toolsmith's own keys are set over it).
    ///
    /// ```
    /// # let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// let meta = serde_json::json!({"ui": {"resourceUri": "ui://chart/view.html"}});
    /// let chart = toolsmith::ToolDescription::new("chart", "", schema, toolsmith::Hints::READ_ONLY)
    ///     .with_meta(meta.as_object().cloned().unwrap());
    /// assert_eq!(chart.meta.unwrap()["ui"]["resourceUri"], "ui://chart/view.html");
    /// ```
    #[must_use]
    pub fn with_meta(mut self, meta: JsonObject) -> ToolDescription {
        self.meta = Some(meta);
        self
    }
}

crate::item::about_builders!(
    ToolDescription,
    "# let schema = serde_json::json!({\"type\": \"object\"}).as_object().cloned().unwrap();\n",
    "toolsmith::ToolDescription::new(\"ping\", \"\", schema, toolsmith::Hints::READ_ONLY)",
    "by a caller (instead of the one its hints imply)",
    "a call"
);

//! [`ToolInfo`]: one registered tool, with what is computed from it once.

use std::any::TypeId;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

use rmcp::model::{Icon, MetaObject, Tool, ToolAnnotations};
use serde_json::{Map, Value};

use crate::Hints;
use crate::context::CallContext;
use crate::item::Header;
use crate::tool::args::Arguments;
use crate::tool::content::IntoContent;
use crate::tool::def::{Invocation, OutputDef, ParamDef, Timeout, ToolDef};
use crate::tool::dynamic::Tool as DynTool;
use crate::tool::output::Outcome;
use crate::tool::place::Place;
use crate::tool::same::{self, same_object};
use crate::tool::schema::{self, JsonObject, OutputSchema};
use crate::tool::validate::InputCheck;

/// The `_meta` key holding a tool's category.
///
/// ```
/// assert_eq!(toolsmith::tool::META_CATEGORY, "dev.toolsmith/category");
/// ```
pub const META_CATEGORY: &str = "dev.toolsmith/category";
/// The `_meta` key holding a tool's tags.
///
/// ```
/// assert_eq!(toolsmith::tool::META_TAGS, "dev.toolsmith/tags");
/// ```
pub const META_TAGS: &str = "dev.toolsmith/tags";
/// The `_meta` key a listed tool carries, `true`, when the user is asked before every call
/// of it: it declares `confirm`, the server's [`Confirm`](crate::server::Confirm) policy
/// covers it, or the server it forwards to confirms its calls itself. A gateway in front
/// of the server reads it and does not ask a second time.
///
/// ```
/// assert_eq!(toolsmith::tool::META_CONFIRMS, "dev.toolsmith/confirms");
/// ```
pub const META_CONFIRMS: &str = "dev.toolsmith/confirms";

/// A registered tool: its declaration (a `#[tool]`'s, or a [`Tool`](crate::Tool)'s) plus what
/// is computed from it once (schemas, the MCP `Tool` sent by `tools/list`).
///
/// ```
/// use toolsmith::{Hints, Registry};
///
/// /// Convert an amount between two currencies.
/// #[toolsmith::tool(read_only, title = "Convert currency")]
/// fn convert_currency(amount: f64, from: String, to: String) -> String {
///     format!("{amount} {from} in {to}")
/// }
///
/// let tool = Registry::global().get("convert_currency").unwrap();
/// assert_eq!(tool.hints(), Hints::READ_ONLY);
/// assert_eq!(tool.header().title(), Some("Convert currency"));
/// assert_eq!(tool.mcp_tool().name, "convert_currency");
/// ```
#[derive(Clone)]
pub struct ToolInfo {
    /// Name, title, description, icons, scopes, where it is declared.
    header: Header,
    run: Run,
    tool: Tool,
    hints: Hints,
    category: Option<String>,
    tags: Vec<String>,
    confirms: bool,
    /// The server its calls are sent on to confirms them itself.
    upstream_confirms: bool,
    confirm_message: Option<Arc<str>>,
    task: crate::tool::TaskSupport,
    timeout: Option<Timeout>,
    max_concurrency: Option<u32>,
    wrapped: bool,
    expected: Vec<String>,
    /// A parameter asks the client during the call (`Elicit`, `Sample`).
    asks: bool,
    /// A tool that is not a `#[tool]`: its input schema, compiled, that its calls' arguments
    /// are checked against (a `#[tool]`'s decoding checks them).
    check: Option<Arc<InputCheck>>,
    /// Where its calls run: on the pool, or where they were read (`place.rs`).
    place: Arc<Place>,
    /// Who may see and call it (`None`: everyone).
    audience: Option<Arc<crate::tool::Audience>>,
}

/// How a call is invoked: the function `#[tool]` generated, or the `Tool`'s `call`.
#[derive(Clone)]
enum Run {
    Declared(&'static ToolDef),
    Dynamic(Arc<dyn DynTool>),
}

/// Schemas already built: tools with the same parameters get the input schema built once,
/// and schemas equal in content share one copy.
#[derive(Default)]
pub(crate) struct SchemaCache {
    by_content: HashMap<u64, Vec<Arc<JsonObject>>>,
    by_params: HashMap<(Vec<ParamKey>, bool), Built>,
}

/// An input schema and what each parameter expects.
type Built = (Arc<JsonObject>, Vec<String>);

/// What decides a parameter's part of the input schema.
#[derive(PartialEq, Eq, Hash)]
enum ParamKey {
    Argument {
        name: &'static str,
        description: Option<&'static str>,
        required: bool,
        type_id: TypeId,
    },
    /// Not in the schema, but it holds its place in the list of what each parameter expects.
    Context,
}

impl SchemaCache {
    /// The input schema of `params` and what each expects, built once per distinct list
    /// of parameters (when every parameter's type is known).
    fn input(&mut self, params: &[ParamDef], declared: bool) -> (Arc<JsonObject>, Vec<String>) {
        let key: Option<Vec<ParamKey>> = params
            .iter()
            .map(|p| match p.is_argument() {
                true => Some(ParamKey::Argument {
                    name: p.name,
                    description: p.description,
                    required: p.required,
                    type_id: (p.type_id)()?,
                }),
                false => Some(ParamKey::Context),
            })
            .collect();
        let key = key.map(|key| (key, declared));
        if let Some(built) = key.as_ref().and_then(|key| self.by_params.get(key)) {
            return built.clone();
        }
        let (input, expected) = schema::input_of(params, declared);
        let built = (self.share(input), expected);
        if let Some(key) = key {
            self.by_params.insert(key, built.clone());
        }
        built
    }

    fn share(&mut self, schema: JsonObject) -> Arc<JsonObject> {
        let same = self.by_content.entry(same::hash(&schema)).or_default();
        if let Some(shared) = same.iter().find(|shared| same_object(shared, &schema)) {
            return shared.clone();
        }
        let shared = Arc::new(schema);
        same.push(shared.clone());
        shared
    }
}

impl ToolInfo {
    pub(crate) fn new(def: &'static ToolDef, schemas: &mut SchemaCache) -> Self {
        let (input, expected) = schemas.input(def.params, def.json_schema);
        let (output, wrapped) = match def.output {
            OutputDef::Json(schema) => {
                let OutputSchema { schema, wrapped } = schema();
                (Some(schemas.share(schema)), wrapped)
            }
            OutputDef::Empty | OutputDef::Text | OutputDef::Content => (None, false),
        };
        let strings = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let header = Header::of_def(&def.item);
        let tags = strings(def.tags);
        let parts = Parts {
            name: def.item.name,
            title: def.item.title,
            description: def.item.description,
            hints: def.hints,
            input,
            output,
            icons: header.icons(),
            category: def.category,
            tags: &tags,
        };
        ToolInfo {
            tool: parts.mcp_tool(),
            header,
            run: Run::Declared(def),
            hints: def.hints,
            category: def.category.map(str::to_owned),
            tags,
            confirms: def.confirm.asks,
            upstream_confirms: false,
            confirm_message: def.confirm.message.map(Arc::from),
            task: def.task,
            timeout: def.timeout,
            max_concurrency: def.max_concurrency,
            wrapped,
            expected,
            asks: def.asks(),
            check: None,
            audience: None,
            place: Arc::new(Place::of(def.blocking, def.cancellable())),
        }
    }

    /// This tool under another name (a registry's prefix).
    pub(crate) fn renamed(&self, name: String) -> Self {
        let mut renamed = self.clone();
        renamed.tool.name = name.clone().into();
        renamed.header = self.header.renamed(name);
        renamed
    }

    /// The MCP tool name: its [`header`](Self::header)'s.
    ///
    /// ```
    /// /// Today's exchange rate between two currencies.
    /// #[toolsmith::tool(name = "fx.rate", read_only)]
    /// fn fx_rate(from: String, to: String) -> String {
    ///     format!("1 {from} = 0.9 {to}")
    /// }
    ///
    /// assert_eq!(toolsmith::Registry::global().get("fx.rate").unwrap().name(), "fx.rate");
    /// ```
    pub fn name(&self) -> &str {
        self.header.name()
    }

    /// What it has in common with resources and prompts: name, title, description, icons,
    /// the OAuth scopes `#[tool(scopes = [...])]` names (empty when its hints decide; see
    /// [`ScopeNames::required`](crate::tool::ScopeNames::required)), where it is declared.
    ///
    /// ```
    /// /// The exchange rates of a past day.
    /// #[toolsmith::tool(read_only, closed_world, scopes = ["fx:history"])]
    /// fn fx_history(day: String) -> String {
    ///     format!("{day}: 0.9")
    /// }
    ///
    /// let tool = toolsmith::Registry::global().get("fx_history").unwrap();
    /// assert_eq!(tool.header().name(), tool.name());
    /// assert_eq!(tool.header().description(), "The exchange rates of a past day.");
    /// assert_eq!(tool.header().scopes(), ["fx:history"]);
    /// ```
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The name, as a call carries it (its context, its log line).
    pub(crate) fn shared_name(&self) -> &ToolName {
        self.header.shared_name()
    }

    /// The four behaviour hints, always complete.
    ///
    /// ```
    /// use toolsmith::{Hints, Registry};
    ///
    /// /// Set the currency amounts are shown in.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn set_display_currency(code: String) -> String {
    ///     code
    /// }
    ///
    /// let hints = Registry::global().get("set_display_currency").unwrap().hints();
    /// assert_eq!(hints, Hints::ADDITIVE.idempotent().closed_world());
    /// assert!(!hints.read_only);
    /// ```
    pub fn hints(&self) -> Hints {
        self.hints
    }

    /// The category given by `#[tool(category = "...")]`.
    ///
    /// ```
    /// /// The balance of an account.
    /// #[toolsmith::tool(read_only, closed_world, category = "finance")]
    /// fn account_balance(account: String) -> String {
    ///     format!("{account}: 100.00")
    /// }
    ///
    /// let tool = toolsmith::Registry::global().get("account_balance").unwrap();
    /// assert_eq!(tool.category(), Some("finance"));
    /// ```
    pub fn category(&self) -> Option<&str> {
        self.category.as_deref()
    }

    /// The tags given by `#[tool(tags = [...])]`.
    ///
    /// ```
    /// /// Search the transactions.
    /// #[toolsmith::tool(read_only, closed_world, tags = ["ledger", "search"])]
    /// fn search_transactions(text: String) -> String {
    ///     format!("0 transactions match {text}")
    /// }
    ///
    /// let tool = toolsmith::Registry::global().get("search_transactions").unwrap();
    /// assert_eq!(tool.tags(), ["ledger", "search"]);
    /// ```
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// `#[tool(max_concurrency = N)]`: at most N calls of it run at once (more wait, up to
    /// their timeout).
    ///
    /// ```
    /// /// Render a yearly statement as PDF.
    /// #[toolsmith::tool(read_only, closed_world, max_concurrency = 2)]
    /// fn render_statement(year: u32) -> String {
    ///     format!("statement-{year}.pdf")
    /// }
    ///
    /// let tool = toolsmith::Registry::global().get("render_statement").unwrap();
    /// assert_eq!(tool.max_concurrency(), Some(2));
    /// ```
    pub fn max_concurrency(&self) -> Option<u32> {
        self.max_concurrency
    }

    /// The JSON Schema of the tool's arguments.
    ///
    /// ```
    /// /// Quote a price for some shares.
    /// #[toolsmith::tool(read_only)]
    /// fn quote_shares(symbol: String, quantity: Option<u32>) -> String {
    ///     format!("{symbol} x {}", quantity.unwrap_or(1))
    /// }
    ///
    /// let schema = toolsmith::Registry::global().get("quote_shares").unwrap().input_schema();
    /// assert_eq!(schema["type"], "object");
    /// assert_eq!(schema["properties"]["symbol"]["type"], "string");
    /// assert_eq!(schema["required"], serde_json::json!(["symbol"]));
    /// ```
    pub fn input_schema(&self) -> &JsonObject {
        &self.tool.input_schema
    }

    /// The JSON Schema of the tool's structured result, when it has one.
    ///
    /// ```
    /// #[derive(serde::Serialize, schemars::JsonSchema)]
    /// struct Total {
    ///     cents: u64,
    /// }
    ///
    /// /// The total of an invoice.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn invoice_total(id: u64) -> Total {
    ///     Total { cents: id * 100 }
    /// }
    ///
    /// /// The total of an invoice, as text.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn invoice_total_text(id: u64) -> String {
    ///     format!("{}.00", id)
    /// }
    ///
    /// let registry = toolsmith::Registry::global();
    /// let schema = registry.get("invoice_total").unwrap().output_schema().unwrap();
    /// assert_eq!(schema["type"], "object");
    /// assert!(schema["properties"].get("cents").is_some());
    /// assert!(registry.get("invoice_total_text").unwrap().output_schema().is_none());
    /// ```
    pub fn output_schema(&self) -> Option<&JsonObject> {
        self.tool.output_schema.as_deref()
    }

    /// The tool as MCP's `tools/list` sends it.
    ///
    /// ```
    /// /// Close the books of a month.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world, title = "Close month", category = "finance")]
    /// fn close_month(month: String) -> String {
    ///     format!("{month} closed")
    /// }
    ///
    /// let listed = toolsmith::Registry::global().get("close_month").unwrap().mcp_tool();
    /// assert_eq!((&*listed.name, listed.title.as_deref()), ("close_month", Some("Close month")));
    /// let annotations = listed.annotations.as_ref().unwrap();
    /// assert_eq!(annotations.destructive_hint, Some(false));
    /// let meta = listed.meta.as_ref().unwrap();
    /// assert_eq!(meta.0[toolsmith::tool::META_CATEGORY], "finance");
    /// ```
    pub fn mcp_tool(&self) -> &Tool {
        &self.tool
    }

    /// Whether the tool declares `#[tool(confirm)]`: the user is asked before every call,
    /// whatever the server's [`Confirm`](crate::server::Confirm) policy.
    ///
    /// ```
    /// /// Refund a payment.
    /// #[toolsmith::tool(destructive, closed_world, confirm = "Refund payment {id}?")]
    /// fn refund_payment(id: u64) -> String {
    ///     format!("refunded {id}")
    /// }
    ///
    /// /// Tag a payment.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn tag_payment(id: u64, tag: String) -> String {
    ///     format!("{id}: {tag}")
    /// }
    ///
    /// let registry = toolsmith::Registry::global();
    /// assert!(registry.get("refund_payment").unwrap().declares_confirm());
    /// assert!(!registry.get("tag_payment").unwrap().declares_confirm());
    /// ```
    pub fn declares_confirm(&self) -> bool {
        self.confirms
    }

    /// Whether the server its calls are sent on to asks the user before every one of them
    /// itself (see [`ToolDescription::upstream_confirms`](crate::ToolDescription::upstream_confirms)): the
    /// server's [`Confirm`](crate::server::Confirm) policy does not ask again. Never, for a
    /// `#[tool]`.
    pub fn upstream_confirms(&self) -> bool {
        self.upstream_confirms
    }

    /// Who may see and call it ([`ToolDescription::audience`](crate::ToolDescription::audience));
    /// `None`: every caller.
    pub fn audience(&self) -> Option<&crate::tool::Audience> {
        self.audience.as_deref()
    }

    /// Whether `caller` may see and call it (its audience admits it).
    pub fn admits(&self, caller: &crate::context::Caller) -> bool {
        self.audience
            .as_ref()
            .is_none_or(|audience| audience.admits(caller))
    }

    /// Whether the tool asks its client during a call: an [`Elicit`](crate::context::Elicit) or
    /// [`Sample`](crate::context::Sample) parameter.
    ///
    /// ```
    /// use toolsmith::context::Sample;
    ///
    /// /// Suggest a name for a savings goal.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// async fn suggest_goal_name(sample: Sample) -> String {
    ///     sample.text("A name for a savings goal", 10).await.unwrap_or_default()
    /// }
    ///
    /// let tool = toolsmith::Registry::global().get("suggest_goal_name").unwrap();
    /// assert!(tool.asks_client());
    /// ```
    pub fn asks_client(&self) -> bool {
        self.asks
    }

    /// Whether its calls run as tasks: `#[tool(task)]` or `#[tool(task = "required")]`.
    ///
    /// ```
    /// use toolsmith::{Registry, tool::TaskSupport};
    ///
    /// /// Reconcile the ledger with the bank.
    /// #[toolsmith::tool(task, destructive = false, idempotent, timeout = "10m")]
    /// fn reconcile_ledger() -> String {
    ///     "reconciled".into()
    /// }
    ///
    /// let tool = Registry::global().get("reconcile_ledger").unwrap();
    /// assert_eq!(tool.task(), TaskSupport::Optional);
    /// ```
    pub fn task(&self) -> crate::tool::TaskSupport {
        self.task
    }

    /// Whether it was made by hand (a [`Tool`](crate::Tool)) rather than by `#[tool]`.
    ///
    /// ```
    /// # use toolsmith::{CallContext, Hints, Registry, Tool, ToolDescription, tool::ToolFuture, tool::ToolOutput};
    /// # use toolsmith::rmcp::model::JsonObject;
    /// # struct Ping;
    /// # impl Tool for Ping {
    /// #     fn describe(&self) -> ToolDescription {
    /// #         let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// #         ToolDescription::new("ping", "Answers pong.", schema, Hints::READ_ONLY)
    /// #     }
    /// #     fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
    /// #         Box::pin(async { Ok(ToolOutput::new().text("pong")) })
    /// #     }
    /// # }
    /// /// Lock the ledger against changes.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn lock_ledger() -> String {
    ///     "locked".into()
    /// }
    ///
    /// assert!(!Registry::global().get("lock_ledger").unwrap().is_dynamic());
    /// assert!(Registry::new().with_tool(Ping).unwrap().get("ping").unwrap().is_dynamic());
    /// ```
    pub fn is_dynamic(&self) -> bool {
        matches!(self.run, Run::Dynamic(_))
    }

    /// The `#[tool]` definition, when it has one.
    pub(crate) fn def(&self) -> Option<&'static ToolDef> {
        match self.run {
            Run::Declared(def) => Some(def),
            Run::Dynamic(_) => None,
        }
    }

    /// The question `confirm_with` makes of `arguments` in the context `context` makes, when
    /// the tool names such a function (and its parameters can be made).
    pub(crate) fn asked_with(
        &self,
        arguments: Option<&Map<String, Value>>,
        context: impl FnOnce() -> CallContext,
    ) -> Option<String> {
        let def = self.def()?;
        let question = def.confirm.question?;
        let arguments = Arguments::new(arguments.cloned(), def.params, &self.expected);
        question(arguments, &context())
    }

    /// The confirmation's question as declared, with its `{argument}` placeholders.
    pub(crate) fn confirm_message(&self) -> Option<&str> {
        self.confirm_message.as_deref()
    }

    /// The pipeline's check of a call's `arguments` before anything else runs: nothing to
    /// do for a `#[tool]` (decoding its parameters checks them); for a tool made by hand,
    /// its input schema's verdict, every problem named. The arguments are left as they are.
    #[inline]
    pub(crate) fn check_arguments(&self, arguments: &mut Option<JsonObject>) -> Result<(), String> {
        match &self.check {
            None => Ok(()),
            Some(check) => check.check(arguments),
        }
    }

    /// How long a call may run.
    pub(crate) fn timeout(&self) -> Option<Timeout> {
        self.timeout
    }

    /// Whether it is declared `#[tool(blocking)]`: its calls run on a thread of the server's
    /// pool from the first, never where they were read (an undeclared sync `fn` runs there
    /// once its calls prove quick, unless it takes a `Cancellation`; see the tools guide,
    /// "Where a call runs").
    ///
    /// ```
    /// /// Rebuild the index from the files on disk: seconds of disk reads.
    /// #[toolsmith::tool(blocking, destructive = false, idempotent, closed_world)]
    /// fn rebuild_disk_index() -> String {
    ///     "rebuilt".into()
    /// }
    ///
    /// /// Count the notes: quick.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn count_all_notes() -> u64 {
    ///     0
    /// }
    ///
    /// let tools = toolsmith::Registry::global();
    /// assert!(tools.get("rebuild_disk_index").unwrap().blocking());
    /// assert!(!tools.get("count_all_notes").unwrap().blocking());
    /// ```
    pub fn blocking(&self) -> bool {
        self.place.declared_blocking()
    }

    /// Where its calls run.
    #[inline]
    pub(crate) fn place(&self) -> &Arc<Place> {
        &self.place
    }

    /// The invocation of one call with `arguments`: its arguments decoded and its context
    /// parameters made (a `#[tool]`), or the `Tool`'s future.
    pub(crate) fn invoke(
        &self,
        arguments: Option<JsonObject>,
        context: &CallContext,
    ) -> Invocation {
        match &self.run {
            Run::Declared(def) => (def.invoke)(
                Arguments::new(arguments, def.params, &self.expected),
                context,
            ),
            Run::Dynamic(tool) => {
                let call = tool.call(arguments.unwrap_or_default(), context);
                Invocation::Async(Box::pin(async move {
                    match call.await {
                        Ok(output) => output.into_outcome(),
                        Err(error) => Outcome::of_error(&error),
                    }
                }))
            }
        }
    }

    /// What each parameter of a `#[tool]` expects, for its argument errors.
    #[cfg(test)]
    pub(crate) fn expected(&self) -> &[String] {
        &self.expected
    }

    pub(crate) fn wrapped(&self) -> bool {
        self.wrapped
    }

    pub(crate) fn described(&self) -> String {
        self.header.described()
    }
}

/// What the MCP `Tool` of a `tools/list` is made of.
struct Parts<'a> {
    name: &'a str,
    title: Option<&'a str>,
    description: &'a str,
    hints: Hints,
    input: Arc<JsonObject>,
    output: Option<Arc<JsonObject>>,
    icons: &'a [String],
    category: Option<&'a str>,
    tags: &'a [String],
}

impl Parts<'_> {
    fn mcp_tool(&self) -> Tool {
        let annotations = ToolAnnotations::from_raw(
            self.title.map(str::to_owned),
            Some(self.hints.read_only),
            Some(self.hints.destructive),
            Some(self.hints.idempotent),
            Some(self.hints.open_world),
        );
        let mut tool = Tool::new(
            self.name.to_owned(),
            self.description.to_owned(),
            self.input.clone(),
        )
        .with_annotations(annotations);
        if let Some(title) = self.title {
            tool = tool.with_title(title);
        }
        if let Some(output) = &self.output {
            tool = tool.with_raw_output_schema(output.clone());
        }
        if !self.icons.is_empty() {
            tool.icons = Some(
                self.icons
                    .iter()
                    .map(|src| Icon::new(src.clone()))
                    .collect(),
            );
        }
        let mut meta = Map::new();
        if let Some(category) = self.category {
            meta.insert(META_CATEGORY.into(), category.into());
        }
        if !self.tags.is_empty() {
            meta.insert(META_TAGS.into(), Value::from(self.tags.to_vec()));
        }
        if !meta.is_empty() {
            tool = tool.with_meta(MetaObject(meta));
        }
        tool
    }
}

impl std::fmt::Debug for ToolInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolInfo")
            .field("name", &self.name())
            .field("title", &self.header().title())
            .field("hints", &self.hints())
            .field("category", &self.category())
            .field("tags", &self.tags())
            .field("location", &self.header().location())
            .finish()
    }
}

mod held;
mod made;
#[cfg(test)]
mod tests;

pub(crate) use crate::context::ToolName;
pub(crate) use held::ToolRef;

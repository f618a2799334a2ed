//! Resources and resource templates: what `#[resource]` declares, or a [`Resource`] made by
//! hand; [`ResourceInfo`], a registered one with its `resources/list` entry; and [`Modified`],
//! a value with when it last changed. The guide's [items page](crate::guide::items) shows them.

// Inside: the static definition `#[resource]` generates (`def.rs`), a resource made by hand
// (`dynamic.rs`), what is computed from one once (its parsed URI template, its
// `resources/list` entry, `listed.rs`, how its variables decode), and what a read returns
// (`contents.rs`). Nothing here knows how resources are served.

pub(crate) mod contents;
pub(crate) mod def;
mod description;
mod dynamic;
mod listed;
mod made;

use std::sync::Arc;

use rmcp::model::{JsonObject, Resource as McpResource, ResourceTemplate};
use toolsmith_template::Template;

use crate::complete::{Candidates, Completion, declared};
use crate::context::CallContext;
use crate::item::Header;
use crate::tool::args::Arguments;
use crate::tool::output::{Outcome, Output};
use crate::tool::param::{Invocation, ParamDef, Timeout};
use crate::tool::schema;
use crate::tool::strings::StringArgs;
use def::ResourceDef;
use listed::{Entry, Listed};

pub use contents::Modified;
pub use description::ResourceDescription;
pub use dynamic::{Resource, ResourceFuture};

/// A registered resource (a URI) or resource template (a URI with `{variables}`): a
/// `#[resource]`'s, or a [`Resource`] made by hand.
///
/// ```
/// /// Today's specials.
/// #[toolsmith::resource(uri = "cafe://specials")]
/// fn specials() -> String {
///     "Leek soup".into()
/// }
///
/// let resource = toolsmith::Registry::global().resource_for("cafe://specials").unwrap();
/// assert_eq!((resource.uri(), resource.name()), ("cafe://specials", "specials"));
/// assert_eq!(resource.header().description(), "Today's specials.");
/// ```
#[derive(Clone)]
pub struct ResourceInfo(Arc<Inner>);

/// What a [`ResourceInfo`] holds, made once and shared by its clones (a request holds one).
struct Inner {
    run: Run,
    header: Header,
    uri: Box<str>,
    mime_type: Option<Box<str>>,
    audience: Vec<&'static str>,
    priority: Option<f32>,
    timeout: Option<Timeout>,
    template: Template,
    /// The schema of its variables, as a tool's input schema (for the `check` snapshot).
    input: JsonObject,
    expected: Arc<[String]>,
    strings: StringArgs,
    listed: Listed,
    /// The variables it completes.
    completes: Box<[Box<str>]>,
}

/// How a read is invoked: the function `#[resource]` generated, or the `Resource`'s `read`.
enum Run {
    Declared(&'static ResourceDef),
    Made(Arc<dyn Resource>),
}

impl ResourceInfo {
    pub(crate) fn new(def: &'static ResourceDef) -> Result<ResourceInfo, String> {
        let template = Template::parse(def.uri).map_err(|e| e.message)?;
        let (input, expected) = schema::input(def.params);
        let strings = StringArgs::of_schema(&input);
        let header = Header::of_def(&def.item);
        let listed = Entry {
            uri: def.uri,
            header: &header,
            mime_type: def.mime_type,
            audience: def.audience,
            priority: def.priority,
        }
        .listed(&template);
        Ok(ResourceInfo(Arc::new(Inner {
            completes: def.completions.iter().map(|c| c.argument.into()).collect(),
            run: Run::Declared(def),
            header,
            uri: def.uri.into(),
            mime_type: def.mime_type.map(Into::into),
            audience: def.audience.to_vec(),
            priority: def.priority,
            timeout: def.timeout,
            template,
            input,
            expected: expected.into(),
            strings,
            listed,
        })))
    }

    /// Its programmatic name (default: the function's name): its [`header`](Self::header)'s.
    ///
    /// ```
    /// /// When the cafe is open.
    /// #[toolsmith::resource(uri = "cafe://hours", name = "opening_hours")]
    /// fn hours() -> String {
    ///     "8:00-18:00".into()
    /// }
    ///
    /// let resource = toolsmith::Registry::global().resource_for("cafe://hours").unwrap();
    /// assert_eq!(resource.name(), "opening_hours");
    /// ```
    pub fn name(&self) -> &str {
        self.0.header.name()
    }

    /// What it has in common with tools and prompts: name, title, description, icons, the
    /// scopes `scopes = [...]` names instead of the read scope, where it is declared.
    ///
    /// ```
    /// /// The cafe's menu.
    /// #[toolsmith::resource(uri = "cafe://menu", title = "Menu", scopes = ["cafe:staff"])]
    /// fn cafe_menu() -> String {
    ///     "Coffee, tea".into()
    /// }
    ///
    /// let header = toolsmith::Registry::global().resource_for("cafe://menu").unwrap().header();
    /// assert_eq!(header.title(), Some("Menu"));
    /// assert_eq!(header.scopes(), ["cafe:staff"]);
    /// assert_eq!(header.rust_path(), concat!(module_path!(), "::cafe_menu"));
    /// ```
    pub fn header(&self) -> &Header {
        &self.0.header
    }

    /// Its URI, or its URI template as written (`notes://{note_id}`).
    ///
    /// ```
    /// /// One table of the cafe.
    /// #[toolsmith::resource(uri = "tables://{table}")]
    /// fn cafe_table(table: u32) -> String {
    ///     format!("table {table}: free")
    /// }
    ///
    /// let resource = toolsmith::Registry::global().resource_for("tables://4").unwrap();
    /// assert_eq!(resource.uri(), "tables://{table}");
    /// ```
    pub fn uri(&self) -> &str {
        &self.0.uri
    }

    /// Whether it is a template (its URI has variables).
    ///
    /// ```
    /// /// The cafe's address.
    /// #[toolsmith::resource(uri = "cafe://address")]
    /// fn cafe_address() -> String {
    ///     "1 Main Street".into()
    /// }
    ///
    /// /// One order.
    /// #[toolsmith::resource(uri = "orders://{order_id}")]
    /// fn cafe_order(order_id: u64) -> String {
    ///     format!("order {order_id}: 2 coffees")
    /// }
    ///
    /// let registry = toolsmith::Registry::global();
    /// assert!(!registry.resource_for("cafe://address").unwrap().is_template());
    /// assert!(registry.resource_for("orders://7").unwrap().is_template());
    /// ```
    pub fn is_template(&self) -> bool {
        matches!(self.0.listed, Listed::Template(_))
    }

    /// The template's variables, in order (none for a resource).
    ///
    /// ```
    /// /// One booking: a table on a date.
    /// #[toolsmith::resource(uri = "bookings://{date}/{table}")]
    /// fn booking(date: String, table: u32) -> String {
    ///     format!("{date}, table {table}: booked")
    /// }
    ///
    /// let resource = toolsmith::Registry::global().resource_declared("bookings://{date}/{table}").unwrap();
    /// assert_eq!(resource.variables().collect::<Vec<_>>(), ["date", "table"]);
    /// ```
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.0.template.variables()
    }

    /// The MIME type it declares.
    ///
    /// ```
    /// /// The cafe's logo.
    /// #[toolsmith::resource(uri = "cafe://logo", mime_type = "image/svg+xml")]
    /// fn cafe_logo() -> String {
    ///     "<svg/>".into()
    /// }
    ///
    /// let resource = toolsmith::Registry::global().resource_for("cafe://logo").unwrap();
    /// assert_eq!(resource.mime_type(), Some("image/svg+xml"));
    /// ```
    pub fn mime_type(&self) -> Option<&str> {
        self.0.mime_type.as_deref()
    }

    /// The `audience` annotation (`"user"`, `"assistant"`).
    ///
    /// ```
    /// /// The cafe's wifi password.
    /// #[toolsmith::resource(uri = "cafe://wifi", audience = ["user"])]
    /// fn cafe_wifi() -> String {
    ///     "espresso42".into()
    /// }
    ///
    /// let resource = toolsmith::Registry::global().resource_for("cafe://wifi").unwrap();
    /// assert_eq!(resource.audience(), ["user"]);
    /// ```
    pub fn audience(&self) -> &[&'static str] {
        &self.0.audience
    }

    /// The `priority` annotation, from 0.0 to 1.0.
    ///
    /// ```
    /// /// What the cafe is out of today.
    /// #[toolsmith::resource(uri = "cafe://sold-out", priority = 0.9)]
    /// fn sold_out() -> String {
    ///     "croissants".into()
    /// }
    ///
    /// let resource = toolsmith::Registry::global().resource_for("cafe://sold-out").unwrap();
    /// assert_eq!(resource.priority(), Some(0.9));
    /// ```
    pub fn priority(&self) -> Option<f32> {
        self.0.priority
    }

    /// The arguments that have a completion (`complete(var = fn)`).
    ///
    /// ```
    /// use toolsmith::complete::Completion;
    ///
    /// fn seat_numbers(value: &str, _: &Completion) -> Vec<String> {
    ///     (1..=8).map(|n| n.to_string()).filter(|n| n.starts_with(value)).collect()
    /// }
    ///
    /// /// One seat at the counter.
    /// #[toolsmith::resource(uri = "seats://{seat}", complete(seat = seat_numbers))]
    /// fn counter_seat(seat: u32) -> String {
    ///     format!("seat {seat}: free")
    /// }
    ///
    /// let resource = toolsmith::Registry::global().resource_for("seats://3").unwrap();
    /// assert_eq!(resource.completes().collect::<Vec<_>>(), ["seat"]);
    /// ```
    pub fn completes(&self) -> impl Iterator<Item = &str> {
        self.0.completes.iter().map(|v| &**v)
    }

    /// Its `resources/list` entry (a resource), or `None` for a template.
    ///
    /// ```
    /// /// The cafe's price list.
    /// #[toolsmith::resource(uri = "cafe://prices", mime_type = "text/csv")]
    /// fn cafe_prices() -> String {
    ///     "coffee,2.50".into()
    /// }
    ///
    /// /// The receipt of one order.
    /// #[toolsmith::resource(uri = "receipts://{order_id}")]
    /// fn cafe_receipt(order_id: u64) -> String {
    ///     format!("receipt {order_id}")
    /// }
    ///
    /// let registry = toolsmith::Registry::global();
    /// let listed = registry.resource_for("cafe://prices").unwrap().mcp_resource().unwrap();
    /// assert_eq!((listed.uri.as_str(), listed.name.as_str()), ("cafe://prices", "cafe_prices"));
    /// assert_eq!(listed.mime_type.as_deref(), Some("text/csv"));
    /// assert!(registry.resource_for("receipts://1").unwrap().mcp_resource().is_none());
    /// ```
    pub fn mcp_resource(&self) -> Option<&McpResource> {
        match &self.0.listed {
            Listed::Resource(resource) => Some(resource),
            Listed::Template(_) => None,
        }
    }

    /// Its `resources/templates/list` entry (a template), or `None` for a resource.
    ///
    /// ```
    /// /// The bill of one table.
    /// #[toolsmith::resource(uri = "bills://{table}", mime_type = "text/plain")]
    /// fn table_bill(table: u32) -> String {
    ///     format!("table {table}: 12.00")
    /// }
    ///
    /// let resource = toolsmith::Registry::global().resource_for("bills://5").unwrap();
    /// let listed = resource.mcp_template().unwrap();
    /// assert_eq!((listed.uri_template.as_str(), listed.name.as_str()), ("bills://{table}", "table_bill"));
    /// ```
    pub fn mcp_template(&self) -> Option<&ResourceTemplate> {
        match &self.0.listed {
            Listed::Template(template) => Some(template),
            Listed::Resource(_) => None,
        }
    }

    /// Whether it was made by hand (a [`Resource`]), not declared with `#[resource]`.
    ///
    /// ```
    /// # use toolsmith::rmcp::model::{JsonObject, ResourceContents};
    /// # use toolsmith::{CallContext, Registry, resource::Resource, resource::ResourceDescription, resource::ResourceFuture};
    /// # struct Motd;
    /// # impl Resource for Motd {
    /// #     fn describe(&self) -> ResourceDescription {
    /// #         ResourceDescription::new("motd://today", "motd")
    /// #     }
    /// #     fn read(&self, uri: &str, _: JsonObject, _: &CallContext) -> ResourceFuture {
    /// #         let contents = ResourceContents::text("Hello", uri);
    /// #         Box::pin(async move { Ok(Some(vec![contents])) })
    /// #     }
    /// # }
    /// /// The cafe's story.
    /// #[toolsmith::resource(uri = "cafe://story")]
    /// fn cafe_story() -> String {
    ///     "Since 1998.".into()
    /// }
    ///
    /// assert!(!Registry::global().resource_for("cafe://story").unwrap().is_dynamic());
    /// let made = Registry::new().with_resource(Motd).unwrap();
    /// assert!(made.resource_for("motd://today").unwrap().is_dynamic());
    /// ```
    pub fn is_dynamic(&self) -> bool {
        matches!(self.0.run, Run::Made(_))
    }

    /// The candidates for its variable `variable`, `value` typed so far; `None` when it does
    /// not complete that variable.
    pub(crate) fn complete<'a>(
        &'a self,
        variable: &'a str,
        value: &'a str,
        completion: &'a Completion,
    ) -> Option<Candidates<'a>> {
        match &self.0.run {
            Run::Declared(def) => declared(def.completions, variable, value, completion),
            Run::Made(resource) => self
                .completes()
                .any(|v| v == variable)
                .then(|| resource.complete(variable, value, completion)),
        }
    }

    /// Its function's parameters (none for a resource made by hand).
    pub(crate) fn params(&self) -> &'static [ParamDef] {
        match self.0.run {
            Run::Declared(def) => def.params,
            Run::Made(_) => &[],
        }
    }

    /// How long a read may run.
    pub(crate) fn timeout(&self) -> Option<Timeout> {
        self.0.timeout
    }

    /// The invocation of one read of `uri` with the `arguments` its URI gave: its function
    /// with its parameters made (a `#[resource]`), or the `Resource`'s future.
    pub(crate) fn invoke(
        &self,
        uri: &str,
        arguments: JsonObject,
        context: &CallContext,
    ) -> Invocation {
        match &self.0.run {
            Run::Declared(def) => (def.invoke)(
                Arguments::new(Some(arguments), def.params, &self.0.expected),
                context,
            ),
            Run::Made(resource) => {
                let read = resource.read(uri, arguments, context);
                Invocation::Async(Box::pin(async move {
                    match read.await {
                        Ok(Some(contents)) => Outcome::Ok(Output::Contents(contents)),
                        Ok(None) => Outcome::Ok(Output::Absent),
                        Err(error) => Outcome::of_error(&error),
                    }
                }))
            }
        }
    }

    pub(crate) fn template(&self) -> &Template {
        &self.0.template
    }

    pub(crate) fn input_schema(&self) -> &JsonObject {
        &self.0.input
    }

    /// The arguments a read of `uri` fills the function's parameters from, when `uri` is this
    /// resource's or matches this template.
    pub(crate) fn arguments_of(&self, uri: &str) -> Option<JsonObject> {
        let values = self.0.template.matches(uri)?;
        Some(self.0.strings.object(values))
    }

    /// Whether both are the one registered item (clones of it).
    pub(crate) fn same(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    pub(crate) fn described(&self) -> String {
        self.0.header.described()
    }
}

impl std::fmt::Debug for ResourceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceInfo")
            .field("uri", &self.0.uri)
            .field("name", &self.0.header.name())
            .finish_non_exhaustive()
    }
}

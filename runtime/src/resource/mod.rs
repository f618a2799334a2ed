//! Resources and resource templates: what `#[resource]` declares, or a [`Resource`] made by
//! hand; [`ResourceInfo`], a registered one with its `resources/list` entry; and [`Modified`],
//! a value with when it last changed. The guide's [items page](crate::guide::items) shows them.

// Inside: the static definition `#[resource]` generates (`def.rs`), a resource made by hand
// (`dynamic.rs`), what is computed from one once (its parsed URI template, its
// `resources/list` entry, `listed.rs`, how its variables decode), and what a read returns
// (`contents.rs`). Nothing here knows how resources are served.

pub(crate) mod contents;
pub(crate) mod def;
mod dynamic;
mod listed;

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
pub use dynamic::{Resource, ResourceFuture};

/// A registered resource (a URI) or resource template (a URI with `{variables}`): a
/// `#[resource]`'s, or a [`Resource`] made by hand.
///
/// ```
/// for resource in toolsmith::Registry::global().resources() {
///     println!("{} {}", resource.uri(), resource.name());
/// }
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

    /// A resource made by hand: its declaration read once and checked (its URI template, its
    /// priority, its timeout, its icons' schemes).
    pub(crate) fn of_resource(resource: Arc<dyn Resource>) -> Result<ResourceInfo, String> {
        let uri = resource.uri();
        let template = Template::parse(uri)
            .map_err(|e| format!("the resource URI '{uri}' is not valid: {}", e.message))?;
        let name = resource.name();
        if name.is_empty() {
            return Err(format!("the resource '{uri}' has no name: give it one"));
        }
        let priority = resource.priority();
        if let Some(p) = priority
            && !(0.0..=1.0).contains(&p)
        {
            return Err(format!(
                "the priority of resource '{uri}' is {p}: give one from 0.0 to 1.0"
            ));
        }
        let timeout = crate::tool::made_timeout("resource", uri, resource.timeout())?;
        let input = schema::strings_input(template.variables().map(|v| (v, None, true)));
        let strings = StringArgs::of_schema(&input);
        let audience: Vec<&'static str> = resource
            .audience()
            .iter()
            .map(|role| match role {
                crate::prompt::Role::User => "user",
                crate::prompt::Role::Assistant => "assistant",
            })
            .collect();
        let header = Header::made(
            name,
            resource.title(),
            resource.description(),
            crate::tool::made_icons(resource.icons()),
            crate::tool::intern_list(&resource.scopes()),
            resource.origin(),
        );
        let mime_type = resource.mime_type().map(Box::<str>::from);
        let listed = Entry {
            uri,
            header: &header,
            mime_type: mime_type.as_deref(),
            audience: &audience,
            priority,
        }
        .listed(&template);
        Ok(ResourceInfo(Arc::new(Inner {
            uri: uri.into(),
            header,
            mime_type,
            audience,
            priority,
            timeout,
            template,
            input,
            expected: Arc::from([]),
            strings,
            listed,
            completes: resource.completes().into_iter().map(Into::into).collect(),
            run: Run::Made(resource),
        })))
    }

    /// Its programmatic name (default: the function's name): its [`header`](Self::header)'s.
    ///
    /// ```
    /// assert!(toolsmith::Registry::global().resources().iter().all(|r| !r.name().is_empty()));
    /// ```
    pub fn name(&self) -> &str {
        self.0.header.name()
    }

    /// What it has in common with tools and prompts: name, title, description, icons, the
    /// scopes `scopes = [...]` names instead of the read scope, where it is declared.
    ///
    /// ```
    /// for r in toolsmith::Registry::global().resources() {
    ///     assert!(r.header().rust_path().contains("::"));
    /// }
    /// ```
    pub fn header(&self) -> &Header {
        &self.0.header
    }

    /// Its URI, or its URI template as written (`notes://{note_id}`).
    ///
    /// ```
    /// assert!(toolsmith::Registry::global().resources().iter().all(|r| r.uri().contains(':')));
    /// ```
    pub fn uri(&self) -> &str {
        &self.0.uri
    }

    /// Whether it is a template (its URI has variables).
    ///
    /// ```
    /// let templates = toolsmith::Registry::global().resources().iter().filter(|r| r.is_template());
    /// # let _ = templates.count();
    /// ```
    pub fn is_template(&self) -> bool {
        matches!(self.0.listed, Listed::Template(_))
    }

    /// The template's variables, in order (none for a resource).
    ///
    /// ```
    /// for resource in toolsmith::Registry::global().resources() {
    ///     assert_eq!(resource.is_template(), resource.variables().next().is_some());
    /// }
    /// ```
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.0.template.variables()
    }

    /// The MIME type it declares.
    ///
    /// ```
    /// # for r in toolsmith::Registry::global().resources() { let _ = r.mime_type(); }
    /// ```
    pub fn mime_type(&self) -> Option<&str> {
        self.0.mime_type.as_deref()
    }

    /// The `audience` annotation (`"user"`, `"assistant"`).
    ///
    /// ```
    /// # for r in toolsmith::Registry::global().resources() { let _ = r.audience(); }
    /// ```
    pub fn audience(&self) -> &[&'static str] {
        &self.0.audience
    }

    /// The `priority` annotation, from 0.0 to 1.0.
    ///
    /// ```
    /// # for r in toolsmith::Registry::global().resources() { let _ = r.priority(); }
    /// ```
    pub fn priority(&self) -> Option<f32> {
        self.0.priority
    }

    /// The arguments that have a completion (`complete(var = fn)`).
    ///
    /// ```
    /// # for r in toolsmith::Registry::global().resources() { let _ = r.completes().count(); }
    /// ```
    pub fn completes(&self) -> impl Iterator<Item = &str> {
        self.0.completes.iter().map(|v| &**v)
    }

    /// Its `resources/list` entry (a resource), or `None` for a template.
    ///
    /// ```
    /// # for r in toolsmith::Registry::global().resources() { assert_eq!(r.mcp_resource().is_some(), !r.is_template()); }
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
    /// # for r in toolsmith::Registry::global().resources() { assert_eq!(r.mcp_template().is_some(), r.is_template()); }
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
    /// assert!(toolsmith::Registry::global().resources().iter().all(|r| !r.is_dynamic()));
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

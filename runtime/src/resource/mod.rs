//! What a resource is: the static definition `#[resource]` generates, and
//! [`ResourceInfo`], a registered resource or resource template with what is computed from
//! it once (its parsed URI template, its `resources/list` entry, how its variables decode),
//! and what a read returns (`contents.rs`). Nothing here knows how resources are served.

pub(crate) mod contents;
pub(crate) mod def;

use std::sync::Arc;

use rmcp::model::{Annotations, Icon, JsonObject, Resource, ResourceTemplate, Role};
use toolsmith_template::Template;

use crate::item::Header;
use crate::tool::schema;
use crate::tool::strings::StringArgs;
use def::ResourceDef;

pub use contents::Modified;

/// A registered resource (a URI) or resource template (a URI with `{variables}`).
///
/// ```
/// for resource in toolsmith::registry().resources() {
///     println!("{} {}", resource.uri(), resource.name());
/// }
/// ```
#[derive(Clone)]
pub struct ResourceInfo(Arc<Inner>);

/// What a [`ResourceInfo`] holds, made once and shared by its clones (a request holds one).
struct Inner {
    def: &'static ResourceDef,
    header: Header,
    template: Template,
    /// The schema of its variables, as a tool's input schema (for the `check` snapshot).
    input: JsonObject,
    expected: Arc<[String]>,
    strings: StringArgs,
    listed: Listed,
}

#[derive(Clone)]
enum Listed {
    Resource(Resource),
    Template(ResourceTemplate),
}

impl ResourceInfo {
    pub(crate) fn new(def: &'static ResourceDef) -> Result<ResourceInfo, String> {
        let template = Template::parse(def.uri).map_err(|e| e.message)?;
        let (input, expected) = schema::input(def.params);
        let strings = StringArgs::of_schema(&input);
        let annotations = annotations(def);
        let item = &def.item;
        let icons = (!item.icons.is_empty())
            .then(|| item.icons.iter().map(|src| Icon::new(*src)).collect());
        let listed = if template.is_static() {
            let mut resource = Resource::new(def.uri, item.name);
            resource.title = item.title.map(str::to_owned);
            resource.description = description(def);
            resource.mime_type = def.mime_type.map(str::to_owned);
            resource.icons = icons;
            resource.annotations = annotations;
            Listed::Resource(resource)
        } else {
            let mut listed = ResourceTemplate::new(def.uri, item.name);
            listed.title = item.title.map(str::to_owned);
            listed.description = description(def);
            listed.mime_type = def.mime_type.map(str::to_owned);
            listed.icons = icons;
            listed.annotations = annotations;
            Listed::Template(listed)
        };
        Ok(ResourceInfo(Arc::new(Inner {
            def,
            header: Header::of_def(item),
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
    /// assert!(toolsmith::registry().resources().iter().all(|r| !r.name().is_empty()));
    /// ```
    pub fn name(&self) -> &str {
        self.0.header.name()
    }

    /// What it has in common with tools and prompts: name, title, description, icons, the
    /// scopes `scopes = [...]` names instead of the read scope, where it is declared.
    ///
    /// ```
    /// for r in toolsmith::registry().resources() {
    ///     assert!(r.header().rust_path().contains("::"));
    /// }
    /// ```
    pub fn header(&self) -> &Header {
        &self.0.header
    }

    /// Its URI, or its URI template as written (`notes://{note_id}`).
    ///
    /// ```
    /// assert!(toolsmith::registry().resources().iter().all(|r| r.uri().contains(':')));
    /// ```
    pub fn uri(&self) -> &'static str {
        self.0.def.uri
    }

    /// Whether it is a template (its URI has variables).
    ///
    /// ```
    /// let templates = toolsmith::registry().resources().iter().filter(|r| r.is_template());
    /// # let _ = templates.count();
    /// ```
    pub fn is_template(&self) -> bool {
        matches!(self.0.listed, Listed::Template(_))
    }

    /// The template's variables, in order (none for a resource).
    ///
    /// ```
    /// for resource in toolsmith::registry().resources() {
    ///     assert_eq!(resource.is_template(), resource.variables().next().is_some());
    /// }
    /// ```
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.0.template.variables()
    }

    /// The MIME type it declares.
    ///
    /// ```
    /// # for r in toolsmith::registry().resources() { let _ = r.mime_type(); }
    /// ```
    pub fn mime_type(&self) -> Option<&'static str> {
        self.0.def.mime_type
    }

    /// The `audience` annotation (`"user"`, `"assistant"`).
    ///
    /// ```
    /// # for r in toolsmith::registry().resources() { let _ = r.audience(); }
    /// ```
    pub fn audience(&self) -> &'static [&'static str] {
        self.0.def.audience
    }

    /// The `priority` annotation, from 0.0 to 1.0.
    ///
    /// ```
    /// # for r in toolsmith::registry().resources() { let _ = r.priority(); }
    /// ```
    pub fn priority(&self) -> Option<f32> {
        self.0.def.priority
    }

    /// The arguments that have a completion (`complete(var = fn)`).
    ///
    /// ```
    /// # for r in toolsmith::registry().resources() { let _ = r.completes().count(); }
    /// ```
    pub fn completes(&self) -> impl Iterator<Item = &'static str> {
        self.0.def.completions.iter().map(|c| c.argument)
    }

    /// Its `resources/list` entry (a resource), or `None` for a template.
    ///
    /// ```
    /// # for r in toolsmith::registry().resources() { assert_eq!(r.mcp_resource().is_some(), !r.is_template()); }
    /// ```
    pub fn mcp_resource(&self) -> Option<&Resource> {
        match &self.0.listed {
            Listed::Resource(resource) => Some(resource),
            Listed::Template(_) => None,
        }
    }

    /// Its `resources/templates/list` entry (a template), or `None` for a resource.
    ///
    /// ```
    /// # for r in toolsmith::registry().resources() { assert_eq!(r.mcp_template().is_some(), r.is_template()); }
    /// ```
    pub fn mcp_template(&self) -> Option<&ResourceTemplate> {
        match &self.0.listed {
            Listed::Template(template) => Some(template),
            Listed::Resource(_) => None,
        }
    }

    pub(crate) fn def(&self) -> &'static ResourceDef {
        self.0.def
    }

    pub(crate) fn template(&self) -> &Template {
        &self.0.template
    }

    pub(crate) fn input_schema(&self) -> &JsonObject {
        &self.0.input
    }

    pub(crate) fn expected(&self) -> &Arc<[String]> {
        &self.0.expected
    }

    /// The arguments a read of `uri` fills the function's parameters from, when `uri` is this
    /// resource's or matches this template.
    pub(crate) fn arguments_of(&self, uri: &str) -> Option<JsonObject> {
        let values = self.0.template.matches(uri)?;
        Some(self.0.strings.object(values))
    }

    pub(crate) fn described(&self) -> String {
        self.0.header.described()
    }
}

impl std::fmt::Debug for ResourceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceInfo")
            .field("uri", &self.0.def.uri)
            .field("name", &self.0.header.name())
            .finish_non_exhaustive()
    }
}

fn description(def: &ResourceDef) -> Option<String> {
    (!def.item.description.is_empty()).then(|| def.item.description.to_owned())
}

fn annotations(def: &ResourceDef) -> Option<Annotations> {
    if def.audience.is_empty() && def.priority.is_none() {
        return None;
    }
    let audience = (!def.audience.is_empty()).then(|| {
        def.audience
            .iter()
            .map(|who| match *who {
                "assistant" => Role::Assistant,
                _ => Role::User,
            })
            .collect()
    });
    let mut annotations = Annotations::default();
    annotations.audience = audience;
    annotations.priority = def.priority;
    Some(annotations)
}

//! The registry's resources, resource templates and prompts (declared, or made by hand and
//! added): collected, sorted, checked for conflicts once (two resources with one URI, two templates that could match one URI, two
//! prompts with one name), and found by URI or name.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::JsonObject;

use super::{Conflict, Registry};
use crate::Error;
use crate::prompt::PromptInfo;
use crate::prompt::def::PromptDef;
use crate::resource::def::ResourceDef;
use crate::resource::{Resource, ResourceInfo};

/// Every resource and prompt, found by URI or name.
#[derive(Clone, Default)]
pub(super) struct ResourcePromptIndex {
    /// Resources first (sorted by URI), then templates (sorted by template).
    resources: Vec<ResourceInfo>,
    /// How many of `resources` are resources, not templates.
    statics: usize,
    by_uri: HashMap<Box<str>, usize, foldhash::fast::FixedState>,
    pub(super) prompts: Vec<PromptInfo>,
    pub(super) by_name: HashMap<Box<str>, usize, foldhash::fast::FixedState>,
}

impl ResourcePromptIndex {
    pub(super) fn build() -> Result<ResourcePromptIndex, Conflict> {
        ResourcePromptIndex::of(
            inventory::iter::<ResourceDef>(),
            inventory::iter::<PromptDef>(),
        )
    }

    /// The resources and prompts of both, checked again for conflicts; and a resource of one
    /// that a template of the other matches is one too (in one set, the resource answers
    /// its URI before the template: its author's choice; from two sets, a read meant for
    /// the template's would reach the resource's).
    pub(super) fn merged(
        a: &ResourcePromptIndex,
        b: &ResourcePromptIndex,
    ) -> Result<ResourcePromptIndex, Conflict> {
        for (statics, templates) in [(a, b), (b, a)] {
            if let Some((resource, template)) = statics.shadowing(templates) {
                return Err(Conflict {
                    tool: None,
                    what: format!(
                        "the resource '{}' is a URI the resource template '{}' matches",
                        resource.uri(),
                        template.uri()
                    ),
                    first: template.described(),
                    second: resource.described(),
                    fix: "serve one URI from one place: give the resource a URI the template does not match, or take it out",
                });
            }
        }
        let resources = a.resources.iter().chain(&b.resources).cloned().collect();
        let prompts = a.prompts.iter().chain(&b.prompts).cloned().collect();
        ResourcePromptIndex::checked(resources, prompts)
    }

    pub(super) fn of(
        resources: impl IntoIterator<Item = &'static ResourceDef>,
        prompts: impl IntoIterator<Item = &'static PromptDef>,
    ) -> Result<ResourcePromptIndex, Conflict> {
        let mut all = Vec::new();
        for def in resources {
            // The macro checked the template; a definition made by hand may be wrong.
            let info = ResourceInfo::new(def).map_err(|why| Conflict {
                tool: None,
                what: format!("the resource URI '{}' is not valid: {why}", def.uri),
                first: format!(
                    "`{}` at {}:{}",
                    def.item.rust_path, def.item.file, def.item.line
                ),
                second: "no other".to_owned(),
                fix: "fix the URI",
            })?;
            all.push(info);
        }
        ResourcePromptIndex::checked(all, prompts.into_iter().map(PromptInfo::new).collect())
    }

    /// A resource of these that a template of `other` matches, and the template.
    fn shadowing<'a>(
        &'a self,
        other: &'a ResourcePromptIndex,
    ) -> Option<(&'a ResourceInfo, &'a ResourceInfo)> {
        self.resources[..self.statics].iter().find_map(|resource| {
            other.resources[other.statics..]
                .iter()
                .find(|template| template.template().matches(resource.uri()).is_some())
                .map(|template| (resource, template))
        })
    }

    /// These with `resource` too, or the conflict it makes.
    pub(super) fn with_resource(
        &self,
        resource: ResourceInfo,
    ) -> Result<ResourcePromptIndex, Conflict> {
        let mut resources = self.resources.clone();
        resources.push(resource);
        ResourcePromptIndex::checked(resources, self.prompts.clone())
    }

    /// These with `prompt` too, or the conflict it makes.
    pub(super) fn with_prompt(&self, prompt: PromptInfo) -> Result<ResourcePromptIndex, Conflict> {
        let mut prompts = self.prompts.clone();
        prompts.push(prompt);
        ResourcePromptIndex::checked(self.resources.clone(), prompts)
    }

    /// These without the resource or template declared with `uri`, and it (`None`: none is).
    pub(super) fn without_resource(
        &self,
        uri: &str,
    ) -> Option<(ResourcePromptIndex, ResourceInfo)> {
        let at = self.resources.iter().position(|r| r.uri() == uri)?;
        let mut resources = self.resources.clone();
        let removed = resources.remove(at);
        let rest = ResourcePromptIndex::checked(resources, self.prompts.clone()).ok()?;
        Some((rest, removed))
    }

    /// These without the prompt named `name`, and it (`None`: none is).
    pub(super) fn without_prompt(&self, name: &str) -> Option<(ResourcePromptIndex, PromptInfo)> {
        let at = *self.by_name.get(name)?;
        let mut prompts = self.prompts.clone();
        let removed = prompts.remove(at);
        let rest = ResourcePromptIndex::checked(self.resources.clone(), prompts).ok()?;
        Some((rest, removed))
    }

    /// `resources` and `prompts` sorted and indexed, or the first conflict among them.
    fn checked(
        mut all: Vec<ResourceInfo>,
        mut prompts: Vec<PromptInfo>,
    ) -> Result<ResourcePromptIndex, Conflict> {
        all.sort_by(|a, b| {
            (a.is_template(), a.uri(), a.header().location()).cmp(&(
                b.is_template(),
                b.uri(),
                b.header().location(),
            ))
        });
        let statics = all.iter().filter(|r| !r.is_template()).count();
        if let Some(pair) = all.windows(2).find(|w| w[0].uri() == w[1].uri()) {
            return Err(Conflict {
                tool: None,
                what: format!("two resources have the URI '{}'", pair[0].uri()),
                first: pair[0].described(),
                second: pair[1].described(),
                fix: "give each its own URI (`uri = \"...\"` of a `#[resource]`)",
            });
        }
        let templates = &all[statics..];
        for (i, a) in templates.iter().enumerate() {
            if let Some(b) = templates[i + 1..]
                .iter()
                .find(|b| a.template().overlaps(b.template()))
            {
                return Err(Conflict {
                    tool: None,
                    what: format!(
                        "the resource templates '{}' and '{}' can match the same URI",
                        a.uri(),
                        b.uri()
                    ),
                    first: a.described(),
                    second: b.described(),
                    fix: "make their literal parts differ, e.g. `notes://{id}` and `notes://tags/{tag}` become `notes://by-id/{id}` and `notes://tags/{tag}`",
                });
            }
        }
        let by_uri = all[..statics]
            .iter()
            .enumerate()
            .map(|(i, r)| (Box::from(r.uri()), i))
            .collect();
        prompts.sort_by(|a, b| {
            (a.name(), a.header().location()).cmp(&(b.name(), b.header().location()))
        });
        if let Some(pair) = prompts.windows(2).find(|w| w[0].name() == w[1].name()) {
            return Err(Conflict {
                tool: None,
                what: format!("two prompts are named '{}'", pair[0].name()),
                first: pair[0].described(),
                second: pair[1].described(),
                fix: "rename one (`name = \"...\"` of a `#[prompt]`)",
            });
        }
        let by_name = prompts
            .iter()
            .enumerate()
            .map(|(i, p)| (Box::from(p.name()), i))
            .collect();
        Ok(ResourcePromptIndex {
            resources: all,
            statics,
            by_uri,
            prompts,
            by_name,
        })
    }
}

impl Registry {
    /// Adds a resource or resource template made by hand (see [`Resource`]). An error when
    /// its URI is taken, or its template could match a URI another template matches (naming
    /// both), or its declaration is not valid (its URI template, its priority).
    ///
    /// ```
    /// # use toolsmith::rmcp::model::{JsonObject, ResourceContents};
    /// # use toolsmith::{CallContext, Registry, resource::Resource, resource::ResourceDescription, resource::ResourceFuture};
    /// struct Motd;
    /// impl Resource for Motd {
    ///     fn describe(&self) -> ResourceDescription {
    ///         ResourceDescription::new("motd://today", "motd")
    ///     }
    ///     fn read(&self, uri: &str, _: JsonObject, _: &CallContext) -> ResourceFuture {
    ///         let contents = ResourceContents::text("Hello", uri);
    ///         Box::pin(async move { Ok(Some(vec![contents])) })
    ///     }
    /// }
    ///
    /// let mut registry = Registry::new();
    /// registry.add_resource(Motd).unwrap();
    /// let err = registry.add_resource(Motd).unwrap_err();
    /// assert!(err.to_string().contains("two resources have the URI 'motd://today'"), "{err}");
    /// ```
    pub fn add_resource(&mut self, resource: impl Resource) -> Result<(), Error> {
        let info = ResourceInfo::of_resource(Arc::new(resource))
            .map_err(|why| Error::config("resource", why))?;
        self.resources_and_prompts = self
            .resources_and_prompts
            .with_resource(info)
            .map_err(Conflict::into_error)?;
        Ok(())
    }

    /// `self` with the resource added (see [`Registry::add_resource`]).
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
    /// let registry = Registry::new().with_resource(Motd).unwrap();
    /// assert_eq!(registry.resources()[0].uri(), "motd://today");
    /// ```
    pub fn with_resource(mut self, resource: impl Resource) -> Result<Registry, Error> {
        self.add_resource(resource)?;
        Ok(self)
    }

    /// Removes the resource or template declared with `uri` (a template as written), and
    /// returns it (`None` when there is none).
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
    /// let mut registry = Registry::new().with_resource(Motd).unwrap();
    /// assert_eq!(registry.remove_resource("motd://today").unwrap().name(), "motd");
    /// assert!(registry.resources().is_empty());
    /// assert!(registry.remove_resource("motd://today").is_none());
    /// ```
    pub fn remove_resource(&mut self, uri: &str) -> Option<ResourceInfo> {
        let (rest, removed) = self.resources_and_prompts.without_resource(uri)?;
        self.resources_and_prompts = rest;
        Some(removed)
    }

    /// Every resource and resource template: resources sorted by URI, then templates sorted
    /// by template. (Resources and prompts are read-only: the hints search of
    /// [`Registry::search`] is about tools; find these by URI with
    /// [`Registry::resource_for`] and by name with [`Registry::prompt`].)
    ///
    /// ```
    /// /// What each shelf of the pantry holds.
    /// #[toolsmith::resource(uri = "pantry://shelves")]
    /// fn pantry_shelves() -> String {
    ///     "top: flour; bottom: rice".into()
    /// }
    ///
    /// /// One jar of the larder.
    /// #[toolsmith::resource(uri = "larder://{jar}")]
    /// fn larder_jar(jar: String) -> String {
    ///     format!("{jar}: half full")
    /// }
    ///
    /// let registry = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let uris: Vec<&str> = registry.resources().iter().map(|r| r.uri()).collect();
    /// assert_eq!(uris, ["pantry://shelves", "larder://{jar}"]);
    /// ```
    pub fn resources(&self) -> &[ResourceInfo] {
        &self.resources_and_prompts.resources
    }

    /// The resource a read of `uri` reaches, and the variables it matched: the resource of
    /// exactly this URI, else the template that matches it.
    ///
    /// ```
    /// /// Every recipe's id and title.
    /// #[toolsmith::resource(uri = "recipes://index")]
    /// fn recipe_index() -> String {
    ///     "1: Pancakes".into()
    /// }
    ///
    /// /// One recipe.
    /// #[toolsmith::resource(uri = "recipes://{recipe_id}")]
    /// fn recipe(recipe_id: u64) -> String {
    ///     format!("recipe {recipe_id}")
    /// }
    ///
    /// let registry = toolsmith::Registry::global();
    /// assert_eq!(registry.resource_for("recipes://index").unwrap().uri(), "recipes://index");
    /// assert_eq!(registry.resource_for("recipes://42").unwrap().uri(), "recipes://{recipe_id}");
    /// assert!(registry.resource_for("nothing://here").is_none());
    /// ```
    pub fn resource_for(&self, uri: &str) -> Option<&ResourceInfo> {
        // Whether a template matches, without making its arguments.
        let matched = |r: &ResourceInfo| r.template().matches(uri).map(drop);
        self.find(uri, (), matched).map(|(resource, ())| resource)
    }

    /// [`Registry::resource_for`], with the arguments the URI fills the function's
    /// parameters with: matched once.
    pub(crate) fn resolve(&self, uri: &str) -> Option<(&ResourceInfo, JsonObject)> {
        self.find(uri, JsonObject::new(), |r| r.arguments_of(uri))
    }

    /// The resource of exactly `uri` (with `exact`), else the first template `matched`
    /// accepts (with what it gave).
    fn find<T>(
        &self,
        uri: &str,
        exact: T,
        matched: impl Fn(&ResourceInfo) -> Option<T>,
    ) -> Option<(&ResourceInfo, T)> {
        if let Some(&i) = self.resources_and_prompts.by_uri.get(uri) {
            return Some((&self.resources_and_prompts.resources[i], exact));
        }
        self.resources_and_prompts.resources[self.resources_and_prompts.statics..]
            .iter()
            .find_map(|r| Some((r, matched(r)?)))
    }

    /// The resource or template declared with exactly this URI (a template as written).
    ///
    /// ```
    /// /// The menu of one day.
    /// #[toolsmith::resource(uri = "menus://{day}")]
    /// fn menu_of(day: String) -> String {
    ///     format!("{day}: soup")
    /// }
    ///
    /// let registry = toolsmith::Registry::global();
    /// assert_eq!(registry.resource_declared("menus://{day}").unwrap().name(), "menu_of");
    /// assert!(registry.resource_declared("menus://monday").is_none());
    /// assert!(registry.resource_for("menus://monday").is_some());
    /// ```
    pub fn resource_declared(&self, uri: &str) -> Option<&ResourceInfo> {
        self.resources_and_prompts
            .resources
            .iter()
            .find(|r| r.uri() == uri)
    }
}

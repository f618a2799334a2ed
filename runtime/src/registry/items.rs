//! The registry's resources, resource templates and prompts: collected, sorted, checked for
//! conflicts once (two resources with one URI, two templates that could match one URI, two
//! prompts with one name), and found by URI or name.

use std::collections::HashMap;

use rmcp::model::JsonObject;

use super::{Conflict, Registry};
use crate::prompt::PromptInfo;
use crate::prompt::def::PromptDef;
use crate::resource::ResourceInfo;
use crate::resource::def::ResourceDef;

/// Every resource and prompt, found by URI or name.
#[derive(Clone, Default)]
pub(super) struct Items {
    /// Resources first (sorted by URI), then templates (sorted by template).
    resources: Vec<ResourceInfo>,
    /// How many of `resources` are resources, not templates.
    statics: usize,
    by_uri: HashMap<&'static str, usize, foldhash::fast::FixedState>,
    prompts: Vec<PromptInfo>,
    by_name: HashMap<&'static str, usize, foldhash::fast::FixedState>,
}

impl Items {
    pub(super) fn build() -> Result<Items, Conflict> {
        Items::of(
            inventory::iter::<ResourceDef>(),
            inventory::iter::<PromptDef>(),
        )
    }

    /// The resources and prompts of both, checked again for conflicts.
    pub(super) fn merged(a: &Items, b: &Items) -> Result<Items, Conflict> {
        let resources = a.resources.iter().chain(&b.resources).map(|r| r.def());
        let prompts = a.prompts.iter().chain(&b.prompts).map(|p| p.def());
        Items::of(resources, prompts)
    }

    pub(super) fn of(
        resources: impl IntoIterator<Item = &'static ResourceDef>,
        prompts: impl IntoIterator<Item = &'static PromptDef>,
    ) -> Result<Items, Conflict> {
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
                fix: "give each its own `uri = \"...\"`",
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
            .map(|(i, r)| (r.uri(), i))
            .collect();
        let mut prompts: Vec<PromptInfo> = prompts.into_iter().map(PromptInfo::new).collect();
        prompts.sort_by(|a, b| {
            (a.name(), a.header().location()).cmp(&(b.name(), b.header().location()))
        });
        if let Some(pair) = prompts.windows(2).find(|w| w[0].name() == w[1].name()) {
            return Err(Conflict {
                tool: None,
                what: format!("two prompts are named '{}'", pair[0].name()),
                first: pair[0].described(),
                second: pair[1].described(),
                fix: "rename one with #[prompt(name = \"...\")]",
            });
        }
        let by_name = prompts
            .iter()
            .enumerate()
            .map(|(i, p)| (p.def().item.name, i))
            .collect();
        Ok(Items {
            resources: all,
            statics,
            by_uri,
            prompts,
            by_name,
        })
    }
}

impl Registry {
    /// Every resource and resource template: resources sorted by URI, then templates sorted
    /// by template. (Resources and prompts are read-only: the hints search of
    /// [`Registry::search`] is about tools; find these by URI with
    /// [`Registry::resource_for`] and by name with [`Registry::prompt`].)
    ///
    /// ```
    /// let all = toolsmith::registry().resources();
    /// let templates = all.iter().skip_while(|r| !r.is_template());
    /// assert!(templates.clone().all(|r| r.is_template()));
    /// ```
    pub fn resources(&self) -> &[ResourceInfo] {
        &self.items.resources
    }

    /// The resource a read of `uri` reaches, and the variables it matched: the resource of
    /// exactly this URI, else the template that matches it.
    ///
    /// ```
    /// assert!(toolsmith::registry().resource_for("nothing://here").is_none());
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
        if let Some(&i) = self.items.by_uri.get(uri) {
            return Some((&self.items.resources[i], exact));
        }
        self.items.resources[self.items.statics..]
            .iter()
            .find_map(|r| Some((r, matched(r)?)))
    }

    /// The resource or template declared with exactly this URI (a template as written).
    ///
    /// ```
    /// assert!(toolsmith::registry().resource_declared("nothing://{x}").is_none());
    /// ```
    pub fn resource_declared(&self, uri: &str) -> Option<&ResourceInfo> {
        self.items.resources.iter().find(|r| r.uri() == uri)
    }

    /// Every prompt, sorted by name.
    ///
    /// ```
    /// let prompts = toolsmith::registry().prompts();
    /// assert!(prompts.windows(2).all(|w| w[0].name() < w[1].name()));
    /// ```
    pub fn prompts(&self) -> &[PromptInfo] {
        &self.items.prompts
    }

    /// The prompt named `name`.
    ///
    /// ```
    /// assert!(toolsmith::registry().prompt("no such prompt").is_none());
    /// ```
    pub fn prompt(&self, name: &str) -> Option<&PromptInfo> {
        self.items
            .by_name
            .get(name)
            .map(|&i| &self.items.prompts[i])
    }
}

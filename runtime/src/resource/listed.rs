//! A resource's `resources/list` entry, or a template's `resources/templates/list` entry:
//! made once from what it declares.

use rmcp::model::{Annotations, Icon, Resource as McpResource, ResourceTemplate, Role};
use toolsmith_template::Template;

use crate::item::Header;

/// The entry a resource or template is listed with.
#[derive(Clone)]
pub(super) enum Listed {
    Resource(McpResource),
    Template(ResourceTemplate),
}

/// What the `resources/list` or `resources/templates/list` entry is made of.
pub(super) struct Entry<'a> {
    pub(super) uri: &'a str,
    pub(super) header: &'a Header,
    pub(super) mime_type: Option<&'a str>,
    pub(super) audience: &'a [&'static str],
    pub(super) priority: Option<f32>,
}

impl Entry<'_> {
    pub(super) fn listed(&self, template: &Template) -> Listed {
        let header = self.header;
        let icons = (!header.icons().is_empty()).then(|| {
            header
                .icons()
                .iter()
                .map(|src| Icon::new(src.as_str()))
                .collect()
        });
        let description =
            (!header.description().is_empty()).then(|| header.description().to_owned());
        let annotations = annotations(self.audience, self.priority);
        if template.is_static() {
            let mut resource = McpResource::new(self.uri, header.name());
            resource.title = header.title().map(str::to_owned);
            resource.description = description;
            resource.mime_type = self.mime_type.map(str::to_owned);
            resource.icons = icons;
            resource.annotations = annotations;
            Listed::Resource(resource)
        } else {
            let mut listed = ResourceTemplate::new(self.uri, header.name());
            listed.title = header.title().map(str::to_owned);
            listed.description = description;
            listed.mime_type = self.mime_type.map(str::to_owned);
            listed.icons = icons;
            listed.annotations = annotations;
            Listed::Template(listed)
        }
    }
}

fn annotations(audience: &[&str], priority: Option<f32>) -> Option<Annotations> {
    if audience.is_empty() && priority.is_none() {
        return None;
    }
    let audience = (!audience.is_empty()).then(|| {
        audience
            .iter()
            .map(|who| match *who {
                "assistant" => Role::Assistant,
                _ => Role::User,
            })
            .collect()
    });
    let mut annotations = Annotations::default();
    annotations.audience = audience;
    annotations.priority = priority;
    Some(annotations)
}

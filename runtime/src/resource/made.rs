//! A [`ResourceInfo`] of a resource made by hand: its [`ResourceDescription`] read once, when
//! it is added, and checked.

use std::sync::Arc;

use toolsmith_template::Template;

use super::listed::Entry;
use super::{Inner, ResourceDescription, ResourceInfo, Run};
use crate::resource::Resource;
use crate::tool::schema;
use crate::tool::strings::StringArgs;

impl ResourceInfo {
    /// A resource made by hand: its description read once and checked (its URI template, its
    /// name, its priority, its timeout, its icons' schemes).
    pub(crate) fn of_resource(resource: Arc<dyn Resource>) -> Result<ResourceInfo, String> {
        let ResourceDescription {
            about,
            uri,
            mime_type,
            audience,
            priority,
            completes,
        } = resource.describe();
        let template = Template::parse(&uri)
            .map_err(|e| format!("the resource URI '{uri}' is not valid: {}", e.message))?;
        let name = about.name.as_str();
        if name.is_empty() {
            return Err(format!("the resource '{uri}' has no name: give it one"));
        }
        if let Some(c) = name.chars().find(|c| c.is_control()) {
            return Err(format!(
                "the name of resource '{uri}' (\"{}\") holds the control character {c:?}: a name holds none",
                name.escape_debug()
            ));
        }
        if let Some(p) = priority
            && !(0.0..=1.0).contains(&p)
        {
            return Err(format!(
                "the priority of resource '{uri}' is {p}: give one from 0.0 to 1.0"
            ));
        }
        let timeout = crate::tool::made_timeout("resource", &uri, about.timeout)?;
        let input = schema::strings_input(template.variables().map(|v| (v, None, true)));
        let strings = StringArgs::of_schema(&input);
        let audience: Vec<&'static str> = audience
            .iter()
            .map(|role| match role {
                crate::prompt::Role::User => "user",
                crate::prompt::Role::Assistant => "assistant",
            })
            .collect();
        let header = crate::tool::made_header(about);
        let mime_type = mime_type.map(Box::<str>::from);
        let listed = Entry {
            uri: &uri,
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
            completes: completes.into_iter().map(Into::into).collect(),
            run: Run::Made(resource),
        })))
    }
}

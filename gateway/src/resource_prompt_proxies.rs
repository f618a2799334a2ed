//! An upstream's resources, resource templates and prompts as toolsmith's: what they say of
//! themselves (a prompt under the upstream's prefix, a resource at its own URI with its name
//! prefixed, an MCP App's `ui://` resource under the upstream's name, `apps.rs`), and a read,
//! a get or a completion forwarded to the upstream, its answer passed back.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::ResourceContents;
use rmcp::model::Role as McpRole;
use rmcp::model::{ArgumentInfo, CompleteRequestParams, CompletionContext, Reference};
use rmcp::model::{ErrorCode, GetPromptRequestParams, JsonObject, ReadResourceRequestParams};
use toolsmith::complete::{Candidates, Completion};
use toolsmith::prompt::{Prompt, PromptDescription, PromptFuture, PromptMessage, Role};
use toolsmith::resource::{Resource, ResourceDescription, ResourceFuture};
use toolsmith::{CallContext, Registry, ToolError, tool::Content};

use crate::admit;
use crate::link::Link;
use crate::session::Listed;

/// An upstream resource, or a template of them.
pub(crate) struct ProxiedResource {
    /// Its URI (or URI template), its name prefixed, and the rest as the upstream says.
    described: ResourceDescription,
    /// The upstream's URI of an MCP App's resource, served at another (`apps.rs`).
    upstream_uri: Option<String>,
    link: Arc<Link>,
}

impl ProxiedResource {
    pub(crate) fn of(resource: rmcp::model::Resource, prefix: &str, link: &Arc<Link>) -> Self {
        let annotations = resource.annotations.as_ref();
        let said = Said {
            title: resource.title,
            description: resource.description,
            mime_type: resource.mime_type,
            audience: roles(annotations.and_then(|a| a.audience.as_ref())),
            priority: annotations.and_then(|a| a.priority),
        };
        let name = format!("{prefix}{}", resource.name);
        let served = crate::apps::served_uri(&resource.uri, link.upstream());
        let upstream_uri = (served != resource.uri).then_some(resource.uri);
        ProxiedResource {
            described: said.described(served, name, link),
            upstream_uri,
            link: link.clone(),
        }
    }

    /// A template; `completes`: the upstream completes its variables.
    pub(crate) fn template(
        template: rmcp::model::ResourceTemplate,
        prefix: &str,
        link: &Arc<Link>,
        completes: bool,
    ) -> Self {
        let annotations = template.annotations.as_ref();
        let said = Said {
            title: template.title,
            description: template.description,
            mime_type: template.mime_type,
            audience: roles(annotations.and_then(|a| a.audience.as_ref())),
            priority: annotations.and_then(|a| a.priority),
        };
        let name = format!("{prefix}{}", template.name);
        let mut described = said.described(template.uri_template, name, link);
        if completes {
            described.completes = variables(&described.uri);
        }
        ProxiedResource {
            described,
            upstream_uri: None,
            link: link.clone(),
        }
    }
}

/// What an upstream says of a resource or a template besides its URI and name.
struct Said {
    title: Option<String>,
    description: Option<String>,
    mime_type: Option<String>,
    audience: Vec<Role>,
    priority: Option<f32>,
}

impl Said {
    /// The description of the resource at `uri`, served as `name`.
    fn described(self, uri: String, name: String, link: &Arc<Link>) -> ResourceDescription {
        let origin = admit::resource_origin(&uri, link.upstream());
        let mut described = ResourceDescription::new(uri, name)
            .with_description(self.description.unwrap_or_default())
            .with_audience(self.audience)
            .with_origin(origin);
        described.about.title = self.title;
        described.mime_type = self.mime_type;
        described.priority = self.priority;
        described
    }
}

/// The variables of `template` (none when it does not parse: the registry says why).
fn variables(template: &str) -> Vec<String> {
    toolsmith_template::Template::parse(template)
        .map(|t| t.variables().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// What the upstream completes for `reference`'s `argument`, `value` typed so far; none when
/// it cannot answer (its error logged).
fn completed<'a>(
    link: &Arc<Link>,
    reference: Reference,
    argument: &'a str,
    value: &'a str,
    completion: &'a Completion,
) -> Candidates<'a> {
    let link = link.clone();
    let arguments: HashMap<String, String> = completion
        .arguments()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
    if !arguments.is_empty() {
        params = params.with_context(CompletionContext::with_arguments(arguments));
    }
    Box::pin(async move {
        let Ok((_, peer)) = link.peer() else {
            return Vec::new();
        };
        match peer.complete(params).await {
            Ok(result) => result.completion.values,
            Err(err) => {
                tracing::debug!(
                    upstream = link.upstream(),
                    "a completion got no answer: {}",
                    crate::told::service(&err)
                );
                Vec::new()
            }
        }
    })
}

fn roles(audience: Option<&Vec<McpRole>>) -> Vec<Role> {
    audience
        .into_iter()
        .flatten()
        .map(|role| match role {
            McpRole::Assistant => Role::Assistant,
            _ => Role::User,
        })
        .collect()
}

impl Resource for ProxiedResource {
    fn describe(&self) -> ResourceDescription {
        self.described.clone()
    }

    fn complete<'a>(
        &'a self,
        variable: &'a str,
        value: &'a str,
        completion: &'a Completion,
    ) -> Candidates<'a> {
        let reference = Reference::for_resource(self.described.uri.clone());
        completed(&self.link, reference, variable, value, completion)
    }

    fn read(&self, uri: &str, _variables: JsonObject, _context: &CallContext) -> ResourceFuture {
        let link = self.link.clone();
        let params = ReadResourceRequestParams::new(self.upstream_uri.as_deref().unwrap_or(uri));
        // An app's contents name the URI the client read.
        let renamed = self
            .upstream_uri
            .clone()
            .map(|upstream| (upstream, self.described.uri.clone()));
        Box::pin(async move {
            let (_, peer) = link.peer()?;
            match peer.read_resource(params).await {
                Ok(mut read) => {
                    if let Some((upstream, served)) = &renamed {
                        for contents in &mut read.contents {
                            let uri = match contents {
                                ResourceContents::TextResourceContents { uri, .. }
                                | ResourceContents::BlobResourceContents { uri, .. } => uri,
                                _ => continue,
                            };
                            if uri == upstream {
                                uri.clone_from(served);
                            }
                        }
                    }
                    Ok(Some(read.contents))
                }
                Err(rmcp::ServiceError::McpError(err))
                    if err.code == ErrorCode::RESOURCE_NOT_FOUND =>
                {
                    Ok(None)
                }
                Err(err) => Err(ToolError::new(crate::told::failed(
                    link.upstream(),
                    "read",
                    &err,
                ))),
            }
        })
    }
}

/// An upstream prompt, under the upstream's prefix.
pub(crate) struct ProxiedPrompt {
    /// Its name as served, and the rest as the upstream says.
    described: PromptDescription,
    /// Its name at the upstream.
    upstream_name: String,
    link: Arc<Link>,
}

impl ProxiedPrompt {
    /// `prompt`; `completes`: the upstream completes its arguments.
    pub(crate) fn of(
        prompt: rmcp::model::Prompt,
        prefix: &str,
        link: &Arc<Link>,
        completes: bool,
    ) -> Self {
        let arguments = prompt.arguments.unwrap_or_default();
        let mut described = PromptDescription::new(format!("{prefix}{}", prompt.name))
            .with_description(prompt.description.unwrap_or_default())
            .with_origin(admit::prompt_origin(&prompt.name, link.upstream()));
        described.about.title = prompt.title;
        if completes {
            described.completes = arguments.iter().map(|a| a.name.clone()).collect();
        }
        described.arguments = arguments;
        ProxiedPrompt {
            described,
            upstream_name: prompt.name,
            link: link.clone(),
        }
    }
}

impl Prompt for ProxiedPrompt {
    fn describe(&self) -> PromptDescription {
        self.described.clone()
    }

    fn complete<'a>(
        &'a self,
        argument: &'a str,
        value: &'a str,
        completion: &'a Completion,
    ) -> Candidates<'a> {
        let reference = Reference::for_prompt(self.upstream_name.clone());
        completed(&self.link, reference, argument, value, completion)
    }

    fn get(&self, arguments: JsonObject, _context: &CallContext) -> PromptFuture {
        let link = self.link.clone();
        let mut params = GetPromptRequestParams::new(self.upstream_name.clone());
        params.arguments = Some(arguments);
        Box::pin(async move {
            let (_, peer) = link.peer()?;
            let got = peer.get_prompt(params).await.map_err(|err| {
                ToolError::new(crate::told::failed(link.upstream(), "prompt", &err))
            })?;
            Ok(got
                .messages
                .into_iter()
                .map(|message| match message.role {
                    McpRole::Assistant => PromptMessage::assistant(Content::Block(message.content)),
                    _ => PromptMessage::user(Content::Block(message.content)),
                })
                .collect())
        })
    }
}

/// Serves `items` (an upstream's resources, templates and prompts) in `registry`, under
/// `prefix`, read through `link`: those [`admit`] lets beside the other upstreams' (the
/// others left out, each named in a warning).
pub(crate) fn serve(
    registry: &mut Registry,
    items: &Listed,
    prefix: &str,
    link: &Arc<Link>,
) -> Result<(), toolsmith::Error> {
    let upstream = link.upstream();
    for resource in &items.resources {
        let name = format!("{prefix}{}", resource.name);
        let uri = crate::apps::served_uri(&resource.uri, upstream);
        if admit::resource(registry, &uri, &name, false, upstream) {
            registry.add_resource(ProxiedResource::of(resource.clone(), prefix, link))?;
        }
    }
    for template in &items.templates {
        let (uri, name) = (&template.uri_template, format!("{prefix}{}", template.name));
        if admit::resource(registry, uri, &name, true, upstream) {
            let proxied =
                ProxiedResource::template(template.clone(), prefix, link, items.completes);
            registry.add_resource(proxied)?;
        }
    }
    for prompt in &items.prompts {
        if admit::prompt(&format!("{prefix}{}", prompt.name), upstream) {
            let proxied = ProxiedPrompt::of(prompt.clone(), prefix, link, items.completes);
            registry.add_prompt(proxied)?;
        }
    }
    Ok(())
}

/// Takes `items`, as [`serve`] served them, out of `registry`: only what is the upstream's
/// (`link`'s), never another's at a URI or name it listed but was not served.
pub(crate) fn unserve(registry: &mut Registry, items: &Listed, prefix: &str, link: &Arc<Link>) {
    let upstream = link.upstream();
    let uris = items
        .resources
        .iter()
        .map(|r| crate::apps::served_uri(&r.uri, upstream));
    for uri in uris.chain(items.templates.iter().map(|t| t.uri_template.clone())) {
        let uri = &uri;
        if registry
            .resource_declared(uri)
            .is_some_and(|served| admit::ours(served, upstream))
        {
            registry.remove_resource(uri);
        }
    }
    for prompt in &items.prompts {
        let served = format!("{prefix}{}", prompt.name);
        if registry
            .prompt(&served)
            .is_some_and(|served| admit::our_prompt(served, &prompt.name, upstream))
        {
            registry.remove_prompt(&served);
        }
    }
}

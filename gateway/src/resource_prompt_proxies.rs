//! An upstream's resources, resource templates and prompts as toolsmith's: what they say of
//! themselves (a prompt under the upstream's prefix, a resource at its own URI with its name
//! prefixed), and a read, a get or a completion forwarded to the upstream, its answer passed
//! back.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{ArgumentInfo, CompleteRequestParams, CompletionContext, Reference};
use rmcp::model::{ErrorCode, GetPromptRequestParams, JsonObject, ReadResourceRequestParams};
use rmcp::model::{PromptArgument, Role as McpRole};
use toolsmith::{
    CallContext, Registry, ToolError, complete::Candidates, complete::Completion, prompt::Prompt,
    prompt::PromptFuture, prompt::PromptMessage, prompt::Role, resource::Resource,
    resource::ResourceFuture, tool::Content,
};

use crate::admit;
use crate::link::Link;
use crate::session::Listed;

/// An upstream resource, or a template of them.
pub(crate) struct ProxiedResource {
    /// Its URI, or its URI template.
    uri: String,
    /// Its name, prefixed.
    name: String,
    title: Option<String>,
    description: String,
    mime_type: Option<String>,
    audience: Vec<Role>,
    priority: Option<f32>,
    /// The template's variables, when the upstream completes them.
    completes: Vec<String>,
    link: Arc<Link>,
}

impl ProxiedResource {
    pub(crate) fn of(resource: rmcp::model::Resource, prefix: &str, link: &Arc<Link>) -> Self {
        let annotations = resource.annotations.as_ref();
        ProxiedResource {
            uri: resource.uri,
            name: format!("{prefix}{}", resource.name),
            title: resource.title,
            description: resource.description.unwrap_or_default(),
            mime_type: resource.mime_type,
            audience: roles(annotations.and_then(|a| a.audience.as_ref())),
            priority: annotations.and_then(|a| a.priority),
            completes: Vec::new(),
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
        let completes = match completes {
            true => variables(&template.uri_template),
            false => Vec::new(),
        };
        let annotations = template.annotations.as_ref();
        ProxiedResource {
            uri: template.uri_template,
            name: format!("{prefix}{}", template.name),
            title: template.title,
            description: template.description.unwrap_or_default(),
            mime_type: template.mime_type,
            audience: roles(annotations.and_then(|a| a.audience.as_ref())),
            priority: annotations.and_then(|a| a.priority),
            completes,
            link: link.clone(),
        }
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
    fn uri(&self) -> &str {
        &self.uri
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    fn audience(&self) -> Vec<Role> {
        self.audience.clone()
    }

    fn priority(&self) -> Option<f32> {
        self.priority
    }

    fn completes(&self) -> Vec<String> {
        self.completes.clone()
    }

    fn complete<'a>(
        &'a self,
        variable: &'a str,
        value: &'a str,
        completion: &'a Completion,
    ) -> Candidates<'a> {
        let reference = Reference::for_resource(self.uri.clone());
        completed(&self.link, reference, variable, value, completion)
    }

    fn origin(&self) -> String {
        admit::resource_origin(&self.uri, self.link.upstream())
    }

    fn read(&self, uri: &str, _variables: JsonObject, _context: &CallContext) -> ResourceFuture {
        let link = self.link.clone();
        let params = ReadResourceRequestParams::new(uri);
        Box::pin(async move {
            let (_, peer) = link.peer()?;
            match peer.read_resource(params).await {
                Ok(read) => Ok(Some(read.contents)),
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
    /// The name it is served under.
    served: String,
    /// Its name at the upstream.
    upstream_name: String,
    title: Option<String>,
    description: String,
    arguments: Vec<PromptArgument>,
    /// Whether the upstream completes its arguments.
    completes: bool,
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
        ProxiedPrompt {
            completes,
            served: format!("{prefix}{}", prompt.name),
            upstream_name: prompt.name,
            title: prompt.title,
            description: prompt.description.unwrap_or_default(),
            arguments: prompt.arguments.unwrap_or_default(),
            link: link.clone(),
        }
    }
}

impl Prompt for ProxiedPrompt {
    fn name(&self) -> &str {
        &self.served
    }

    fn arguments(&self) -> Vec<PromptArgument> {
        self.arguments.clone()
    }

    fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn completes(&self) -> Vec<String> {
        match self.completes {
            true => self.arguments.iter().map(|a| a.name.clone()).collect(),
            false => Vec::new(),
        }
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

    fn origin(&self) -> String {
        admit::prompt_origin(&self.upstream_name, self.link.upstream())
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
        if admit::resource(registry, &resource.uri, &name, false, upstream) {
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
    let uris = items.resources.iter().map(|r| &r.uri);
    for uri in uris.chain(items.templates.iter().map(|t| &t.uri_template)) {
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

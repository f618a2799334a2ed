//! Which of an upstream's resources, templates and prompts the gateway serves beside the
//! other upstreams': none whose name or URI holds a control character (a line feed in a name
//! could write a line of its own into the `check` snapshot), and no resource of one upstream
//! at a URI another's template matches, nor a template that matches another's resource (a
//! read meant for one would reach the other). What is left out is named in a warning, its
//! text escaped. Also what is whose: the items an upstream served, told from the others'.

use toolsmith::{Registry, prompt::PromptInfo, resource::ResourceInfo};
use toolsmith_template::Template;

/// How a resource or template of `upstream` at `uri` describes its origin.
pub(crate) fn resource_origin(uri: &str, upstream: &str) -> String {
    format!("resource '{uri}' of upstream '{upstream}'")
}

/// How a prompt of `upstream` named `name` there describes its origin.
pub(crate) fn prompt_origin(name: &str, upstream: &str) -> String {
    format!("prompt '{name}' of upstream '{upstream}'")
}

/// Whether `resource` is `upstream`'s.
pub(crate) fn ours(resource: &ResourceInfo, upstream: &str) -> bool {
    resource.header().location() == resource_origin(resource.uri(), upstream)
}

/// Whether `prompt`, named `name` at the upstream, is `upstream`'s.
pub(crate) fn our_prompt(prompt: &PromptInfo, name: &str, upstream: &str) -> bool {
    prompt.header().location() == prompt_origin(name, upstream)
}

/// Whether the resource (or template, `template`) of `upstream` at `uri`, served as `name`,
/// may be served beside what `registry` serves; when not, the warning says why.
pub(crate) fn resource(
    registry: &Registry,
    uri: &str,
    name: &str,
    template: bool,
    upstream: &str,
) -> bool {
    let why = control("URI", uri)
        .or_else(|| control("name", name))
        .or_else(|| shadow(registry, uri, template, upstream));
    let Some(why) = why else {
        return true;
    };
    tracing::warn!(
        upstream = %upstream,
        uri = %uri.escape_debug(),
        name = %name.escape_debug(),
        "left out: {why}"
    );
    false
}

/// Whether the prompt of `upstream` served as `name` may be served; when not, the warning
/// says why.
pub(crate) fn prompt(name: &str, upstream: &str) -> bool {
    let Some(why) = control("name", name) else {
        return true;
    };
    tracing::warn!(upstream = %upstream, prompt = %name.escape_debug(), "left out: {why}");
    false
}

/// Why `text` (a resource's or prompt's `what`) cannot be served: a control character in it.
fn control(what: &str, text: &str) -> Option<String> {
    let c = text.chars().find(|c| c.is_control())?;
    Some(format!(
        "its {what} holds the control character {c:?}, which no name or URI may hold"
    ))
}

/// Why the resource (or template) of `upstream` at `uri` cannot be served beside another
/// upstream's in `registry`: a template of another that matches this resource's URI, or a
/// resource of another this template matches. (A URI or template served twice, or two
/// templates that can match one URI, the registry itself refuses.)
fn shadow(registry: &Registry, uri: &str, template: bool, upstream: &str) -> Option<String> {
    let others = registry
        .resources()
        .iter()
        .filter(|other| other.is_template() != template && !ours(other, upstream));
    let clash = match template {
        true => {
            let this = Template::parse(uri).ok()?;
            others
                .into_iter()
                .find(|other| this.matches(other.uri()).is_some())
        }
        false => others.into_iter().find(|other| {
            Template::parse(other.uri()).is_ok_and(|theirs| theirs.matches(uri).is_some())
        }),
    }?;
    let whose = clash.header().location();
    Some(match template {
        true => format!("it matches the URI of {whose}: one URI is served by one upstream"),
        false => format!("{whose} matches its URI: one URI is served by one upstream"),
    })
}

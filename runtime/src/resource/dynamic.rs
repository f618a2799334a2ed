//! [`Resource`]: a resource or resource template as a value, for resources made at run time
//! (another server's, a directory's, a database's). A registry holds both kinds as
//! [`ResourceInfo`](crate::resource::ResourceInfo)s: a `#[resource]`'s static definition and a
//! `Resource` added with [`Registry::add_resource`](crate::Registry::add_resource) differ only
//! in how a read is invoked, and go through the same steps: access by scopes, layers, the
//! engine (timeout, cancellation), the per-call log and its span.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use rmcp::model::{JsonObject, ResourceContents};

use crate::complete::{Candidates, Completion};
use crate::context::CallContext;
use crate::{ToolError, prompt::Role};

/// What a hand-written resource's read returns: its contents, `None` when there is nothing
/// at the URI (the client gets "resource not found", -32002), or an error whose message the
/// client reads.
pub type ResourceFuture =
    Pin<Box<dyn Future<Output = Result<Option<Vec<ResourceContents>>, ToolError>> + Send>>;

/// A resource (a URI) or a resource template (a URI with RFC 6570 `{variables}`): what a
/// client reads about it, and how a read runs. Object-safe: a registry holds
/// `Arc<dyn Resource>`.
///
/// Only [`uri`](Resource::uri), [`name`](Resource::name) and [`read`](Resource::read) must be
/// written; the rest have the defaults of a `#[resource]` without the key. Everything but
/// `read` is read once, when the resource is added to a registry.
///
/// ```
/// use toolsmith::rmcp::model::{JsonObject, ResourceContents};
/// use toolsmith::{CallContext, Registry, resource::Resource, resource::ResourceFuture};
///
/// /// A note by its id, from a template.
/// struct Note;
///
/// impl Resource for Note {
///     fn uri(&self) -> &str { "notes://{id}" }
///     fn name(&self) -> &str { "note" }
///     fn read(&self, uri: &str, variables: JsonObject, _: &CallContext) -> ResourceFuture {
///         let uri = uri.to_owned();
///         Box::pin(async move {
///             let Some(id) = variables.get("id").and_then(|id| id.as_str()) else {
///                 return Ok(None);
///             };
///             Ok(Some(vec![ResourceContents::text(format!("note {id}"), uri)]))
///         })
///     }
/// }
///
/// let registry = Registry::new().with_resource(Note).unwrap();
/// let note = registry.resource_for("notes://7").unwrap();
/// assert!(note.is_template());
/// assert_eq!(note.variables().collect::<Vec<_>>(), ["id"]);
/// // Two resources with one URI: an error naming both.
/// assert!(registry.with_resource(Note).is_err());
/// ```
pub trait Resource: Send + Sync + 'static {
    /// The URI (`config://app`), or the URI template (`notes://{id}`): checked when it is
    /// added.
    fn uri(&self) -> &str;

    /// Its programmatic name.
    fn name(&self) -> &str;

    /// Reads `uri` (this resource's URI, or one the template matched; `variables` holds what
    /// each of its variables matched, as strings). The future must be `'static`.
    fn read(&self, uri: &str, variables: JsonObject, context: &CallContext) -> ResourceFuture;

    /// The variables of its URI template it completes (`completion/complete`): by default
    /// none.
    fn completes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Candidates for its variable `variable` (one [`completes`](Resource::completes) names),
    /// `value` typed so far.
    fn complete<'a>(
        &'a self,
        variable: &'a str,
        value: &'a str,
        completion: &'a Completion,
    ) -> Candidates<'a> {
        let _ = (variable, value, completion);
        Box::pin(std::future::ready(Vec::new()))
    }

    /// A human-readable title.
    fn title(&self) -> Option<&str> {
        None
    }

    /// What it holds, for the model.
    fn description(&self) -> &str {
        ""
    }

    /// The MIME type of its contents.
    fn mime_type(&self) -> Option<&str> {
        None
    }

    /// Who it is for (the `audience` annotation).
    fn audience(&self) -> Vec<Role> {
        Vec::new()
    }

    /// How important it is, from 0.0 to 1.0 (the `priority` annotation; checked when it is
    /// added).
    fn priority(&self) -> Option<f32> {
        None
    }

    /// Icons: `https:` or `data:` URIs (others are left out when it is added).
    fn icons(&self) -> Vec<String> {
        Vec::new()
    }

    /// The OAuth scopes a caller needs to read it, all of them; empty (the default): the
    /// read scope. Each distinct list is kept for the life of the process: give scopes of
    /// your configuration, never ones read from a request or another server.
    fn scopes(&self) -> Vec<String> {
        Vec::new()
    }

    /// How long a read may run; `None`: no limit.
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// Where it comes from, for messages (two resources with one URI name both): by default
    /// its Rust type.
    fn origin(&self) -> String {
        std::any::type_name::<Self>().to_owned()
    }
}

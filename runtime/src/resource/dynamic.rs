//! [`Resource`]: a resource or resource template as a value, for resources made at run time
//! (another server's, a directory's, a database's). A registry holds both kinds as
//! [`ResourceInfo`](crate::resource::ResourceInfo)s: a `#[resource]`'s static definition and a
//! `Resource` added with [`Registry::add_resource`](crate::Registry::add_resource) differ only
//! in how a read is invoked, and go through the same steps: access by scopes, layers, the
//! engine (timeout, cancellation), the per-call log and its span.

use std::future::Future;
use std::pin::Pin;

use rmcp::model::{JsonObject, ResourceContents};

use crate::complete::{Candidates, Completion};
use crate::context::CallContext;
use crate::{ToolError, resource::ResourceDescription};

/// What a hand-written resource's read returns: its contents, `None` when there is nothing
/// at the URI (the client gets "resource not found", -32002), or an error whose message the
/// client reads.
pub type ResourceFuture =
    Pin<Box<dyn Future<Output = Result<Option<Vec<ResourceContents>>, ToolError>> + Send>>;

/// A resource (a URI) or a resource template (a URI with RFC 6570 `{variables}`): what it
/// says of itself ([`describe`](Resource::describe): a [`ResourceDescription`]), and how a
/// read runs ([`read`](Resource::read)). Object-safe: a registry holds `Arc<dyn Resource>`.
/// Its description is read once, when the resource is added to a registry.
///
/// ```
/// use toolsmith::rmcp::model::{JsonObject, ResourceContents};
/// use toolsmith::resource::{Resource, ResourceDescription, ResourceFuture};
/// use toolsmith::{CallContext, Registry};
///
/// /// A note by its id, from a template.
/// struct Note;
///
/// impl Resource for Note {
///     fn describe(&self) -> ResourceDescription {
///         ResourceDescription::new("notes://{id}", "note")
///     }
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
    /// What it says of itself: URI, name, and the rest a `#[resource]` declares. Read once,
    /// when it is added to a registry.
    fn describe(&self) -> ResourceDescription;

    /// Reads `uri` (this resource's URI, or one the template matched; `variables` holds what
    /// each of its variables matched, as strings). The future must be `'static`.
    fn read(&self, uri: &str, variables: JsonObject, context: &CallContext) -> ResourceFuture;

    /// Candidates for its variable `variable` (one its description's
    /// [`completes`](ResourceDescription::completes) names), `value` typed so far: by
    /// default none.
    fn complete<'a>(
        &'a self,
        variable: &'a str,
        value: &'a str,
        completion: &'a Completion,
    ) -> Candidates<'a> {
        let _ = (variable, value, completion);
        Box::pin(std::future::ready(Vec::new()))
    }
}

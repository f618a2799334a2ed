//! With authorization: what a request names (the tool it calls, the resource it reads, the
//! prompt it gets, the task it polls), checked against the scopes of the caller's token.

use std::borrow::Cow;

use axum::response::Response;

use crate::transport::message::Envelope;

/// The params the edge authorizes by: what a request names.
#[derive(serde::Deserialize)]
struct Named<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    uri: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "taskId")]
    task_id: Option<Cow<'a, str>>,
    /// `completion/complete`'s reference: a prompt by name, a resource template by URI.
    #[serde(borrow, rename = "ref")]
    reference: Option<Reference<'a>>,
    /// A call's arguments, for the tool they name (search mode's `call_tool`): read apart,
    /// so that arguments of any shape leave the rest of the params read.
    #[serde(borrow)]
    arguments: Option<&'a serde_json::value::RawValue>,
}

/// The `name` a call's arguments give.
#[derive(serde::Deserialize)]
struct Naming<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
}

/// What `completion/complete` completes an argument of.
#[derive(serde::Deserialize)]
struct Reference<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    uri: Option<Cow<'a, str>>,
}

/// `params.name`, `params.uri` and `params.taskId` of `envelope`, where they are strings.
fn named<'a>(envelope: &'a Envelope<'_>) -> Option<Named<'a>> {
    serde_json::from_str::<Named>(envelope.params?.get()).ok()
}

/// The 403 of a request whose token lacks the scope of what it names: the tool it calls,
/// the resource it reads or subscribes to, the prompt it gets, the prompt or resource
/// template it completes an argument of, or the task it polls,
/// cancels or updates (the scope of the tool that made the task). `call`: the name of the
/// tool a call the fast path decoded calls, and the `name` its arguments give (its params are
/// not read again).
pub(super) async fn authorize(
    guard: &crate::transport::http::guard::Guard,
    caller: &crate::context::Caller,
    envelope: &Envelope<'_>,
    call: Option<(&str, Option<&str>)>,
) -> Result<(), Response> {
    use crate::transport::http::guard::ItemRef;
    let id = || {
        envelope
            .id
            .and_then(|id| serde_json::from_str(id.get()).ok())
    };
    if let Some((tool, named)) = call {
        let target = match named {
            Some(named) => ItemRef::ToolNaming(tool, named),
            None => ItemRef::Tool(tool),
        };
        return match guard.refusal_of(caller, target, id().as_ref()) {
            Some(refused) => Err(refused),
            None => Ok(()),
        };
    }
    let Some(named) = named(envelope) else {
        return Ok(());
    };
    let target = match (envelope.method(), &named) {
        (
            Some("tools/call"),
            Named {
                name: Some(name),
                arguments,
                ..
            },
        ) => match arguments.and_then(|a| serde_json::from_str::<Naming>(a.get()).ok()) {
            Some(Naming {
                name: Some(named), ..
            }) => {
                // (Owned only where the name had escapes: rare, and only for this check.)
                let named: &str = &named;
                return match guard.refusal_of(
                    caller,
                    ItemRef::ToolNaming(name, named),
                    id().as_ref(),
                ) {
                    Some(refused) => Err(refused),
                    None => Ok(()),
                };
            }
            _ => ItemRef::Tool(name),
        },
        (
            Some("prompts/get"),
            Named {
                name: Some(name), ..
            },
        ) => ItemRef::Prompt(name),
        (Some("resources/read" | "resources/subscribe"), Named { uri: Some(uri), .. }) => {
            ItemRef::Resource(uri)
        }
        // A completion needs what getting the prompt, or reading the resource, needs.
        (
            Some("completion/complete"),
            Named {
                reference: Some(reference),
                ..
            },
        ) => match (reference.kind.as_deref(), &reference.name, &reference.uri) {
            (Some("ref/prompt"), Some(name), _) => ItemRef::Prompt(name),
            (Some("ref/resource"), _, Some(uri)) => ItemRef::Resource(uri),
            _ => return Ok(()),
        },
        (
            Some("tasks/get" | "tasks/cancel" | "tasks/update" | "tasks/result"),
            Named {
                task_id: Some(task),
                ..
            },
        ) => {
            return match guard.task_refusal(caller, task, id().as_ref()).await {
                Some(refused) => Err(refused),
                None => Ok(()),
            };
        }
        _ => return Ok(()),
    };
    match guard.refusal_of(caller, target, id().as_ref()) {
        Some(refused) => Err(refused),
        None => Ok(()),
    }
}

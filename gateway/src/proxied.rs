//! One upstream tool as a toolsmith [`Tool`]: what it says of itself (under the upstream's
//! prefix), its hints with the specification's cautious defaults for what it leaves unstated,
//! and a call forwarded to the upstream, its result passed back unchanged.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use toolsmith::{
    CallContext, Hints, Tool, ToolDescription, ToolError, tool::Content, tool::TaskSupport,
    tool::ToolFuture, tool::ToolOutput,
};
use toolsmith::{Progress, context::Caller, context::ClientLog, context::Elicit};

use crate::cache::{Cache, Key};
use crate::identity::Asking;
use crate::link::Link;
use crate::openapi::Endpoint;
use crate::overrides::{Confirmation, Override};
use crate::pool::Pool;
use crate::relay::Downstream;
use crate::reshape::Reshape;

/// How long a read-only idempotent call cut off by a lost upstream waits for it to be back,
/// without a call timeout.
const RETRY_WITHIN: Duration = Duration::from_secs(30);

/// Where a call goes: an MCP upstream's link, the caller's own session of it, or an HTTP
/// API's operation.
#[derive(Clone)]
pub(crate) enum Via {
    Upstream(Arc<Link>),
    PerCaller(Arc<Pool>),
    Api(Endpoint),
}

pub(crate) struct Proxied {
    /// What it says of itself: its name as served (the prefix, then the upstream's name),
    /// the upstream's word, with the overrides' taking its place; its category is the
    /// upstream's name.
    described: ToolDescription,
    /// Its name at the upstream.
    upstream_name: String,
    upstream: Arc<str>,
    via: Via,
    /// Where its answers are kept, when it is read-only and idempotent and its upstream
    /// caches.
    cache: Option<Arc<Cache>>,
    /// How its arguments, reshaped by the overrides, go back to the upstream's.
    reshape: Option<Arc<Reshape>>,
}

impl Proxied {
    /// `tool` served as `served`, with what `corrected` sets taking the place of its word.
    pub(crate) fn new(
        tool: rmcp::model::Tool,
        served: String,
        corrected: Override,
        upstream: Arc<str>,
        via: Via,
        timeout: Option<Duration>,
    ) -> Self {
        let annotations = tool.annotations.as_ref();
        let title = corrected.title.clone().or_else(|| {
            tool.title
                .clone()
                .or_else(|| annotations.and_then(|a| a.title.clone()))
        });
        let said = stated(annotations, &corrected);
        if said[0] == Some(true) && said[1] == Some(true) {
            tracing::warn!(
                upstream = %upstream,
                tool = %tool.name,
                "it says it is read-only and destructive: served as destructive, not read-only"
            );
        }
        let confirm = match corrected.confirm.clone() {
            Some(Confirmation::Ask(true)) => Some(None),
            Some(Confirmation::Question(question)) => Some(Some(question)),
            Some(Confirmation::Ask(false)) | None => None,
        };
        // The upstream's word (a toolsmith server says so in the tool's `_meta`), unless
        // the overrides say otherwise; an HTTP API never asks.
        let upstream_confirms = !matches!(via, Via::Api(_))
            && corrected.upstream_confirms.unwrap_or_else(|| {
                tool.meta
                    .as_ref()
                    .and_then(|meta| meta.get(toolsmith::tool::META_CONFIRMS))
                    == Some(&serde_json::Value::Bool(true))
            });
        let what = match via {
            Via::Upstream(_) | Via::PerCaller(_) => "tool",
            Via::Api(_) => "operation",
        };
        let origin = format!("{what} '{}' of upstream '{upstream}'", tool.name);
        let icons = tool.icons.iter().flatten().map(|icon| icon.src.clone());
        let mut described = ToolDescription::new(
            served,
            tool.description.as_deref().unwrap_or_default(),
            (*tool.input_schema).clone(),
            hints_of(said),
        )
        .with_icons(icons)
        .with_category(upstream.as_ref())
        .with_tags(corrected.tags.unwrap_or_default())
        .with_scopes(corrected.scopes.unwrap_or_default())
        .with_upstream_confirms(upstream_confirms)
        // An MCP upstream may ask the client during a call (to confirm it, say): the
        // question is passed on.
        .with_asks_client(matches!(via, Via::Upstream(_) | Via::PerCaller(_)))
        .with_audience(corrected.only_for.clone().unwrap_or_default())
        .with_origin(origin);
        described.about.title = title;
        described.about.timeout = timeout;
        // Its own `_meta` (an MCP App's `ui`, a vendor's keys), but the protocol's, which
        // are each hop's.
        if let Some(meta) = &tool.meta {
            let mut meta = meta.0.clone();
            meta.retain(|key, _| !reserved(key));
            if !meta.is_empty() {
                described.meta = Some(crate::apps::tool_meta(meta, upstream.as_ref()));
            }
        }
        described.output_schema = tool.output_schema.as_deref().cloned();
        if let Some(question) = confirm {
            described.confirms = true;
            described.confirm_message = question;
        }
        Proxied {
            described,
            upstream_name: tool.name.to_string(),
            upstream,
            via,
            cache: None,
            reshape: None,
        }
    }

    /// Its calls' arguments mapped back by `reshape` before they go (see `reshape.rs`).
    pub(crate) fn reshaped(mut self, reshape: Option<Reshape>) -> Self {
        self.reshape = reshape.map(Arc::new);
        self
    }

    /// Its calls may run as tasks, when the upstream speaks the tasks extension.
    pub(crate) fn tasks(mut self, upstream_speaks_them: bool) -> Self {
        if upstream_speaks_them {
            self.described.task = TaskSupport::Optional;
        }
        self
    }

    /// Its answers kept in `cache`, if it is read-only and idempotent (else unchanged).
    pub(crate) fn cached(mut self, cache: Arc<Cache>) -> Self {
        let hints = self.described.hints;
        if hints.read_only && hints.idempotent {
            self.cache = Some(cache);
        }
        self
    }
}

/// The four hints as stated (read-only, destructive, idempotent, open-world): an override's
/// word, else the upstream's, else unstated (`None`).
pub(crate) fn stated(
    annotations: Option<&rmcp::model::ToolAnnotations>,
    corrected: &Override,
) -> [Option<bool>; 4] {
    let said = |hint: fn(&rmcp::model::ToolAnnotations) -> Option<bool>| annotations.and_then(hint);
    let read_only = corrected.read_only.or(said(|a| a.read_only_hint));
    // An override that makes a tool read-only leaves the upstream's destructiveHint moot.
    let destructive = corrected.destructive.or(if corrected.read_only.is_some() {
        None
    } else {
        said(|a| a.destructive_hint)
    });
    [
        read_only,
        destructive,
        corrected.idempotent.or(said(|a| a.idempotent_hint)),
        corrected.open_world.or(said(|a| a.open_world_hint)),
    ]
}

/// The hints as stated, each unstated one at the specification's default: not read-only,
/// destructive, not idempotent, open-world. A read-only tool is not destructive; one stated
/// both read-only and destructive is taken at its most cautious word: destructive, not
/// read-only (never offered by `--read-only`, confirmed by `--confirm destructive`).
pub(crate) fn hints_of(
    [read_only, destructive, idempotent, open_world]: [Option<bool>; 4],
) -> Hints {
    let read_only = read_only.unwrap_or(false) && destructive != Some(true);
    Hints {
        read_only,
        destructive: !read_only && destructive.unwrap_or(true),
        idempotent: idempotent.unwrap_or(false),
        open_world: open_world.unwrap_or(true),
    }
}

impl Tool for Proxied {
    fn describe(&self) -> ToolDescription {
        self.described.clone()
    }

    fn call(&self, arguments: JsonObject, context: &CallContext) -> ToolFuture {
        let arguments = match &self.reshape {
            Some(reshape) => reshape.apply(arguments),
            None => arguments,
        };
        let link = match &self.via {
            Via::Upstream(link) => link.clone(),
            Via::PerCaller(pool) => return self.call_as_caller(pool.clone(), arguments, context),
            Via::Api(endpoint) => return self.call_api(endpoint.clone(), arguments, context),
        };
        let elicit: Elicit = match context.extract() {
            Ok(elicit) => elicit,
            Err(err) => return Box::pin(async move { Err(err) }),
        };
        let downstream = Arc::new(Downstream::new(
            context.extract().unwrap_or_else(|_| Progress::disabled()),
            context.extract().unwrap_or_else(|_| ClientLog::disabled()),
            elicit,
        ));
        let cached = self.cache.clone().map(|cache| {
            let who = context.extract::<Caller>().map(|c| c.identity().to_owned());
            let key = Key::new(&who.unwrap_or_default(), &self.upstream_name, &arguments);
            (cache, key)
        });
        let upstream = self.upstream.clone();
        let params =
            CallToolRequestParams::new(self.upstream_name.clone()).with_arguments(arguments);
        // Only a call that changes nothing and gives the same answer twice may be sent twice.
        let (hints, timeout) = (self.described.hints, self.described.about.timeout);
        let retry = (hints.read_only && hints.idempotent)
            .then(|| (timeout.unwrap_or(RETRY_WITHIN), params.clone()));
        Box::pin(async move {
            if let Some((cache, key)) = &cached
                && let Some(kept) = cache.get(key)
            {
                return Ok(passed_back(kept));
            }
            let (start, peer) = link.peer()?;
            let relay = link.relay();
            let failed = match relay.call(&peer, params, downstream.clone()).await {
                Ok(result) => {
                    if let Some((cache, key)) = cached {
                        cache.put(key, &result);
                    }
                    return Ok(passed_back(result));
                }
                Err(err) => err,
            };
            let again = retry.filter(|_| Link::lost(&failed));
            if let Some((within, params)) = again
                && let Some(peer) = link.restarted(start, within).await
            {
                tracing::info!(upstream = %upstream, tool = %params.name, "the upstream was lost mid-call: sent once more (read-only, idempotent)");
                return match relay.call(&peer, params, downstream).await {
                    Ok(result) => Ok(passed_back(result)),
                    Err(err) => Err(ToolError::new(crate::told::failed(
                        &upstream,
                        "call, sent twice",
                        &err,
                    ))),
                };
            }
            Err(ToolError::new(crate::told::failed(
                &upstream, "call", &failed,
            )))
        })
    }
}

impl Proxied {
    /// A call in the caller's own session of the upstream (see [`Pool`]): what the
    /// upstream says meanwhile is passed on as for a shared one; never retried.
    fn call_as_caller(
        &self,
        pool: Arc<Pool>,
        arguments: JsonObject,
        context: &CallContext,
    ) -> ToolFuture {
        let elicit: Elicit = match context.extract() {
            Ok(elicit) => elicit,
            Err(err) => return Box::pin(async move { Err(err) }),
        };
        let asking = Asking {
            elicit: Some(elicit.clone()),
            store: context.extract().ok(),
            #[cfg(feature = "mint")]
            issuing: context.extract().ok(),
        };
        let downstream = Arc::new(Downstream::new(
            context.extract().unwrap_or_else(|_| Progress::disabled()),
            context.extract().unwrap_or_else(|_| ClientLog::disabled()),
            elicit,
        ));
        let caller: Caller = context.extract().unwrap_or_default();
        let cached = self.cache.clone().map(|cache| {
            let key = Key::new(caller.identity(), &self.upstream_name, &arguments);
            (cache, key)
        });
        let params =
            CallToolRequestParams::new(self.upstream_name.clone()).with_arguments(arguments);
        Box::pin(async move {
            if let Some((cache, key)) = &cached
                && let Some(kept) = cache.get(key)
            {
                return Ok(passed_back(kept));
            }
            let result = pool.call(&caller, &asking, params, downstream).await?;
            if let Some((cache, key)) = cached {
                cache.put(key, &result);
            }
            Ok(passed_back(result))
        })
    }

    /// A call of an HTTP API's operation: its answer kept when it only reads (and the
    /// upstream caches); never retried.
    fn call_api(
        &self,
        endpoint: Endpoint,
        arguments: JsonObject,
        context: &CallContext,
    ) -> ToolFuture {
        let cached = self.cache.clone().map(|cache| {
            let who = context.extract::<Caller>().map(|c| c.identity().to_owned());
            let key = Key::new(&who.unwrap_or_default(), &self.upstream_name, &arguments);
            (cache, key)
        });
        let timeout = self.described.about.timeout;
        Box::pin(async move {
            if let Some((cache, key)) = &cached
                && let Some(kept) = cache.get(key)
            {
                return Ok(passed_back(kept));
            }
            let result = endpoint.call(arguments, timeout).await?;
            if let Some((cache, key)) = cached {
                cache.put(key, &result);
            }
            Ok(passed_back(result))
        })
    }
}

/// The upstream's result as this tool's: its blocks, structured content and `_meta`
/// unchanged (an error result's kind too), an error result's too (`as_error`). The
/// protocol's own `_meta` keys belong to each hop: they are not passed on.
fn passed_back(result: CallToolResult) -> ToolOutput {
    let mut output = ToolOutput::new();
    for block in result.content {
        output = output.block(Content::Block(block));
    }
    if let Some(structured) = result.structured_content {
        output = output.structured(structured);
    }
    if let Some(mut meta) = result.meta {
        meta.retain(|key, _| !reserved(key));
        if !meta.is_empty() {
            output = output.meta(meta);
        }
    }
    match result.is_error {
        Some(true) => output.as_error(),
        _ => output,
    }
}

/// Whether `_meta` key `key` is the protocol's own: its prefix (before `/`) has a label
/// `modelcontextprotocol` or `mcp` (`io.modelcontextprotocol/related-task`).
fn reserved(key: &str) -> bool {
    key.split_once('/').is_some_and(|(prefix, _)| {
        prefix
            .split('.')
            .any(|label| label == "modelcontextprotocol" || label == "mcp")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ToolAnnotations;

    #[test]
    fn the_protocols_own_meta_keys_are_not_passed_on() {
        assert!(reserved("io.modelcontextprotocol/related-task"));
        assert!(reserved("modelcontextprotocol.io/x"));
        assert!(reserved("dev.mcp/x"));
        assert!(!reserved("dev.toolsmith/error"));
        assert!(!reserved("example.com/trace"));
        assert!(!reserved("progressToken"));
    }

    #[test]
    fn unstated_hints_take_the_cautious_defaults() {
        let hints_of = |annotations: Option<&ToolAnnotations>| {
            super::hints_of(stated(annotations, &Override::default()))
        };
        assert_eq!(hints_of(None), Hints::DEFAULT);
        let mut read = ToolAnnotations::default();
        read.read_only_hint = Some(true);
        let hints = hints_of(Some(&read));
        assert!(hints.read_only && !hints.destructive, "{hints}");
        assert!(!hints.idempotent && hints.open_world, "unstated: {hints}");
        // Read-only and destructive at once: destructive wins.
        read.destructive_hint = Some(true);
        let hints = hints_of(Some(&read));
        assert!(!hints.read_only && hints.destructive, "{hints}");
        let mut additive = ToolAnnotations::default();
        additive.destructive_hint = Some(false);
        additive.open_world_hint = Some(false);
        assert_eq!(hints_of(Some(&additive)), Hints::ADDITIVE.closed_world());
    }

    #[test]
    fn an_override_takes_the_place_of_the_upstreams_word() {
        let mut writes = ToolAnnotations::default();
        writes.read_only_hint = Some(false);
        writes.destructive_hint = Some(false);
        let read = Override {
            read_only: Some(true),
            ..Override::default()
        };
        assert_eq!(stated(Some(&writes), &read), [Some(true), None, None, None]);
        let expected = Hints {
            read_only: true,
            destructive: false,
            idempotent: false,
            open_world: true,
        };
        assert_eq!(hints_of(stated(Some(&writes), &read)), expected);
        let destroys = Override {
            destructive: Some(true),
            idempotent: Some(true),
            ..Override::default()
        };
        assert_eq!(
            hints_of(stated(Some(&writes), &destroys)),
            Hints::DESTRUCTIVE.idempotent()
        );
    }
}

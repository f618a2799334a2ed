//! What a server answers about its tool set, made from one snapshot of its registry: the
//! tools the policy offers (and their `tools/list`, serialized once), the lists of resources,
//! templates and prompts, the cursor scope of its pages. Made again, once, by the first
//! request after the registry changed ([`Catalogs::now`]); every request reads one snapshot
//! through, so a list and its cursor always agree.

#[cfg(feature = "http")]
use std::collections::HashSet;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use arc_swap::ArcSwap;
use rmcp::model::{ListToolsResult, Prompt, Resource, ResourceTemplate, Tool};

use super::tool_search::ToolSearch;
use super::{Confirm, Policy};
use crate::registry::search;
use crate::{Registry, registry::RegistryHandle};

/// What an entry of a list needs of its caller.
pub(crate) type Scopes = &'static [&'static str];

/// One snapshot's answers.
pub(crate) struct Catalog {
    /// The registry it was made from.
    pub(crate) registry: Arc<Registry>,
    /// The tools the policy offers, as `tools/list` sends them.
    pub(crate) offered: Vec<Tool>,
    /// The un-paginated `tools/list` result, serialized once (`None`: it is paginated).
    pub(crate) list_json: Option<Arc<String>>,
    /// The 2026-07-28 list and `server/discover`, serialized on first use.
    pub(crate) per_request_json: PerRequestJson,
    /// Cursors of this list are refused in another (another policy, another set of tools).
    pub(crate) cursor_scope: u64,
    /// A tool offered has an audience: each caller sees its own list (outside search mode).
    pub(crate) per_caller: bool,
    pub(crate) resources: Vec<(Resource, Scopes)>,
    pub(crate) templates: Vec<(ResourceTemplate, Scopes)>,
    pub(crate) prompts: Vec<(Prompt, Scopes)>,
    /// Tools whose input schema names `Mcp-Param-*` headers (SEP-2243): rmcp checks those.
    #[cfg(feature = "http")]
    pub(crate) param_headers: HashSet<String>,
}

impl Catalog {
    fn new(
        registry: Arc<Registry>,
        policy: &Policy,
        confirm: Confirm,
        page_size: usize,
        search: Option<&ToolSearch>,
    ) -> Catalog {
        let allowed = registry.tools().iter().filter(|t| policy.allows(t).is_ok());
        let per_caller = search.is_none() && allowed.clone().any(|t| t.audience().is_some());
        let offered = match search {
            Some(search) => search.listing(&allowed.map(|t| &**t).collect::<Vec<_>>()),
            None => allowed.map(|t| confirm.listed(t)).collect(),
        };
        let (offered, list_json) = serialized(offered, page_size);
        #[cfg(feature = "http")]
        let param_headers = offered
            .iter()
            .filter(|tool| {
                serde_json::to_string(&tool.input_schema)
                    .is_ok_and(|schema| schema.contains("x-mcp-header"))
            })
            .map(|tool| tool.name.to_string())
            .collect();
        let resources = registry.resources();
        Catalog {
            cursor_scope: search::scope_of((
                "tools/list",
                policy,
                confirm,
                search.is_some(),
                registry.fingerprint(),
            )),
            offered,
            per_caller,
            list_json,
            per_request_json: PerRequestJson::default(),
            resources: resources
                .iter()
                .filter_map(|r| Some((r.mcp_resource()?.clone(), r.header().scopes())))
                .collect(),
            templates: resources
                .iter()
                .filter_map(|r| Some((r.mcp_template()?.clone(), r.header().scopes())))
                .collect(),
            prompts: registry
                .prompts()
                .iter()
                .map(|p| (p.mcp_prompt().clone(), p.header().scopes()))
                .collect(),
            #[cfg(feature = "http")]
            param_headers,
            registry,
        }
    }
}

/// The catalog of a server's registry as it is now, shared by all its sessions.
pub(crate) struct Catalogs {
    registry: RegistryHandle,
    policy: Arc<Policy>,
    confirm: Confirm,
    page_size: usize,
    /// Search mode's two tools, listed instead of the tools offered.
    search: Option<Arc<ToolSearch>>,
    current: ArcSwap<Catalog>,
}

impl Catalogs {
    pub(crate) fn new(
        registry: RegistryHandle,
        policy: Arc<Policy>,
        confirm: Confirm,
        page_size: usize,
        search: Option<Arc<ToolSearch>>,
    ) -> Self {
        let first = Catalog::new(
            registry.current(),
            &policy,
            confirm,
            page_size,
            search.as_deref(),
        );
        Catalogs {
            registry,
            policy,
            confirm,
            page_size,
            search,
            current: ArcSwap::from_pointee(first),
        }
    }

    /// The catalog of the registry as it is now: made again when the registry changed since
    /// the last one (by the first request to see it; two at once may both make it).
    pub(crate) fn now(&self) -> Arc<Catalog> {
        arc_swap::Guard::into_inner(self.peek())
    }

    /// [`Catalogs::now`] without counting a reference (a look within one request's step:
    /// nothing shared by every request is written).
    pub(crate) fn peek(&self) -> arc_swap::Guard<Arc<Catalog>> {
        let catalog = self.current.load();
        let registry = self.registry.load();
        if Arc::ptr_eq(&catalog.registry, &registry) {
            return catalog;
        }
        let fresh = Arc::new(Catalog::new(
            Arc::clone(&registry),
            &self.policy,
            self.confirm,
            self.page_size,
            self.search.as_deref(),
        ));
        self.current.store(fresh);
        self.current.load()
    }
}

/// The 2026-07-28 answers serialized once: made on first use, when every setting is known.
#[derive(Default)]
pub(crate) struct PerRequestJson {
    pub(super) list: OnceLock<Arc<String>>,
    pub(super) discover: OnceLock<Arc<String>>,
}

pub(crate) const DEFAULT_LIST_TTL: Duration = Duration::from_secs(300);

/// rmcp's `ListToolsResult` of `tools`, serialized once when one page holds them all (in the
/// shape of revisions before 2026-07-28); the tools come back out of it, not cloned.
pub(super) fn serialized(tools: Vec<Tool>, page_size: usize) -> (Vec<Tool>, Option<Arc<String>>) {
    if tools.len() > page_size {
        return (tools, None);
    }
    let mut result = ListToolsResult::with_all_items(tools);
    result.result_type = None;
    // Sized up front: growing a 100 KB buffer by doubling copies it several times over.
    let mut json = Vec::with_capacity(64 + 512 * result.tools.len());
    let list = serde_json::to_writer(&mut json, &result)
        .ok()
        .and_then(|()| String::from_utf8(json).ok())
        .map(Arc::new);
    (result.tools, list)
}

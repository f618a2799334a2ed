//! `tools/list`: the tools the policy offers, paginated with cursors, and the first page
//! serialized once for the fast paths (kept in the server's catalog, `catalog.rs`, made
//! again when its tool set changes); and the caching hints 2026-07-28 gives it and
//! `server/discover`.

use std::sync::Arc;

use rmcp::model::{CacheScope, DiscoverResult, ListToolsResult, Tool};
use rmcp::{ErrorData, ServerHandler};

use super::Front;
use crate::context::Caller;
use crate::registry::search::{self, SearchError};
use crate::server::catalog::Catalog;

impl Front {
    /// Tool `name` as `tools/list` gives it, when the policy offers it.
    pub(crate) fn listed_tool(&self, name: &str) -> Option<Tool> {
        let tool = self.pipeline.registry.tool(name)?;
        self.pipeline
            .policy
            .allows(&tool)
            .is_ok()
            .then(|| self.pipeline.confirm.listed(&tool))
    }

    /// `tools/list` as every way in answers it: the page `cursor` points at of the tools
    /// `caller` may call (with authorization; else every tool offered), on 2026-07-28
    /// (`per_request`) with its caching hints.
    pub(crate) fn tools_list(
        &self,
        caller: &Caller,
        cursor: Option<&str>,
        per_request: bool,
    ) -> Result<ListToolsResult, ErrorData> {
        #[cfg(feature = "auth")]
        let list = match &self.pipeline.scopes {
            Some(scopes) => self.list_for(scopes, caller, cursor),
            None => self.list_visible(caller, cursor),
        };
        #[cfg(not(feature = "auth"))]
        let list = self.list_visible(caller, cursor);
        match per_request {
            true => list.map(|list| self.with_list_hints(list)),
            false => list,
        }
    }

    /// The first `tools/list` page as a fast path sends it, the result's JSON: serialized
    /// once when it is the same for everyone, made for `caller` with authorization; `None`
    /// when it does not fit on one page (rmcp's path answers, with cursors).
    pub(crate) fn first_page(&self, caller: &Caller, per_request: bool) -> Option<Arc<String>> {
        if self.lists_per_caller() {
            let mut result = self.tools_list(caller, None, per_request).ok()?;
            if result.next_cursor.is_some() {
                return None;
            }
            if !per_request {
                result.result_type = None;
            }
            return serde_json::to_string(&result).ok().map(Arc::new);
        }
        match per_request {
            true => self.cached_per_request_list(),
            false => self.cached_list(),
        }
    }

    /// The `tools/list` page of the tools `caller` may see: every tool offered, but those
    /// whose audience does not admit it (see `tool/audience.rs`).
    fn list_visible(
        &self,
        caller: &Caller,
        cursor: Option<&str>,
    ) -> Result<ListToolsResult, ErrorData> {
        let catalog = self.catalog();
        if !catalog.per_caller {
            return self.list(cursor);
        }
        let visible: Vec<&Tool> = catalog
            .offered
            .iter()
            .filter(|tool| {
                catalog
                    .registry
                    .get(&tool.name)
                    .is_none_or(|info| info.admits(caller))
            })
            .collect();
        self.page(&catalog, visible, cursor)
    }

    pub(crate) fn list(&self, cursor: Option<&str>) -> Result<ListToolsResult, ErrorData> {
        let catalog = self.catalog();
        if cursor.is_none() && catalog.offered.len() <= self.page_size {
            return Ok(ListToolsResult::with_all_items(catalog.offered.clone()));
        }
        self.page(&catalog, catalog.offered.iter().collect(), cursor)
    }

    /// The page of `all` (of `catalog`'s tools) that `cursor` points at. A cursor of another
    /// set of tools (one changed since, or another server's) is refused as invalid: the
    /// client lists again from the start.
    pub(crate) fn page(
        &self,
        catalog: &Catalog,
        all: Vec<&Tool>,
        cursor: Option<&str>,
    ) -> Result<ListToolsResult, ErrorData> {
        let invalid = |_: search::InvalidCursor| {
            ErrorData::invalid_params(SearchError::InvalidCursor.to_string(), None)
        };
        let start = match cursor {
            Some(cursor) => search::decode_cursor(catalog.cursor_scope, cursor).map_err(invalid)?,
            None => 0,
        };
        let (page, next) =
            search::paginate(&all, start, self.page_size, catalog.cursor_scope).map_err(invalid)?;
        let mut result = ListToolsResult::with_all_items(page.into_iter().cloned().collect());
        result.next_cursor = next;
        Ok(result)
    }

    /// How long a client may keep the tool list and `server/discover` (2026-07-28's
    /// `ttlMs`), and who may share it (`cacheScope`): everyone, unless the list depends on
    /// the caller (with authorization, each caller sees the tools it may call).
    pub(crate) fn list_hints(&self) -> (u64, CacheScope) {
        match self.lists_per_caller() {
            true => (self.list_ttl_ms, CacheScope::Private),
            false => (self.list_ttl_ms, CacheScope::Public),
        }
    }

    /// Whether callers may see different tool lists: with authorization (each sees what its
    /// scopes let it call), or when a tool has an audience.
    fn lists_per_caller(&self) -> bool {
        #[cfg(feature = "auth")]
        if self.pipeline.scopes.is_some() {
            return true;
        }
        // A look, not a reference counted: on every `tools/list` of the fast paths.
        self.catalogs.peek().per_caller
    }

    /// `result` with the caching hints of a 2026-07-28 `tools/list`.
    pub(crate) fn with_list_hints(&self, mut result: ListToolsResult) -> ListToolsResult {
        let (ttl, scope) = self.list_hints();
        result.ttl_ms = Some(ttl);
        result.cache_scope = Some(scope);
        result
    }

    /// The `server/discover` result: the server's revisions and capabilities, the same for
    /// every caller.
    pub(crate) fn discover_result(&self) -> DiscoverResult {
        let mut result = DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        );
        result.ttl_ms = self.list_ttl_ms;
        result.cache_scope = CacheScope::Public;
        result
    }

    /// The un-paginated `tools/list` result for 2026-07-28 (with `resultType` and the
    /// caching hints), serialized once, on first use: `None` when the list is paginated.
    fn cached_per_request_list(&self) -> Option<Arc<String>> {
        let catalog = self.catalog();
        let legacy = catalog.list_json.as_ref()?;
        let per_request = catalog.per_request_json.list.get_or_init(|| {
            let (ttl, scope) = self.list_hints();
            // The cache scope as rmcp writes it (a quoted name).
            let scope = serde_json::to_string(&scope).unwrap_or_else(|_| r#""private""#.into());
            // `{"tools":…}` becomes `{"resultType":…,"tools":…}`.
            let head = format!(r#"{{"resultType":"complete","ttlMs":{ttl},"cacheScope":{scope},"#);
            Arc::new(head + &legacy[1..])
        });
        Some(per_request.clone())
    }

    /// The `server/discover` result, serialized once, on first use.
    pub(crate) fn cached_discover(&self) -> Arc<String> {
        let catalog = self.catalog();
        let discover = catalog.per_request_json.discover.get_or_init(|| {
            Arc::new(serde_json::to_string(&self.discover_result()).unwrap_or_default())
        });
        discover.clone()
    }

    /// The `tools/list` result for clients before 2026-07-28 (rmcp's `ListToolsResult`),
    /// serialized once: `None` when the list is paginated.
    fn cached_list(&self) -> Option<Arc<String>> {
        self.catalog().list_json.clone()
    }
}

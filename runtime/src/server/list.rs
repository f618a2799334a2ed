//! `tools/list`: the tools the policy offers, paginated with cursors, and the first page
//! serialized once for the fast paths.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{ListToolsResult, Tool};

use super::adapter::ToolServer;
use crate::registry::search::{self, SearchError};

impl ToolServer {
    pub(super) fn list(&self, cursor: Option<&str>) -> Result<ListToolsResult, ErrorData> {
        if cursor.is_none() && self.offered.len() <= self.page_size {
            return Ok(ListToolsResult::with_all_items(
                self.offered.as_ref().clone(),
            ));
        }
        self.page(self.offered.iter().collect(), cursor)
    }

    /// The page of `all` that `cursor` points at.
    pub(super) fn page(
        &self,
        all: Vec<&Tool>,
        cursor: Option<&str>,
    ) -> Result<ListToolsResult, ErrorData> {
        let invalid = |err: SearchError| ErrorData::invalid_params(err.to_string(), None);
        let start = match cursor {
            Some(cursor) => search::decode_cursor(self.cursor_scope, cursor).map_err(invalid)?,
            None => 0,
        };
        let (page, next) =
            search::paginate(&all, start, self.page_size, self.cursor_scope).map_err(invalid)?;
        let mut result = ListToolsResult::with_all_items(page.into_iter().cloned().collect());
        result.next_cursor = next;
        Ok(result)
    }

    /// The `tools/list` result for clients before 2026-07-28 (rmcp's `ListToolsResult`),
    /// serialized once: `None` when the list is paginated.
    pub(crate) fn cached_list(&self) -> Option<&Arc<String>> {
        self.list_json.as_ref()
    }
}

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

//! What `tools/list` and `server/discover` keep serialized, and for how long clients may keep
//! them. The adapter holds them (`serialized` runs when it is made); `list.rs` answers from them.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::model::{ListToolsResult, Tool};

/// The 2026-07-28 answers serialized once: made on first use, when every setting is known.
#[derive(Default)]
pub(crate) struct ModernJson {
    pub(super) list: OnceLock<Arc<String>>,
    pub(super) discover: OnceLock<Arc<String>>,
}

/// How long clients may keep the tool list and `server/discover` on 2026-07-28 unless
/// [`Server::list_ttl`](crate::Server::list_ttl) says otherwise: 5 minutes.
///
/// ```
/// assert_eq!(toolsmith::DEFAULT_LIST_TTL.as_secs(), 300);
/// ```
pub const DEFAULT_LIST_TTL: Duration = Duration::from_secs(300);

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

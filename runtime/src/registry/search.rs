//! Finding tools by their hints, category, tags and text, one page at a time, with opaque
//! cursors that refuse tampering.

use std::fmt;
use std::hash::{BuildHasher, Hash, RandomState};
use std::sync::OnceLock;

use crate::{Registry, ToolInfo};

/// The page size of a [`Search`] that asks for none. (MCP's `tools/list` pages by
/// [`DEFAULT_TOOLS_LIST_PAGE_SIZE`](crate::DEFAULT_TOOLS_LIST_PAGE_SIZE) instead.)
///
/// ```
/// assert_eq!(toolsmith::DEFAULT_SEARCH_PAGE_SIZE, 50);
/// ```
pub const DEFAULT_SEARCH_PAGE_SIZE: usize = 50;
/// The largest page a [`Search`] returns.
///
/// ```
/// assert!(toolsmith::registry().search(&toolsmith::Search::new().page_size(toolsmith::MAX_SEARCH_PAGE_SIZE)).is_ok());
/// ```
pub const MAX_SEARCH_PAGE_SIZE: usize = 100;

/// A registry search. Every filter is optional; all given filters must match.
///
/// ```
/// use toolsmith::Search;
///
/// let query = Search::new().text("note").read_only(true).category("notes").page_size(10);
/// let page = toolsmith::registry().search(&query).unwrap();
/// assert!(page.tools.len() <= 10);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Search {
    /// Case-insensitive text to find in the name, title or description.
    pub text: Option<String>,
    /// Keep tools whose `readOnlyHint` is this.
    pub read_only: Option<bool>,
    /// Keep tools whose `destructiveHint` is this.
    pub destructive: Option<bool>,
    /// Keep tools whose `idempotentHint` is this.
    pub idempotent: Option<bool>,
    /// Keep tools whose `openWorldHint` is this.
    pub open_world: Option<bool>,
    /// Keep tools in this category.
    pub category: Option<String>,
    /// Keep tools with any of these tags (no filter when empty).
    pub tags: Vec<String>,
    /// Tools per page: 1 to [`MAX_SEARCH_PAGE_SIZE`], default [`DEFAULT_SEARCH_PAGE_SIZE`].
    pub page_size: Option<usize>,
    /// Where to continue: the `next_cursor` of the previous page of the same search.
    pub cursor: Option<String>,
}

macro_rules! setter {
    ($(#[$doc:meta])* $field:ident: bool) => {
        $(#[$doc])*
        pub fn $field(mut self, value: bool) -> Self {
            self.$field = Some(value);
            self
        }
    };
    ($(#[$doc:meta])* $field:ident: text) => {
        $(#[$doc])*
        pub fn $field(mut self, value: impl Into<String>) -> Self {
            self.$field = Some(value.into());
            self
        }
    };
}

impl Search {
    /// A search that matches every tool.
    ///
    /// ```
    /// let all = toolsmith::registry().search(&toolsmith::Search::new()).unwrap();
    /// assert_eq!(all.total, toolsmith::registry().len());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    setter!(
        /// Case-insensitive text to find in the name, title or description.
        ///
        /// ```
        /// let query = toolsmith::Search::new().text("Note");
        /// assert_eq!(query.text.as_deref(), Some("Note"));
        /// ```
        text: text
    );
    setter!(
        /// Filter on `readOnlyHint`.
        ///
        /// ```
        /// assert_eq!(toolsmith::Search::new().read_only(true).read_only, Some(true));
        /// ```
        read_only: bool
    );
    setter!(
        /// Filter on `destructiveHint`.
        ///
        /// ```
        /// assert_eq!(toolsmith::Search::new().destructive(false).destructive, Some(false));
        /// ```
        destructive: bool
    );
    setter!(
        /// Filter on `idempotentHint`.
        ///
        /// ```
        /// assert_eq!(toolsmith::Search::new().idempotent(true).idempotent, Some(true));
        /// ```
        idempotent: bool
    );
    setter!(
        /// Filter on `openWorldHint`.
        ///
        /// ```
        /// assert_eq!(toolsmith::Search::new().open_world(false).open_world, Some(false));
        /// ```
        open_world: bool
    );
    setter!(
        /// Keep tools in this category.
        ///
        /// ```
        /// let query = toolsmith::Search::new().category("notes");
        /// assert_eq!(query.category.as_deref(), Some("notes"));
        /// ```
        category: text
    );
    setter!(
        /// Continue after the page that returned this cursor.
        ///
        /// ```
        /// let query = toolsmith::Search::new().cursor("opaque");
        /// assert_eq!(query.cursor.as_deref(), Some("opaque"));
        /// ```
        cursor: text
    );

    /// Keep tools that have this tag (several calls: any of them).
    ///
    /// ```
    /// let query = toolsmith::Search::new().tag("read").tag("search");
    /// assert_eq!(query.tags, ["read", "search"]);
    /// ```
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.tags.push(tag.into());
        self
    }

    /// Tools per page, 1 to [`MAX_SEARCH_PAGE_SIZE`].
    ///
    /// ```
    /// assert_eq!(toolsmith::Search::new().page_size(20).page_size, Some(20));
    /// ```
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size);
        self
    }

    /// Whether `tool` passes every filter.
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// assert!(toolsmith::Search::new().matches(tool));
    /// # }
    /// ```
    pub fn matches(&self, tool: &ToolInfo) -> bool {
        let hints = tool.hints();
        let hint = |wanted: Option<bool>, actual: bool| wanted.is_none_or(|w| w == actual);
        hint(self.read_only, hints.read_only)
            && hint(self.destructive, hints.destructive)
            && hint(self.idempotent, hints.idempotent)
            && hint(self.open_world, hints.open_world)
            && self
                .category
                .as_deref()
                .is_none_or(|c| tool.category() == Some(c))
            && (self.tags.is_empty() || self.tags.iter().any(|t| tool.tags().contains(&t.as_str())))
            && self
                .text
                .as_deref()
                .is_none_or(|text| text_matches(tool, text))
    }

    /// A fingerprint of the filters (not the page size or cursor): a cursor is valid only for
    /// the search that issued it.
    fn scope(&self) -> u64 {
        let filters = (
            &self.text,
            self.read_only,
            self.destructive,
            self.idempotent,
            self.open_world,
            &self.category,
            &self.tags,
        );
        keys().hash_one(("search", filters))
    }
}

fn text_matches(tool: &ToolInfo, text: &str) -> bool {
    let needle = text.to_lowercase();
    [Some(tool.name()), tool.title(), Some(tool.description())]
        .into_iter()
        .flatten()
        .any(|hay| hay.to_lowercase().contains(&needle))
}

/// One page of search results.
///
/// ```
/// let page = toolsmith::registry().search(&toolsmith::Search::new()).unwrap();
/// assert!(page.tools.len() <= page.total);
/// ```
#[derive(Debug)]
pub struct Page<'r> {
    /// The tools on this page, sorted by name.
    pub tools: Vec<&'r ToolInfo>,
    /// The cursor of the next page, `None` on the last one.
    pub next_cursor: Option<String>,
    /// How many tools match in all pages.
    pub total: usize,
}

/// Why a search was refused.
///
/// ```
/// let err = toolsmith::registry().search(&toolsmith::Search::new().cursor("x")).unwrap_err();
/// assert_eq!(err, toolsmith::SearchError::InvalidCursor);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SearchError {
    /// The page size is 0 or above [`MAX_SEARCH_PAGE_SIZE`].
    PageSize(usize),
    /// The cursor is malformed, tampered with, or from another search.
    InvalidCursor,
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::PageSize(size) => write!(
                f,
                "page size {size} is out of range: ask for 1 to {MAX_SEARCH_PAGE_SIZE} tools per page"
            ),
            SearchError::InvalidCursor => f.write_str(
                "invalid cursor: pass back the nextCursor of the previous page unchanged",
            ),
        }
    }
}

impl std::error::Error for SearchError {}

impl Registry {
    /// One page of the tools matching `query`, sorted by name.
    ///
    /// ```
    /// use toolsmith::Search;
    ///
    /// let first = toolsmith::registry().search(&Search::new().read_only(true)).unwrap();
    /// if let Some(cursor) = first.next_cursor {
    ///     let next = toolsmith::registry().search(&Search::new().read_only(true).cursor(cursor));
    ///     assert!(next.is_ok());
    /// }
    /// ```
    pub fn search(&self, query: &Search) -> Result<Page<'_>, SearchError> {
        let size = query.page_size.unwrap_or(DEFAULT_SEARCH_PAGE_SIZE);
        if size == 0 || size > MAX_SEARCH_PAGE_SIZE {
            return Err(SearchError::PageSize(size));
        }
        let scope = query.scope();
        let start = match &query.cursor {
            Some(cursor) => decode_cursor(scope, cursor)?,
            None => 0,
        };
        let matching: Vec<&ToolInfo> = self.tools().iter().filter(|t| query.matches(t)).collect();
        paginate(&matching, start, size, scope).map(|(tools, next_cursor)| Page {
            tools,
            next_cursor,
            total: matching.len(),
        })
    }
}

/// The page of `items` starting at `start`, and the cursor of the next one.
pub(crate) fn paginate<T: Copy>(
    items: &[T],
    start: usize,
    size: usize,
    scope: u64,
) -> Result<(Vec<T>, Option<String>), SearchError> {
    if start > items.len() {
        return Err(SearchError::InvalidCursor);
    }
    let end = (start + size).min(items.len());
    let next = (end < items.len()).then(|| encode_cursor(scope, end));
    Ok((items[start..end].to_vec(), next))
}

/// Per-process random keys: cursors cannot be forged, and are not meant to outlive the process.
fn keys() -> &'static RandomState {
    static KEYS: OnceLock<RandomState> = OnceLock::new();
    KEYS.get_or_init(RandomState::new)
}

/// A scope for cursors of something other than a [`Search`] (the server's `tools/list`).
pub(crate) fn scope_of(value: impl Hash) -> u64 {
    keys().hash_one(value)
}

pub(crate) fn encode_cursor(scope: u64, offset: usize) -> String {
    let mac = keys().hash_one((scope, offset));
    format!("{offset:x}.{mac:016x}")
}

pub(crate) fn decode_cursor(scope: u64, cursor: &str) -> Result<usize, SearchError> {
    let (offset, mac) = cursor.split_once('.').ok_or(SearchError::InvalidCursor)?;
    let offset = usize::from_str_radix(offset, 16).map_err(|_| SearchError::InvalidCursor)?;
    let mac = u64::from_str_radix(mac, 16).map_err(|_| SearchError::InvalidCursor)?;
    // Only the exact text this process issued is accepted (no leading zeros, no case games).
    if mac != keys().hash_one((scope, offset)) || encode_cursor(scope, offset) != cursor {
        return Err(SearchError::InvalidCursor);
    }
    Ok(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_tampering() {
        let cursor = encode_cursor(7, 50);
        assert_eq!(decode_cursor(7, &cursor), Ok(50));
        assert_eq!(decode_cursor(8, &cursor), Err(SearchError::InvalidCursor));
        let (offset, mac) = cursor.split_once('.').unwrap();
        assert_ne!(offset, "33");
        let forged = format!("33.{mac}");
        assert_eq!(decode_cursor(7, &forged), Err(SearchError::InvalidCursor));
        let padded = format!("0{cursor}");
        assert_eq!(decode_cursor(7, &padded), Err(SearchError::InvalidCursor));
        for junk in ["", ".", "zz.zz", "1", "1.2.3", "ffffffffffffffffffff.0"] {
            assert_eq!(
                decode_cursor(7, junk),
                Err(SearchError::InvalidCursor),
                "{junk:?}"
            );
        }
    }

    #[test]
    fn pages_cover_everything_once() {
        let items: Vec<u32> = (0..7).collect();
        let (first, next) = paginate(&items, 0, 3, 1).unwrap();
        assert_eq!(first, [0, 1, 2]);
        let start = decode_cursor(1, &next.unwrap()).unwrap();
        let (second, next) = paginate(&items, start, 3, 1).unwrap();
        assert_eq!(second, [3, 4, 5]);
        let (last, next) =
            paginate(&items, decode_cursor(1, &next.unwrap()).unwrap(), 3, 1).unwrap();
        assert_eq!((last, next), (vec![6], None));
    }
}

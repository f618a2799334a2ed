//! Finding tools by their hints, category, tags and text, one page at a time, with opaque
//! cursors that refuse tampering.

use std::fmt;

pub(crate) use super::cursor::{InvalidCursor, decode_cursor, paginate, scope_of};
use crate::{Registry, tool::ToolInfo};

pub(crate) const DEFAULT_SEARCH_PAGE_SIZE: usize = 50;
pub(crate) const MAX_SEARCH_PAGE_SIZE: usize = 100;

/// A registry search. Every filter is optional; all given filters must match.
///
/// ```
/// use toolsmith::{Registry, registry::Search};
///
/// /// Find recipes with an ingredient.
/// #[toolsmith::tool(read_only, closed_world, category = "recipes")]
/// fn find_recipes(ingredient: String) -> String {
///     format!("pancakes ({ingredient})")
/// }
///
/// /// Add a recipe with an ingredient list.
/// #[toolsmith::tool(destructive = false, closed_world, category = "recipes")]
/// fn add_recipe(title: String) -> String {
///     title
/// }
///
/// let query = Search::new().text("INGREDIENT").read_only(true).category("recipes").page_size(10);
/// let registry = Registry::from_module(module_path!()).unwrap();
/// let page = registry.search(&query).unwrap();
/// let names: Vec<&str> = page.tools.iter().map(|t| t.name()).collect();
/// assert_eq!(names, ["find_recipes"]);
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
    /// Tools per page: 1 to [`Search::MAX_PAGE_SIZE`], default [`Search::DEFAULT_PAGE_SIZE`].
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
    /// The page size of a search that asks for none (see [`Search::page_size`]): 50. (MCP's
    /// `tools/list` pages by [`Server::DEFAULT_PAGE_SIZE`](crate::Server::DEFAULT_PAGE_SIZE)
    /// instead.)
    ///
    /// ```
    /// use toolsmith::{Registry, registry::Search};
    ///
    /// assert_eq!(Search::DEFAULT_PAGE_SIZE, 50);
    /// let page = Registry::global().search(&Search::new()).unwrap();
    /// assert!(page.tools.len() <= Search::DEFAULT_PAGE_SIZE);
    /// ```
    pub const DEFAULT_PAGE_SIZE: usize = DEFAULT_SEARCH_PAGE_SIZE;

    /// The largest page a search returns: 100; a larger [`Search::page_size`] is an error.
    ///
    /// ```
    /// use toolsmith::{Registry, registry::Search};
    ///
    /// let largest = Search::new().page_size(Search::MAX_PAGE_SIZE);
    /// assert!(Registry::global().search(&largest).is_ok());
    /// let larger = Search::new().page_size(Search::MAX_PAGE_SIZE + 1);
    /// assert!(Registry::global().search(&larger).is_err());
    /// ```
    pub const MAX_PAGE_SIZE: usize = MAX_SEARCH_PAGE_SIZE;

    /// A search that matches every tool.
    ///
    /// ```
    /// let all = toolsmith::Registry::global().search(&toolsmith::registry::Search::new()).unwrap();
    /// assert_eq!(all.total, toolsmith::Registry::global().len());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    setter!(
        /// Case-insensitive text to find in the name, title or description.
        ///
        /// ```
        /// let query = toolsmith::registry::Search::new().text("Note");
        /// assert_eq!(query.text.as_deref(), Some("Note"));
        /// ```
        text: text
    );
    setter!(
        /// Filter on `readOnlyHint`.
        ///
        /// ```
        /// assert_eq!(toolsmith::registry::Search::new().read_only(true).read_only, Some(true));
        /// ```
        read_only: bool
    );
    setter!(
        /// Filter on `destructiveHint`.
        ///
        /// ```
        /// assert_eq!(toolsmith::registry::Search::new().destructive(false).destructive, Some(false));
        /// ```
        destructive: bool
    );
    setter!(
        /// Filter on `idempotentHint`.
        ///
        /// ```
        /// assert_eq!(toolsmith::registry::Search::new().idempotent(true).idempotent, Some(true));
        /// ```
        idempotent: bool
    );
    setter!(
        /// Filter on `openWorldHint`.
        ///
        /// ```
        /// assert_eq!(toolsmith::registry::Search::new().open_world(false).open_world, Some(false));
        /// ```
        open_world: bool
    );
    setter!(
        /// Keep tools in this category.
        ///
        /// ```
        /// let query = toolsmith::registry::Search::new().category("notes");
        /// assert_eq!(query.category.as_deref(), Some("notes"));
        /// ```
        category: text
    );
    setter!(
        /// Continue after the page that returned this cursor.
        ///
        /// ```
        /// let query = toolsmith::registry::Search::new().cursor("opaque");
        /// assert_eq!(query.cursor.as_deref(), Some("opaque"));
        /// ```
        cursor: text
    );

    /// Keep tools that have this tag (several calls: any of them).
    ///
    /// ```
    /// let query = toolsmith::registry::Search::new().tag("read").tag("search");
    /// assert_eq!(query.tags, ["read", "search"]);
    /// ```
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.tags.push(tag.into());
        self
    }

    /// Tools per page, 1 to [`Search::MAX_PAGE_SIZE`] (default [`Search::DEFAULT_PAGE_SIZE`]).
    ///
    /// ```
    /// assert_eq!(toolsmith::registry::Search::new().page_size(20).page_size, Some(20));
    /// ```
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size);
        self
    }

    /// Whether `tool` passes every filter.
    ///
    /// ```
    /// use toolsmith::{Registry, registry::Search};
    ///
    /// /// Find an ingredient in the pantry.
    /// #[toolsmith::tool(read_only, closed_world, tags = ["kitchen", "search"])]
    /// fn find_ingredient(name: String) -> String {
    ///     format!("{name}: top shelf")
    /// }
    ///
    /// let tool = Registry::global().get("find_ingredient").unwrap();
    /// assert!(Search::new().matches(tool));
    /// assert!(Search::new().tag("garden").tag("kitchen").matches(tool));
    /// assert!(!Search::new().tag("garden").matches(tool));
    /// assert!(!Search::new().read_only(false).matches(tool));
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
            && (self.tags.is_empty() || self.tags.iter().any(|t| tool.tags().contains(t)))
            && self
                .text
                .as_deref()
                .is_none_or(|text| text_matches(tool, text))
    }

    /// A fingerprint of the filters (not the page size or cursor): a cursor is valid only for
    /// the search that issued it.
    fn scope(&self, registry: &Registry) -> u64 {
        let filters = (
            &self.text,
            self.read_only,
            self.destructive,
            self.idempotent,
            self.open_world,
            &self.category,
            &self.tags,
        );
        scope_of(("search", filters, registry.fingerprint()))
    }
}

fn text_matches(tool: &ToolInfo, text: &str) -> bool {
    let needle = text.to_lowercase();
    [
        Some(tool.name()),
        tool.header().title(),
        Some(tool.header().description()),
    ]
    .into_iter()
    .flatten()
    .any(|hay| hay.to_lowercase().contains(&needle))
}

/// One page of search results.
///
/// ```
/// use toolsmith::{Registry, registry::Search};
///
/// /// Show the spices.
/// #[toolsmith::tool(read_only, closed_world)]
/// fn show_spices() -> String {
///     "cumin, paprika".into()
/// }
///
/// /// Show the teas.
/// #[toolsmith::tool(read_only, closed_world)]
/// fn show_teas() -> String {
///     "green, black".into()
/// }
///
/// let registry = Registry::from_module(module_path!()).unwrap();
/// let page = registry.search(&Search::new().page_size(1)).unwrap();
/// assert_eq!((page.tools.len(), page.total), (1, 2));
/// assert_eq!(page.tools[0].name(), "show_spices");
/// assert!(page.next_cursor.is_some());
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
/// let err = toolsmith::Registry::global().search(&toolsmith::registry::Search::new().cursor("x")).unwrap_err();
/// assert_eq!(err, toolsmith::registry::SearchError::InvalidCursor);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SearchError {
    /// The page size is 0 or above [`Search::MAX_PAGE_SIZE`].
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

impl From<InvalidCursor> for SearchError {
    fn from(InvalidCursor: InvalidCursor) -> Self {
        SearchError::InvalidCursor
    }
}

impl Registry {
    /// One page of the tools matching `query`, sorted by name.
    ///
    /// ```
    /// use toolsmith::{Registry, registry::Search};
    ///
    /// /// Get the oven's temperature.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn get_oven_temperature() -> u32 {
    ///     180
    /// }
    ///
    /// /// Show the oven's timer.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn show_oven_timer() -> String {
    ///     "12 min".into()
    /// }
    ///
    /// /// Set the oven's temperature.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn set_oven_temperature(celsius: u32) -> u32 {
    ///     celsius
    /// }
    ///
    /// let registry = Registry::from_module(module_path!()).unwrap();
    /// let query = Search::new().read_only(true).page_size(1);
    /// let first = registry.search(&query).unwrap();
    /// assert_eq!((first.tools[0].name(), first.total), ("get_oven_temperature", 2));
    /// let next = registry.search(&query.cursor(first.next_cursor.unwrap())).unwrap();
    /// assert_eq!(next.tools[0].name(), "show_oven_timer");
    /// assert!(next.next_cursor.is_none());
    /// ```
    pub fn search(&self, query: &Search) -> Result<Page<'_>, SearchError> {
        let size = query.page_size.unwrap_or(DEFAULT_SEARCH_PAGE_SIZE);
        if size == 0 || size > MAX_SEARCH_PAGE_SIZE {
            return Err(SearchError::PageSize(size));
        }
        let scope = query.scope(self);
        let start = match &query.cursor {
            Some(cursor) => decode_cursor(scope, cursor)?,
            None => 0,
        };
        let matching: Vec<&ToolInfo> = self
            .tools()
            .iter()
            .map(|t| &**t)
            .filter(|t| query.matches(t))
            .collect();
        paginate(&matching, start, size, scope)
            .map_err(SearchError::from)
            .map(|(tools, next_cursor)| Page {
                tools,
                next_cursor,
                total: matching.len(),
            })
    }
}

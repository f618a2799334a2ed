//! The name of what a call runs (a tool, a resource, a prompt), as its context carries it
//! (its client log's logger, a missing state's message): a `#[tool]`'s is `'static`, one
//! made at run time shared, so that a call of a `#[tool]` counts no reference on it.

use std::ops::Deref;
use std::sync::Arc;

/// The name of what a call runs, as a call carries it (its context, its log line). Compared and hashed as the `str` it is, so that a
/// map keyed by names is looked up by a `&str`.
#[derive(Clone, Debug)]
pub(crate) enum ToolName {
    Static(&'static str),
    Shared(Arc<str>),
}

impl Deref for ToolName {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            ToolName::Static(name) => name,
            ToolName::Shared(name) => name,
        }
    }
}

impl PartialEq for ToolName {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for ToolName {}

impl std::hash::Hash for ToolName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl std::fmt::Display for ToolName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl std::borrow::Borrow<str> for ToolName {
    fn borrow(&self) -> &str {
        self
    }
}

impl From<&'static str> for ToolName {
    fn from(name: &'static str) -> Self {
        ToolName::Static(name)
    }
}

impl From<String> for ToolName {
    fn from(name: String) -> Self {
        ToolName::Shared(name.into())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::ToolName;

    #[test]
    fn a_name_is_found_by_its_str_whichever_way_it_is_held() {
        let names: HashMap<ToolName, u8> = [
            (ToolName::Static("search_notes"), 1),
            (ToolName::from("late_tool".to_owned()), 2),
        ]
        .into_iter()
        .collect();
        assert_eq!(names.get("search_notes"), Some(&1));
        assert_eq!(names.get("late_tool"), Some(&2));
        assert_eq!(ToolName::Static("x"), ToolName::from("x".to_owned()));
    }
}

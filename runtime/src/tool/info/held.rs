//! How a call holds a registered tool and its name without counting references on the fast
//! path: a `#[tool]` of the program's registry lives as long as the program, so it is held by
//! a `'static` reference (a copy, no atomic operation shared by every call of the tool); a
//! tool added at run time is held by an `Arc`.

use std::ops::Deref;
use std::sync::Arc;

use super::ToolInfo;

/// A registered tool, as a registry keeps it and a call holds it.
#[derive(Clone)]
pub(crate) enum ToolRef {
    /// Made once for the life of the program (the registry of every `#[tool]`).
    Kept(&'static Arc<ToolInfo>),
    /// Made at run time: a `Tool` added, or a tool renamed by a prefix.
    Shared(Arc<ToolInfo>),
}

impl ToolRef {
    /// `tool`, kept for the life of the program (each tool of the program's registry, once).
    pub(crate) fn kept(tool: Arc<ToolInfo>) -> ToolRef {
        ToolRef::Kept(Box::leak(Box::new(tool)))
    }

    #[inline]
    pub(crate) fn arc(&self) -> &Arc<ToolInfo> {
        match self {
            ToolRef::Kept(tool) => tool,
            ToolRef::Shared(tool) => tool,
        }
    }
}

impl Deref for ToolRef {
    type Target = ToolInfo;

    #[inline]
    fn deref(&self) -> &ToolInfo {
        self.arc()
    }
}

/// A tool's name as a call carries it (its context, its log line): a `#[tool]`'s is
/// `'static`, one made at run time shared. Compared and hashed as the `str` it is, so that a
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

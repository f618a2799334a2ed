//! How a call holds a registered tool without counting references on the fast path: a
//! `#[tool]` of the program's registry lives as long as the program, so it is held by a
//! `'static` reference (a copy, no atomic operation shared by every call of the tool); a
//! tool added at run time is held by an `Arc`. Its name is held the same way
//! ([`ToolName`](crate::context::ToolName), in the context it names).

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

    /// `tool`, shared by reference count (a registry made at run time).
    pub(crate) fn shared(tool: Arc<ToolInfo>) -> ToolRef {
        ToolRef::Shared(tool)
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

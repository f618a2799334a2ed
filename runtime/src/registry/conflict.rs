//! Two definitions that cannot both be served (two tools or prompts with one name, two
//! resources with one URI, two templates that can match one URI), kept to make an error for
//! each caller.

use crate::Error;

/// Two definitions that cannot both be served: kept to make an error for each caller.
#[derive(Debug)]
pub(crate) struct Conflict {
    /// For two tools: their name (an [`Error::DuplicateTool`]).
    pub(crate) tool: Option<String>,
    pub(crate) what: String,
    pub(crate) first: String,
    pub(crate) second: String,
    pub(crate) fix: &'static str,
}

impl Conflict {
    pub(crate) fn into_error(self) -> Error {
        match self.tool {
            Some(name) => Error::DuplicateTool {
                name,
                first: self.first,
                second: self.second,
            },
            None => Error::Conflict {
                what: self.what,
                first: self.first,
                second: self.second,
                fix: self.fix,
            },
        }
    }
}

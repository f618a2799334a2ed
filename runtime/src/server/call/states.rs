//! The `State<T>` values a tool, a resource or a prompt needs that a server lacks: checked
//! for every item when a server starts (`server/check.rs`), and by a call of a server made
//! without that check (the test client, the `call` command), which is then answered with an
//! error naming the state.

use crate::context::StateMap;
use crate::{Error, tool::ToolInfo};

/// The first `State<T>` that `tool` asks for and `states` lacks, as the error that says
/// where to register it. Cheap: most tools ask for no state at all.
pub(crate) fn missing_state(states: &StateMap, tool: &ToolInfo) -> Option<Error> {
    let key = tool
        .def()?
        .states()
        .find(|key| !states.contains(key.type_id))?;
    Some(Error::MissingState {
        tool: format!("'{}' ({})", tool.name(), tool.described()),
        type_name: key.type_name,
    })
}

/// The first `State<T>` that the parameters of a resource or prompt ask for and `states`
/// lacks.
pub(crate) fn missing_in(
    states: &StateMap,
    params: &[crate::tool::param::ParamDef],
    kind: &str,
    name: &str,
    described: String,
) -> Option<Error> {
    let key = crate::tool::param::states_of(params).find(|key| !states.contains(key.type_id))?;
    Some(Error::MissingState {
        tool: format!("'{name}' ({kind}, {described})"),
        type_name: key.type_name,
    })
}

//! What a server needs before a tool runs: every `State<T>` the tool asks for. `serve` checks
//! every tool at startup and refuses to start without them; the test client and the `call`
//! command skip that check, and a call of a tool whose state is missing is answered with an
//! error result that names the state instead.

use super::Server;
use crate::context::StateMap;
use crate::{Error, Registry, ToolInfo};

impl Server {
    /// The registry, once every tool's `State<T>` needs are met.
    pub(crate) fn checked_registry(&self) -> Result<std::sync::Arc<Registry>, Error> {
        let registry = self.served()?.current();
        let tools = registry
            .tools()
            .iter()
            .find_map(|tool| missing_state(&self.states, tool));
        let resources = || {
            registry.resources().iter().find_map(|r| {
                let def = r.def();
                missing_in(
                    &self.states,
                    def.params,
                    "resource",
                    def.name,
                    r.described(),
                )
            })
        };
        let prompts = || {
            registry.prompts().iter().find_map(|p| {
                let def = p.def();
                missing_in(&self.states, def.params, "prompt", def.name, p.described())
            })
        };
        match tools.or_else(resources).or_else(prompts) {
            Some(missing) => Err(missing),
            None => Ok(registry),
        }
    }
}

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
fn missing_in(
    states: &StateMap,
    params: &[crate::tool::def::ParamDef],
    kind: &str,
    name: &str,
    described: String,
) -> Option<Error> {
    let key = crate::tool::def::states_of(params).find(|key| !states.contains(key.type_id))?;
    Some(Error::MissingState {
        tool: format!("'{name}' ({kind}, {described})"),
        type_name: key.type_name,
    })
}

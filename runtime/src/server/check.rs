//! What a server needs before a tool runs: every `State<T>` the tool asks for. `serve` checks
//! every tool at startup and refuses to start without them; the test client and the `call`
//! command skip that check, and a call of a tool whose state is missing is answered with an
//! error result that names the state instead.

use super::Server;
use super::call::states::{missing_in, missing_state};
use crate::{Error, Registry};

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
                missing_in(
                    &self.states,
                    r.params(),
                    "resource",
                    r.name(),
                    r.described(),
                )
            })
        };
        let prompts = || {
            registry.prompts().iter().find_map(|p| {
                missing_in(&self.states, p.params(), "prompt", p.name(), p.described())
            })
        };
        match tools.or_else(resources).or_else(prompts) {
            Some(missing) => Err(missing),
            None => Ok(registry),
        }
    }
}

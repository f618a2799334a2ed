//! Servers in the test's own process: tools declared in each test module, served to the
//! in-memory test client (`toolsmith::testing`) and rmcp's client over a pipe. Each module
//! serves its own tools (`Registry::from_module(module_path!())`), as a program of its own
//! would.

mod approve;
mod bursts;
mod checked;
mod confirm_with;
mod confirms_listed;
mod context;
mod dynamic;
mod dynamic_items;
mod identity;
mod missing_state;
mod notes;
mod places;
mod search;
mod tasks;
mod testing;
mod testing_asks;
mod tool_search;

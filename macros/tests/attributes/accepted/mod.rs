//! Each module is one accepted form, with a test that calls it as an ordinary function and
//! reads what it registered. Every module registers into the one registry of this binary, so
//! a tool's name is unique across modules, and no test counts the tools of all of them.

mod confirm;
mod content;
mod context;
mod every_key;
mod name_lint_silenced;
mod prompt_forms;
mod resource_forms;
mod types;
mod warning_does_not_stop;

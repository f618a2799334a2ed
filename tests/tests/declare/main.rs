//! What a declaration may be: compile-time diagnostics of `#[tool]`, `#[resource]` and
//! `#[prompt]` (trybuild), the forms they accept, and the declarations that stop startup
//! (two tools with one name, two resources with one URI, overlapping templates).
//!
//! The conflicting declarations are this binary's: its program-wide registry is refused,
//! and each test reads its own module's (`Registry::from_module`).

mod duplicate_resources;
mod duplicates;
mod forms;
mod overlapping_templates;
mod schema_dialect;
mod ui;

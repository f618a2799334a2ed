//! What a declaration may be: the forms `#[tool]`, `#[resource]` and `#[prompt]` accept, and
//! the declarations that stop startup (two tools with one name, two resources with one URI,
//! overlapping templates). Their compile-time diagnostics are the macro crate's
//! (`macros/tests/attributes/`).
//!
//! The conflicting declarations are this binary's: its program-wide registry is refused,
//! and each test reads its own module's (`Registry::from_module`).

mod duplicate_resources;
mod duplicates;
mod forms;
mod overlapping_templates;
mod schema_dialect;

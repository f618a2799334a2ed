//! The attributes' tests: every misuse fails to compile with one precise error (trybuild),
//! every accepted form compiles without a warning and behaves (one module per form).
//!
//! One binary, built with the rest of the workspace's tests: the accepted forms share the
//! build's dependencies, and only the compile-fail cases need a project of their own.
#![deny(warnings)]

mod accepted;
mod diagnostics;

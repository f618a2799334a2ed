//! The command line every server binary gets from `toolsmith::run()` (`commands.rs`, through
//! the notes example), `toolsmith audit` against real servers (`audit.rs`), `toolsmith
//! bundle` (`bundle.rs`), and the README's commands (`readme.rs`).

mod audit;
mod builds;
mod bundle;
mod commands;
mod gateway;
mod readme;

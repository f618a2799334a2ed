//! toolsmith's benchmark: a stdio load generator that measures any MCP server command, the
//! fixture servers it compares (toolsmith, rmcp's macros, FastMCP), and the runner that
//! interleaves them. See BENCHMARKS.md.

pub mod build;
pub mod fixtures;
pub mod http;
pub mod load;
pub mod report;
pub mod revision;
pub mod scale;
pub mod tmdevlab;

//! The fixtures of the MCP conformance suite's server scenarios, written with `#[tool]`,
//! `#[resource]` and `#[prompt]` as a user would: `interop/run` serves them
//! (`serve --http ...`, stateless or with `--sessions`) to `@modelcontextprotocol/conformance`.
//!
//! - [`tools`]: the tools of the `tools-call-*` scenarios (text, image, audio, an embedded
//!   resource, mixed content, logging, progress, an error), `test_reconnection`
//!   (`server-sse-polling`) and `json_schema_2020_12_tool` (`json-schema-2020-12`, which
//!   toolsmith's portable schemas do not pass yet);
//! - [`asking`]: the tools that ask the client during the call (`tools-call-elicitation`,
//!   `elicitation-sep1034-defaults`, `elicitation-sep1330-enums`, `tools-call-sampling`);
//! - [`resources`]: `test://static-text`, `test://static-binary`, the template
//!   `test://template/{id}/data` and `test://watched-resource` (`resources-*`);
//! - [`prompts`]: `test_simple_prompt`, `test_prompt_with_arguments` (whose `arg1`
//!   completes: `completion-complete`), `test_prompt_with_embedded_resource` and
//!   `test_prompt_with_image` (`prompts-*`).
//!
//! `cargo run -p toolsmith-examples --example conformance -- serve --http 127.0.0.1:8000 --sessions`

mod asking;
mod media;
mod prompts;
mod resources;
mod tools;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    toolsmith::Server::new()
        .info("toolsmith-conformance", env!("CARGO_PKG_VERSION"))
        .run()
        .await
}

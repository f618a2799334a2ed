//! The smallest server that acts for its caller: one tool, `whoami`, answering the subject
//! of the access token it was called with. Served with authorization, it is the upstream of
//! the gateway's identity tests (issue #56): what it answers is who the upstream saw, so a
//! test can tell each user's own identity from a shared one.
//!
//! `cargo run -p toolsmith-examples --example whoami -- serve --http 127.0.0.1:8000
//! --auth-issuer ISSUER --auth-jwks ISSUER/jwks` serves it over HTTP; over stdio, and over
//! HTTP without authorization, it answers `anonymous`.

use toolsmith::{context::Caller, tool};

/// Who is calling: the subject (`sub`) of the caller's access token, or `anonymous`.
#[tool(read_only, idempotent, closed_world, title = "Who am I")]
fn whoami(caller: Caller) -> String {
    caller.subject().unwrap_or("anonymous").to_owned()
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    toolsmith::run().await
}

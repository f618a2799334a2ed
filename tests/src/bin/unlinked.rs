//! A binary whose tools sit in a library it never names (the notes example's): the linker
//! drops the library, and the server has no tool.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    toolsmith::run().await
}

//! Helpers shared by the integration tests: an in-memory MCP client connected to this
//! program's tools, and the path of a freshly built example binary.

pub mod asking;
pub mod balance;
pub mod guarded;
pub mod http;
pub mod jwks;
pub mod keys;
pub mod nginx;
pub mod raw;
pub mod recording;
pub mod sniff;

use std::path::PathBuf;
use std::process::Command;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{Peer, RoleClient, ServiceError, ServiceExt};
use serde_json::Value;

/// A client connected in-process (over a tokio duplex) to every tool linked into the test.
pub type Client = RunningService<RoleClient, ()>;

/// The tools, resources and prompts declared in `module` (a test's `module_path!()`) and the
/// modules inside it: what a program of that module alone would serve. A test binary holds
/// many modules' tools (and one of them tools that conflict), so a test serves its own.
pub fn declared_in(module: &str) -> toolsmith::Registry {
    toolsmith::Registry::from_module(module).unwrap_or_else(|err| panic!("{err}"))
}

/// [`declared_in`] `module`, with every tool, resource and prompt of the examples' library
/// (the notes tools and the rest).
pub fn with_examples(module: &str) -> toolsmith::Registry {
    declared_in("toolsmith_examples")
        .merge(declared_in(module))
        .unwrap_or_else(|err| panic!("{err}"))
}

/// A server of [`declared_in`] `module`.
pub fn server_of(module: &str) -> toolsmith::Server {
    toolsmith::Server::with_registry(declared_in(module))
}

/// Connects an rmcp client to `server` over an in-memory pipe.
pub async fn connect(server: toolsmith::Server) -> Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(async move {
        if let Err(err) = server.serve_io(read, write).await {
            eprintln!("server stopped: {err}");
        }
    });
    ().serve(client_end).await.expect("the client connects")
}

/// An rmcp client handler that plays a user who accepts every confirmation: it declares
/// elicitation, and answers each form with `{"confirm": true}`. `asked` keeps each question.
#[derive(Clone, Default)]
pub struct Accepting {
    pub asked: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl rmcp::ClientHandler for Accepting {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut capabilities = rmcp::model::ClientCapabilities::default();
        capabilities.elicitation = Some(Default::default());
        rmcp::model::ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("toolsmith-tests", "0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        if let rmcp::model::ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().unwrap().push(message.clone());
        }
        Ok(
            rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
                .with_content(serde_json::json!({"confirm": true})),
        )
    }
}

/// [`connect`] with a client that accepts every confirmation ([`Accepting`]).
pub async fn connect_accepting(server: toolsmith::Server) -> RunningService<RoleClient, Accepting> {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(async move {
        if let Err(err) = server.serve_io(read, write).await {
            eprintln!("server stopped: {err}");
        }
    });
    Accepting::default()
        .serve(client_end)
        .await
        .expect("the client connects")
}

/// Calls `name` with a JSON object of arguments.
pub async fn call(
    client: &Peer<RoleClient>,
    name: &str,
    args: Value,
) -> Result<CallToolResult, ServiceError> {
    let mut params = CallToolRequestParams::new(name.to_owned());
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    client.call_tool(params).await
}

/// The text of a result's first content block.
pub fn text(result: &CallToolResult) -> &str {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.as_str())
        .unwrap_or("")
}

/// Builds example `name` of the toolsmith-examples package and returns its path.
pub fn example_binary(name: &str) -> PathBuf {
    built("toolsmith-examples", "--example", name)
}

/// [`example_binary`] built with the examples' `full` feature (metrics and traces).
pub fn full_example_binary(name: &str) -> PathBuf {
    built_with(
        "toolsmith-examples",
        "--example",
        name,
        &["--features", "toolsmith-examples/full"],
    )
}

/// Builds target `name` (`kind`: `--example` or `--bin`) of workspace package `package` and
/// returns its path.
pub fn built(package: &str, kind: &str, name: &str) -> PathBuf {
    built_with(package, kind, name, &[])
}

/// [`built`] with more arguments for cargo (`--features ...`).
///
/// The build selects the whole workspace (`--workspace`) and its examples (which turn the
/// dev-dependencies' features on, as tests do), so that features resolve as they do for
/// `cargo test --workspace`: the binary it already built is reused instead of the runtime
/// being compiled again with another feature set (one more build per set, cold).
///
/// It runs in the environment `cargo test` was started in: without the variables cargo sets
/// for the test (`CARGO_MANIFEST_DIR`, `CARGO_PKG_NAME`, ...), which build scripts watch
/// (ring's does): with them, every such crate and all that depends on it would be compiled
/// again, and again by the next `cargo` run outside a test.
pub fn built_with(package: &str, kind: &str, name: &str, extra: &[&str]) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if set_by_cargo_for_a_crate(&key) {
            command.env_remove(key.as_ref());
        }
    }
    let output = command
        .args(["build", "-q", "--workspace", "--examples", kind, name])
        .args(extra)
        .args(["--message-format", "json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "building {name} of {package} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|msg| msg["reason"] == "compiler-artifact" && msg["target"]["name"] == name)
        .filter(|msg| {
            let id = msg["package_id"].as_str().unwrap_or_default();
            id.contains(&format!("/{package}#")) || id.contains(&format!("#{package}@"))
        })
        .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo reported no executable for {name} of {package}"))
}

/// Whether cargo sets variable `key` for the crate it compiles or runs (not for itself).
fn set_by_cargo_for_a_crate(key: &str) -> bool {
    key.starts_with("CARGO_PKG_")
        || key.starts_with("CARGO_BIN_EXE_")
        || key.starts_with("CARGO_MANIFEST_")
        || matches!(
            key,
            "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "CARGO_TARGET_TMPDIR"
                | "CARGO_RUSTC_CURRENT_DIR"
                | "OUT_DIR"
        )
}

/// A server process with piped stdin and stdout, for tests that speak raw JSON-RPC lines.
/// Runs `program` with `args` and stdin closed until it exits (at most 20 s): its exit code
/// and what it wrote to stderr. For servers that must stop at startup.
pub async fn exit_of(program: &str, args: &[&str]) -> (Option<i32>, String) {
    let output = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(20), output)
        .await
        .expect("the program stops within 20 s")
        .expect("the program runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), stderr)
}

pub fn spawn_piped(path: &std::path::Path, stderr: std::process::Stdio) -> tokio::process::Child {
    tokio::process::Command::new(path)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start {}: {err}", path.display()))
}

/// The `initialize` request of a raw client at protocol `version`.
pub fn initialize(id: u64, version: &str) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "raw-test-client", "version": "0"}}})
}

/// A port on 127.0.0.1 that was free a moment ago (for a server told its address up front).
pub fn free_port() -> u16 {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    probe.local_addr().expect("its address").port()
}

/// A memory figure of process `pid` from `/proc/PID/status`, in KiB: `field` is `VmRSS`
/// (resident now) or `VmHWM` (its peak).
pub fn proc_status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

//! A server with misbehaving tools, for the chaos and context tests: panicking, slow, noisy,
//! failing, timed and normal tools, plus every context parameter; and resources, templates,
//! prompts and completions of the same kinds (`fixture/resources_and_prompts.rs`).

#[path = "fixture/resources_and_prompts.rs"]
mod resources_and_prompts;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use toolsmith::{
    Progress, State, ToolError, context::Cancellation, context::ClientLog, tool, tool::Audio,
    tool::Content, tool::EmbeddedResource, tool::Image, tool::ResourceLink, tool::ToolOutput,
};

/// Counts calls, shared by `count`.
#[derive(Default)]
struct Counter(AtomicU64);

/// Cancellations the tools observed, reported by `cancellations`.
#[derive(Default)]
struct Seen(AtomicU64);

/// Adds two numbers.
#[tool(read_only, closed_world)]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Echoes its text.
#[tool(read_only, closed_world)]
async fn echo(text: String) -> String {
    text
}

/// Panics, always.
#[tool(read_only, closed_world)]
fn panicky(n: u32) -> u32 {
    panic!("panicky was called with {n}")
}

/// Fails with an internal error.
#[tool(read_only, closed_world)]
fn failing() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("disk on fire"))
}

/// Refuses on purpose.
#[tool(read_only, closed_world)]
fn refusing() -> Result<String, ToolError> {
    Err(ToolError::new("No, on purpose."))
}

/// Prints `lines` lines to stdout, which must never reach the protocol stream.
#[tool(read_only, closed_world)]
fn noisy(lines: u32) -> u32 {
    for i in 0..lines {
        println!("noise {i} {{\"jsonrpc\": \"not really\"}}");
    }
    lines
}

/// Sleeps `ms` milliseconds (async), stopping early when cancelled.
#[tool(read_only, closed_world)]
async fn slow(ms: u64, cancel: Cancellation, seen: State<Seen>) -> u64 {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(ms)) => ms,
        () = cancel.cancelled() => {
            seen.0.fetch_add(1, Ordering::SeqCst);
            0
        }
    }
}

/// Sleeps `ms` milliseconds in its thread, polling for cancellation.
#[tool(read_only, closed_world)]
fn slow_sync(ms: u64, cancel: Cancellation, seen: State<Seen>) -> u64 {
    for waited in 0..ms / 5 {
        if cancel.is_cancelled() {
            seen.0.fetch_add(1, Ordering::SeqCst);
            return waited * 5;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    ms
}

/// How many cancellations the tools have observed.
#[tool(read_only, closed_world)]
fn cancellations(seen: State<Seen>) -> u64 {
    seen.0.load(Ordering::SeqCst)
}

/// Sleeps far longer than its timeout allows.
#[tool(read_only, closed_world, timeout = "100ms")]
async fn timed(ms: u64) -> u64 {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    ms
}

/// A sync tool past its timeout.
#[tool(read_only, closed_world, timeout = "50ms")]
fn timed_sync(cancel: Cancellation, seen: State<Seen>) -> bool {
    while !cancel.is_cancelled() {
        std::thread::sleep(Duration::from_millis(5));
    }
    seen.0.fetch_add(1, Ordering::SeqCst);
    true
}

/// Reports `steps` progress steps and logs at every level.
#[tool(read_only, closed_world)]
async fn steps(steps: u32, progress: Progress, log: ClientLog) -> u32 {
    log.debug("debug message");
    log.info("info message");
    for step in 1..=steps {
        progress.report(f64::from(step), f64::from(steps), format!("step {step}"));
        tokio::task::yield_now().await;
    }
    log.warning("warning message");
    log.error("error message");
    steps
}

/// Reports progress from a sync tool.
#[tool(read_only, closed_world)]
fn steps_sync(steps: u32, progress: Progress) -> u32 {
    for step in 1..=steps {
        progress.report(f64::from(step), f64::from(steps), format!("step {step}"));
    }
    steps
}

/// Runs `head -c 64` with the server's stdin and says how many bytes it read.
#[tool(read_only, closed_world)]
fn read_stdin_child() -> Result<u64, std::io::Error> {
    let output = std::process::Command::new("head")
        .args(["-c", "64"])
        .stdin(std::process::Stdio::inherit())
        .output()?;
    Ok(output.stdout.len() as u64)
}

/// Starts `sleep 30` in the background with the server's standard streams and returns.
#[tool(read_only, closed_world)]
fn detach() -> Result<u32, std::io::Error> {
    let child = std::process::Command::new("sleep").arg("30").spawn()?;
    Ok(child.id())
}

/// Reports progress every millisecond until cancelled, past its timeout.
#[tool(read_only, closed_world, timeout = "100ms")]
fn timed_progress(progress: Progress, cancel: Cancellation) -> u32 {
    let mut step = 0;
    while !cancel.is_cancelled() {
        step += 1;
        progress.report(f64::from(step), 0.0, "working");
        std::thread::sleep(Duration::from_millis(1));
    }
    // Still reporting after its call ended: nothing of this may reach the client.
    for _ in 0..50 {
        step += 1;
        progress.report(f64::from(step), 0.0, "too late");
        std::thread::sleep(Duration::from_millis(1));
    }
    step
}

/// Keeps its `ClientLog` in a task that logs after `ms` milliseconds, and returns at once.
#[tool(read_only, closed_world)]
async fn log_later(log: ClientLog, ms: u64) -> bool {
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        log.warning("too late");
    });
    true
}

/// Sleeps `ms` milliseconds in its thread and ignores cancellation.
#[tool(read_only, closed_world)]
fn stubborn(ms: u64) -> u64 {
    std::thread::sleep(Duration::from_millis(ms));
    ms
}

/// Blocks its thread for `ms` milliseconds inside an `async fn` (a common mistake).
#[tool(read_only, closed_world)]
async fn block_async(ms: u64) -> u64 {
    std::thread::sleep(Duration::from_millis(ms));
    ms
}

/// Returns a float JSON cannot carry.
#[tool(read_only, closed_world)]
fn overflow() -> f64 {
    let big: f64 = std::hint::black_box(1e308);
    big * 10.0
}

/// Every byte value once, for the content tools.
fn all_bytes() -> Vec<u8> {
    (0..=255).collect()
}

/// An image of every byte value.
#[tool(read_only, closed_world, icon = "https://example.com/image.png")]
fn image() -> Image {
    Image::png(all_bytes())
}

/// An audio clip of every byte value, or a refusal.
#[tool(read_only, closed_world, icons = ["https://example.com/a.svg", "data:image/png;base64,iVBORw0KGgo="])]
fn audio(refuse: bool) -> Result<Audio, ToolError> {
    if refuse {
        return Err(ToolError::new("No audio today."));
    }
    Ok(Audio::wav(all_bytes()))
}

/// A link to a resource.
#[tool(read_only, closed_world)]
fn link() -> ResourceLink {
    ResourceLink::new("file:///tmp/report.csv", "report.csv")
        .mime_type("text/csv")
        .description("The report")
}

/// An embedded text resource and an embedded binary one.
#[tool(read_only, closed_world)]
fn embedded() -> Vec<EmbeddedResource> {
    vec![
        EmbeddedResource::text("file:///tmp/a.md", "# A").mime_type("text/markdown"),
        EmbeddedResource::blob("file:///tmp/a.bin", all_bytes(), "application/octet-stream"),
    ]
}

/// Several blocks of every kind, in order.
#[tool(read_only, closed_world)]
fn mixed() -> Vec<Content> {
    vec![
        Content::from("first"),
        Image::jpeg(all_bytes()).into(),
        Audio::mp3(vec![1, 2, 3]).into(),
        ResourceLink::new("https://example.com/x", "x").into(),
        Content::from("last"),
    ]
}

/// A result built by hand: text, an image and structured content.
#[tool(read_only, closed_world)]
async fn by_hand() -> ToolOutput {
    ToolOutput::new()
        .text("3 rows")
        .block(Image::gif(vec![7]))
        .structured(serde_json::json!({"rows": 3}))
}

/// An image behind an error that is masked.
#[tool(read_only, closed_world)]
fn broken_image() -> Result<Image, std::io::Error> {
    Err(std::io::Error::other("camera on fire"))
}

/// Does nothing and returns nothing (a `()` output).
#[tool(read_only, closed_world)]
fn nothing() {}

/// Counts its calls.
#[tool(destructive = false, closed_world)]
fn count(counter: State<Counter>) -> u64 {
    counter.0.fetch_add(1, Ordering::SeqCst) + 1
}

/// Who is calling: the token's subject and scopes over HTTP with authorization, anonymous
/// otherwise.
#[tool(read_only, closed_world)]
fn whoami(caller: toolsmith::context::Caller) -> serde_json::Value {
    serde_json::json!({
        "subject": caller.subject(),
        "scopes": caller.scopes(),
        "anonymous": caller.is_anonymous(),
        "email": caller.claim("email"),
    })
}

/// Holds its one slot for `ms` milliseconds: at most one call runs at once, and a call
/// waits for the slot at most its timeout.
///
/// # Arguments
/// * `ms` - How long to hold the slot.
#[tool(read_only, closed_world, max_concurrency = 1, timeout = "300ms")]
async fn solo(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("held {ms}ms")
}

/// Wipes a scratch area (nothing, really): a destructive tool, for the rate limit's tests.
///
/// # Arguments
/// * `area` - What to wipe.
#[tool(destructive, idempotent, closed_world)]
fn wipe(area: String) -> String {
    format!("wiped {area}")
}

/// Charges the account: needs the billing scope, whatever the hints.
#[tool(destructive = false, closed_world, scopes = ["billing:admin"])]
fn charge(cents: u64) -> String {
    format!("charged {cents} cents")
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let server = toolsmith::Server::new()
        .state(Counter::default())
        .state(Seen::default())
        .max_line_length(64 * 1024);
    // The differential test runs the same script with the fast path off.
    let fast = std::env::var_os("TOOLSMITH_TEST_NO_FAST_PATH").is_none();
    toolsmith::__private::fast_path(server, fast).run().await
}

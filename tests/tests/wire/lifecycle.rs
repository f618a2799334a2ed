//! How a server process starts and ends, as a launcher or a person at a terminal sees it.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use toolsmith_tests::example_binary;

/// Runs `command` to its end (at most 30 s) with stdin as given.
fn run(mut command: Command, stdin: Stdio) -> Output {
    let mut child = command
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    drop(child.stdin.take()); // a piped stdin is closed at once
    let deadline = Instant::now() + Duration::from_secs(30);
    while child
        .try_wait()
        .expect("the child can be waited on")
        .is_none()
    {
        if Instant::now() > deadline {
            child.kill().ok();
            panic!("the server did not end within 30 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().expect("its output is read")
}

#[test]
fn input_that_ends_before_any_request_is_a_normal_end() {
    let notes = example_binary("notes");
    for (how, stdin) in [
        ("</dev/null", Stdio::null()),
        ("a pipe closed at once (Ctrl-D)", Stdio::piped()),
    ] {
        let output = run(Command::new(&notes), stdin);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "{how}: {:?}\n{stderr}",
            output.status
        );
        assert!(
            output.stdout.is_empty(),
            "{how}: nothing is written to stdout"
        );
        assert!(!stderr.contains("Error"), "{how}: {stderr}");
    }
}

#[test]
fn an_error_returned_from_main_reads_as_a_sentence() {
    let output = run(
        Command::new(env!("CARGO_BIN_EXE_missing_state")),
        Stdio::null(),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("Error: tool 'needy'") && stderr.contains("which was never registered"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("MissingState"),
        "not the Debug derive: {stderr}"
    );
}

#[test]
fn a_binary_whose_tools_are_never_linked_says_why_it_has_none() {
    let binary = env!("CARGO_BIN_EXE_unlinked");
    let served = run(Command::new(binary), Stdio::null());
    let stderr = String::from_utf8_lossy(&served.stderr);
    assert!(served.status.success(), "{stderr}");
    assert!(
        stderr.contains("no tool is registered") && stderr.contains("`use unlinked as _;`"),
        "{stderr}"
    );
    let mut tools = Command::new(binary);
    tools.arg("tools");
    let listed = run(tools, Stdio::null());
    let stderr = String::from_utf8_lossy(&listed.stderr);
    assert!(stderr.contains("no tool is registered"), "{stderr}");
}

//! Which `TOOLSMITH_…` variables the command line reads: every flag's, over HTTP builds; none
//! without `http`.

use clap::CommandFactory;

use super::Cli;

/// The variables the flags of `command` and of its subcommands read.
fn variables(command: &clap::Command) -> Vec<String> {
    let mut names: Vec<String> = command
        .get_arguments()
        .filter_map(|arg| arg.get_env())
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    for sub in command.get_subcommands() {
        names.extend(variables(sub));
    }
    names
}

#[cfg(feature = "http")]
#[test]
fn an_http_build_reads_each_flags_variable() {
    let names = variables(&Cli::command());
    for name in [
        "TOOLSMITH_READ_ONLY",
        "TOOLSMITH_STATE_KEY",
        "TOOLSMITH_TASK_STORE",
        "TOOLSMITH_HTTP",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
}

#[cfg(not(feature = "http"))]
#[test]
fn a_build_without_http_reads_no_variable() {
    let declared = variables(&Cli::command());
    assert!(
        declared.iter().any(|n| n == "TOOLSMITH_READ_ONLY"),
        "{declared:?}"
    );
    let read = variables(&super::without_variables(Cli::command()));
    assert_eq!(read, Vec::<String>::new());
}

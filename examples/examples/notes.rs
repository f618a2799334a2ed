//! The tutorial's notes server: `cargo run -p toolsmith-examples --example notes` serves it
//! over stdio; `... --example notes -- tools` shows its hints, `-- --help` everything else.

use toolsmith_examples::fetch::Fetcher;
use toolsmith_examples::store::Notes;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    // `import_url`'s own flags (`--fetch-allow HOST`, `--fetch-timeout SECS`,
    // `--fetch-proxy URL`); the rest is the server's command line.
    let args = std::env::args_os().map(|a| a.to_string_lossy().into_owned());
    // The same hosts from `NOTES_FETCH_ALLOW` (a setting: `--help` lists it, a bundle asks).
    let allow = std::env::var(Fetcher::ALLOW_VARIABLE).ok();
    let (fetcher, args) = match Fetcher::from_args_and_env(args, allow.as_deref()) {
        Ok(parsed) => parsed,
        Err(err) => {
            eprintln!("{err}");
            return std::process::ExitCode::from(2);
        }
    };
    toolsmith::Server::new()
        .state(Notes::seeded())
        .state(fetcher)
        .own_flags_help(Fetcher::HELP)
        .setting(Fetcher::setting())
        .run_with(args)
        .await
}

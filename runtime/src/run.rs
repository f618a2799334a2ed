//! The entry point of a server binary: [`run`], and [`Server::run`] / [`Server::run_with`]
//! with a server's own settings. The command line (`command_line/`) applied to a server (`server/`).

use std::ffi::OsString;
use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;

use crate::Server;

/// Parses the command line and runs it: with no command (or `serve`) the stdio server, else
/// `tools`, `schema`, `call` or `check`. Call it once in `main`, and return what it returns:
/// the process's exit status.
///
/// Nothing here exits the process. A command that fails (`call` of a failing or refused
/// tool, `check` of an outdated snapshot, a server that cannot start) prints why on stderr
/// and returns status 1; a usage error returns 2 (`--help` and `--version` return 0).
///
/// ```no_run
/// #[tokio::main]
/// async fn main() -> std::process::ExitCode {
///     toolsmith::run().await
/// }
/// ```
pub async fn run() -> ExitCode {
    Server::new().run().await
}

/// The work of [`Server::run_with`], type-erased.
type Running = Pin<Box<dyn Future<Output = ExitCode> + Send>>;

impl Server {
    /// Like [`run`], with this server's settings for `serve` (command-line flags add to its
    /// policy) and for `call`.
    ///
    /// ```no_run
    /// #[tokio::main]
    /// async fn main() -> std::process::ExitCode {
    ///     toolsmith::Server::new().page_size(100).run().await
    /// }
    /// ```
    pub async fn run(self) -> ExitCode {
        self.run_with(std::env::args_os()).await
    }

    /// [`Server::run`] with the given arguments (the first is the program name); returns the
    /// exit status.
    ///
    /// ```no_run
    /// # async fn f() {
    /// let status = toolsmith::Server::new().run_with(["notes", "tools", "--read-only"]).await;
    /// assert_eq!(status, std::process::ExitCode::SUCCESS);
    /// # }
    /// ```
    pub async fn run_with<I, T>(self, args: I) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        self.run_args(args.into_iter().map(Into::into).collect())
            .await
    }

    /// Describes the flags the program's `main` reads itself before it hands the rest to
    /// [`Server::run_with`]: `--help` and `serve --help` show `text` after the server's own,
    /// so that every flag the program accepts is in its help.
    ///
    /// ```no_run
    /// # async fn f() {
    /// let server = toolsmith::Server::new()
    ///     .own_flags_help("Fetching:\n  --fetch-allow <HOST>  a host import_url may reach");
    /// // `notes --help` lists `--fetch-allow` after the server's flags.
    /// server.run_with(["notes", "--help"]).await;
    /// # }
    /// ```
    pub fn own_flags_help(mut self, text: impl Into<String>) -> Self {
        self.own_flags_help = Some(text.into());
        self
    }

    /// Declares a setting the program reads from its environment: `--help` lists it, and
    /// `bundle` asks the user for it when the bundle is installed and passes it to the
    /// server in that variable (see [`Setting`](crate::Setting)).
    ///
    /// ```
    /// use toolsmith::{Server, Setting};
    ///
    /// let server = Server::new()
    ///     .setting(Setting::new("NOTES_TOKEN", "API token", "The notes service's token.").secret());
    /// assert_eq!(server.settings()[0].variable(), "NOTES_TOKEN");
    /// ```
    pub fn setting(mut self, setting: crate::Setting) -> Self {
        self.settings.push(setting);
        self
    }

    /// The settings declared with [`Server::setting`], in order.
    pub fn settings(&self) -> &[crate::Setting] {
        &self.settings
    }

    /// The work of [`Server::run_with`], not generic and type-erased: compiled once, here.
    fn run_args(self, args: Vec<OsString>) -> Running {
        Box::pin(crate::command_line::execute(self, args))
    }
}

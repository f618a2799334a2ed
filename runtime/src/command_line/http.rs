//! `serve`'s Streamable HTTP flags (feature `http`): where and how the server listens, its
//! limits, and, with the `auth` feature, who may call it (`auth.rs`).

use clap::Args;

use super::flag_values::boolish;
use crate::Server;
use crate::server::ServeFuture;

/// Serving over Streamable HTTP.
#[derive(Args, Debug, Default)]
pub(super) struct HttpArgs {
    /// Serve over Streamable HTTP at ADDR (e.g. 127.0.0.1:8000; port 0 picks a free port)
    /// instead of stdio.
    #[arg(long, value_name = "ADDR", env = "TOOLSMITH_HTTP")]
    http: Option<String>,
    /// The path of the MCP endpoint.
    #[arg(
        long,
        value_name = "PATH",
        env = "TOOLSMITH_HTTP_PATH",
        default_value = "/mcp"
    )]
    http_path: String,
    /// The URL clients use, behind a proxy (default: http://ADDR/PATH); its host and origin
    /// are allowed.
    #[arg(long, value_name = "URL", env = "TOOLSMITH_PUBLIC_URL")]
    public_url: Option<String>,
    /// Also allow this Host header (repeatable; comma-separated in the variable).
    #[arg(
        long,
        value_name = "HOST",
        env = "TOOLSMITH_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    allowed_host: Vec<String>,
    /// Also allow this Origin (repeatable; comma-separated in the variable).
    #[arg(
        long,
        value_name = "ORIGIN",
        env = "TOOLSMITH_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    allowed_origin: Vec<String>,
    /// Serve each request on its own, with no session: any replica answers any request
    /// without a shared store, but a client before 2026-07-28 cannot be asked anything
    /// (a confirmation then needs a 2026-07-28 client).
    #[arg(long, value_parser = boolish, env = "TOOLSMITH_STATELESS", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", hide_default_value = true, action = clap::ArgAction::Set, overrides_with = "sessions")]
    stateless: bool,
    /// Keep a session per client (Mcp-Session-Id), the default (--sessions=false is
    /// --stateless; of the two, the last given counts). Replicas share sessions through
    /// --task-store redis://...
    #[arg(long, value_parser = boolish, env = "TOOLSMITH_SESSIONS", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "true", hide_default_value = true, action = clap::ArgAction::Set, overrides_with = "stateless")]
    sessions: bool,
    /// Answer each POST with a server-sent event stream instead of one JSON body.
    #[arg(long, env = "TOOLSMITH_SSE_RESPONSES", value_parser = boolish)]
    sse_responses: bool,
    /// The largest request body accepted, in bytes.
    #[arg(long, value_name = "BYTES", env = "TOOLSMITH_MAX_BODY", default_value_t = crate::Server::DEFAULT_MAX_BODY)]
    max_body: usize,
    /// Seconds a client may take to send a request head; then its connection is closed.
    #[arg(long, value_name = "SECS", env = "TOOLSMITH_HTTP_HEADER_TIMEOUT", value_parser = seconds, default_value = "10")]
    http_header_timeout: std::time::Duration,
    /// Seconds a client may take to send a request body; then it gets 408.
    #[arg(long, value_name = "SECS", env = "TOOLSMITH_HTTP_BODY_TIMEOUT", value_parser = seconds, default_value = "30")]
    http_body_timeout: std::time::Duration,
    /// Seconds a keep-alive connection may stay silent between requests; then it is closed.
    #[arg(long, value_name = "SECS", env = "TOOLSMITH_HTTP_IDLE_TIMEOUT", value_parser = seconds, default_value = "60")]
    http_idle_timeout: std::time::Duration,
    /// The most connections open at once; more wait until one closes (default: 3/4 of the
    /// file-descriptor limit, at most 16384).
    #[arg(long, value_name = "N", env = "TOOLSMITH_MAX_CONNECTIONS", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: Option<u32>,
    /// The most sessions open at once; past it, initialize gets 503.
    #[arg(long, value_name = "N", env = "TOOLSMITH_MAX_SESSIONS", default_value_t = crate::Server::DEFAULT_MAX_SESSIONS as u32, value_parser = clap::value_parser!(u32).range(1..))]
    max_sessions: u32,
    #[cfg(feature = "auth")]
    #[command(flatten)]
    auth: super::auth::AuthArgs,
}

impl HttpArgs {
    /// Sessions, unless `--stateless` (or `--sessions=false`) was the last word.
    fn sessions(&self) -> bool {
        self.sessions && !self.stateless
    }

    /// Serves `server` over HTTP when `--http` is given, else over stdio (where an
    /// authorization flag stops the start: it applies only over HTTP).
    pub(super) fn serve(self, server: Server) -> ServeFuture {
        let sessions = self.sessions();
        let Some(addr) = self.http else {
            #[cfg(feature = "auth")]
            if let Some(flag) = self.auth.given() {
                let error = crate::Error::config(
                    "authorization",
                    format!(
                        "{flag} applies only over HTTP: add --http ADDR to serve over HTTP, or leave the authorization flags out to serve over stdio"
                    ),
                );
                return Box::pin(std::future::ready(Err(error)));
            }
            return server.serve_stdio_boxed();
        };
        let mut server = server
            .http_path(self.http_path)
            .sessions(sessions)
            .sse_responses(self.sse_responses)
            .max_body(self.max_body)
            .http_header_timeout(self.http_header_timeout)
            .http_body_timeout(self.http_body_timeout)
            .http_idle_timeout(self.http_idle_timeout)
            .max_sessions(self.max_sessions as usize);
        if let Some(connections) = self.max_connections {
            server = server.max_connections(connections as usize);
        }
        if let Some(url) = self.public_url {
            server = server.public_url(url);
        }
        for host in self.allowed_host {
            server = server.allowed_host(host);
        }
        for origin in self.allowed_origin {
            server = server.allowed_origin(origin);
        }
        #[cfg(feature = "auth")]
        let server = match self.auth.apply(server) {
            Ok(server) => server,
            Err(err) => return Box::pin(std::future::ready(Err(err))),
        };
        Box::pin(async move { server.serve_http(addr.as_str()).await })
    }
}

/// A duration in seconds, e.g. `10` or `0.5`, more than zero.
fn seconds(value: &str) -> Result<std::time::Duration, String> {
    match value.trim().parse::<f64>() {
        Ok(secs) if secs > 0.0 && secs.is_finite() && secs < 1e9 => {
            Ok(std::time::Duration::from_secs_f64(secs))
        }
        _ => Err("expected a number of seconds above zero, e.g. 10 or 0.5".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::{HttpArgs, seconds};
    use std::time::Duration;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        http: HttpArgs,
    }

    /// Whether these flags serve sessions.
    fn sessions(flags: &[&str]) -> bool {
        use clap::Parser;
        let args = std::iter::once("serve").chain(flags.iter().copied());
        Cli::try_parse_from(args).unwrap().http.sessions()
    }

    #[test]
    fn sessions_are_the_default_and_the_last_mode_flag_counts() {
        assert!(sessions(&[]), "the default");
        assert!(!sessions(&["--stateless"]));
        assert!(!sessions(&["--sessions=false"]));
        assert!(sessions(&["--stateless=false"]));
        assert!(!sessions(&["--sessions", "--stateless"]), "the last one");
        assert!(sessions(&["--stateless", "--sessions"]), "the last one");
    }

    #[test]
    fn timeouts_are_seconds_above_zero() {
        assert_eq!(seconds("10"), Ok(Duration::from_secs(10)));
        assert_eq!(seconds(" 0.5 "), Ok(Duration::from_millis(500)));
        for bad in ["0", "-1", "ten", "", "inf", "NaN"] {
            assert!(
                seconds(bad).unwrap_err().contains("seconds above zero"),
                "{bad:?}"
            );
        }
    }
}

//! `serve`: the flags that choose the serving policy, and serving as they say: over stdio,
//! or, with the `http` feature, over Streamable HTTP when `--http` is given (its flags in
//! `http.rs`); the approvers in `approvers.rs`. Every flag can also be set from a
//! `TOOLSMITH_…` environment variable when the `http` feature is on (containers; a build
//! without it reads none, see `without_variables` in `mod.rs`); the policy's variables apply
//! to `call` too. A switch also takes a value (`--read-only=false`), as a bundle's host
//! passes it (`bundle.rs`).

use clap::Args;

use super::approvers::{Approve, with_approvers};
use crate::server::ServeFuture;
use crate::{Server, server::Policy};

#[derive(Args, Debug, Default)]
pub(super) struct ServeArgs {
    /// Offer only read-only tools; calls to any other tool are refused.
    #[arg(long, value_parser = super::flag_values::boolish, env = "TOOLSMITH_READ_ONLY", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", hide_default_value = true, action = clap::ArgAction::Set)]
    read_only: bool,
    /// Offer no destructive tool; calls to one are refused.
    #[arg(long, value_parser = super::flag_values::boolish, env = "TOOLSMITH_DENY_DESTRUCTIVE", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", hide_default_value = true, action = clap::ArgAction::Set)]
    deny_destructive: bool,
    /// Offer no open-world tool (one that reaches outside the server); calls to one are
    /// refused.
    #[arg(long, value_parser = super::flag_values::boolish, env = "TOOLSMITH_DENY_OPEN_WORLD", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", hide_default_value = true, action = clap::ArgAction::Set)]
    deny_open_world: bool,
    /// Offer only the tools of this category.
    #[arg(long, value_name = "CATEGORY", env = "TOOLSMITH_ONLY_CATEGORY")]
    only_category: Option<String>,
    /// Offer only the tools with this tag.
    #[arg(long, value_name = "TAG", env = "TOOLSMITH_ONLY_TAG")]
    only_tag: Option<String>,
    /// Ask the user before every call of these tools too, besides those that declare
    /// `confirm`: destructive (every destructive tool), write (every tool that is not
    /// read-only), or none.
    #[arg(long, value_name = "destructive|write|none", env = "TOOLSMITH_CONFIRM")]
    confirm: Option<crate::server::Confirm>,
    /// Who decides a confirmation, in order (those after `client` only when the client cannot
    /// ask its user, as an unattended agent's cannot):
    /// `rules=FILE` (approval rules, TOML: allow or deny by tool, tag, hint class, caller and
    /// arguments); `webhook=URL` (an approval service, signed both ways with the secret in
    /// TOOLSMITH_APPROVE_SECRET, base64 of at least 32 bytes; feature `webhook`; decisions by
    /// callback on TOOLSMITH_APPROVE_CALLBACK_ADDR, posted to TOOLSMITH_APPROVE_CALLBACK_URL,
    /// handed between replicas through --task-store); `client`
    /// (the user, who decides what no approver does); `page=ADDR` (an approvals page on its
    /// own listener, opened with the token in TOOLSMITH_APPROVE_TOKEN as `/?token=…`; over
    /// HTTP builds). Repeat the flag, or separate them by commas.
    #[arg(long, value_name = "rules=FILE|webhook=URL|page=ADDR|client", value_parser = super::approvers::approver, value_delimiter = ',', env = "TOOLSMITH_APPROVE")]
    approve: Vec<Approve>,
    /// How long the webhook and the approvals page wait for a decision, in seconds (default
    /// 60); past it the call is refused.
    #[arg(long, value_name = "SECS", value_parser = super::state::ttl, env = "TOOLSMITH_APPROVE_WAIT")]
    approve_wait: Option<std::time::Duration>,
    /// At most so many calls per second per caller, by the kind of tool its hints make it,
    /// e.g. `read=100/s,write=10/s,destructive=1/s`; a call past its rate is refused.
    #[arg(long, value_name = "RATES", env = "TOOLSMITH_RATE_LIMIT")]
    rate_limit: Option<crate::layer::Rates>,
    /// The key that seals a confirmation's request state (2026-07-28), as base64 of at
    /// least 32 bytes; replicas behind one load balancer need the same key. Without it, a
    /// random key of this process.
    #[arg(long, value_name = "BASE64", value_parser = super::state::key, env = "TOOLSMITH_STATE_KEY", hide_env_values = true)]
    state_key: Option<super::state::StateKey>,
    /// How long a confirmation's request state may be answered, in seconds (default 300).
    #[arg(long, value_name = "SECS", value_parser = super::state::ttl, env = "TOOLSMITH_STATE_TTL")]
    state_ttl: Option<std::time::Duration>,
    /// Search mode: tools/list gives two tools, search_tools and call_tool, instead of every
    /// tool (for a client of many tools); every policy applies to the tool a call_tool names.
    #[arg(long, value_parser = super::flag_values::boolish, env = "TOOLSMITH_TOOL_SEARCH", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", hide_default_value = true, action = clap::ArgAction::Set)]
    tool_search: bool,
    /// Tools per tools/list page.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), env = "TOOLSMITH_PAGE_SIZE")]
    page_size: Option<u32>,
    #[cfg(feature = "http")]
    #[command(flatten)]
    http: super::http::HttpArgs,
    #[command(flatten)]
    tasks: super::tasks::TaskArgs,
    #[cfg(feature = "metrics")]
    #[command(flatten)]
    metrics: super::metrics::MetricsArgs,
}

/// Serves `server` as `args` say: over HTTP when `--http` is given, else over stdio; with the
/// listeners of the approvers beside it (`approvers.rs`).
pub(super) fn serve(server: Server, args: ServeArgs) -> ServeFuture {
    let server = with_policy(server, &args);
    #[cfg(feature = "metrics")]
    let server = args.metrics.apply(server);
    #[cfg(feature = "http")]
    {
        let serving = args.http.serve(server);
        super::approvers::with_listeners(&args.approve, serving)
    }
    #[cfg(not(feature = "http"))]
    {
        server.serve_stdio_boxed()
    }
}

/// The confirmation policy of `server` with `args`: the flag (or its variable) when given.
pub(super) fn confirm_of(server: &Server, args: &ServeArgs) -> crate::server::Confirm {
    args.confirm.unwrap_or(server.confirm)
}

/// `server` with its policy narrowed by `args` (flags, or their environment variables), and
/// `args`' page size, confirmation policy and state key.
pub(super) fn with_policy(mut server: Server, args: &ServeArgs) -> Server {
    server.confirm = confirm_of(&server, args);
    if let Some(key) = &args.state_key {
        server = server.state_key(key.bytes().to_vec());
    }
    if let Some(ttl) = args.state_ttl {
        server = server.state_ttl(ttl);
    }
    server = args.tasks.apply(server);
    server = with_approvers(server, &args.approve, &args.tasks, args.approve_wait);
    if let Some(rates) = args.rate_limit {
        server = server.layer(crate::layer::RateLimit::new(rates));
    }
    let policy = std::mem::take(&mut server.policy);
    server.policy = policy.narrowed_by(Policy {
        read_only: args.read_only,
        deny_destructive: args.deny_destructive,
        deny_open_world: args.deny_open_world,
        only_category: args.only_category.clone(),
        only_tag: args.only_tag.clone(),
    });
    if args.tool_search {
        server = server.tool_search(true);
    }
    match args.page_size {
        Some(size) => server.page_size(size as usize),
        None => server,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use clap::Parser;

    use super::ServeArgs;

    #[derive(Parser)]
    struct Serve {
        #[command(flatten)]
        args: ServeArgs,
    }

    #[test]
    fn a_switch_is_on_alone_or_as_its_value_says() {
        let on = Serve::try_parse_from(["serve", "--read-only", "--deny-open-world=yes"]).unwrap();
        assert!(on.args.read_only && on.args.deny_open_world && !on.args.deny_destructive);
        let off = Serve::try_parse_from(["serve", "--read-only=false", "--deny-destructive=0"]);
        let off = off.unwrap();
        assert!(!off.args.read_only && !off.args.deny_destructive);
        assert!(Serve::try_parse_from(["serve", "--read-only=maybe"]).is_err());
    }

    #[test]
    fn the_approvers_wait_is_a_flag_in_seconds() {
        let parsed = Serve::try_parse_from(["serve", "--approve-wait", "5"]).unwrap();
        assert_eq!(parsed.args.approve_wait, Some(Duration::from_secs(5)));
        assert!(Serve::try_parse_from(["serve", "--approve-wait", "0"]).is_err());
        let default = Serve::try_parse_from(["serve"]).unwrap();
        assert_eq!(default.args.approve_wait, None);
    }
}

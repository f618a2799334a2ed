//! The command line every toolsmith server binary gets from [`run`](crate::run): serve (the
//! default), list the tools and their hints, print schemas, call a tool, list resources and
//! prompts, read a resource, get a prompt (`resource_prompt_commands.rs`), check a hint
//! snapshot, audit the tools as a directory review would. (Not the `toolsmith` binary of the
//! `cli/` crate, `toolsmith-cli`, which audits any server and runs the gateway.)

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::{Value, json};

mod approvers;
mod audit;
#[cfg(feature = "auth")]
mod auth;
#[cfg_attr(not(feature = "bundle"), allow(dead_code))]
mod bundle;
#[cfg(feature = "signin")]
mod consents;
mod flag_values;
mod grants;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "metrics")]
mod metrics;
mod nginx;
mod resource_prompt_commands;
mod serve;
#[cfg(feature = "signin")]
mod signin;
mod state;
mod tasks;
#[cfg(test)]
mod tests;

use crate::registry::snapshot;
use crate::server::{empty_registry_hint, executable_name};
use crate::{
    Error, Registry, Server, registry::Search, registry::SearchError, tool::ScopeNames,
    tool::ToolInfo,
};
use serve::ServeArgs;

#[derive(Parser, Debug)]
#[command(
    about = "An MCP server built with toolsmith. With no command, serves its tools over stdio.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve the tools over stdio (the default), or over HTTP with --http.
    Serve(Box<ServeArgs>),
    /// Show every tool's hints as a table (or JSON).
    Tools(ToolsArgs),
    /// Print the tools/list JSON (and the prompts'), or one tool's or prompt's.
    Schema {
        /// The tool or prompt to show; everything when left out.
        name: Option<String>,
    },
    /// Call a tool in-process, through the same dispatch as the server.
    Call {
        /// The tool to call.
        name: String,
        /// The arguments, as a JSON object.
        #[arg(long, default_value = "{}")]
        args: String,
        /// Confirm the call yourself, for a tool that asks the user before every call.
        #[arg(long)]
        yes: bool,
    },
    /// Show every resource and resource template (or as JSON).
    Resources {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Show every prompt and its arguments (or as JSON).
    Prompts {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Read a resource in-process, through the same pipeline as the server.
    Read {
        /// The URI to read, e.g. notes://1.
        uri: String,
    },
    /// Get a prompt's messages in-process, through the same pipeline as the server.
    Prompt {
        /// The prompt.
        name: String,
        /// The arguments, as a JSON object of strings.
        #[arg(long, default_value = "{}")]
        args: String,
    },
    /// Compare the tools' hints and titles with a committed snapshot file.
    Check {
        /// The snapshot file.
        file: std::path::PathBuf,
        /// Write the current hints to FILE instead of comparing.
        #[arg(long)]
        write: bool,
    },
    /// Audit the tools as a directory review would (hints, names, descriptions, schemas,
    /// icons): the checks of `toolsmith audit`, in-process. Calls no tool.
    Audit(AuditArgs),
    /// Build an MCP Bundle (.mcpb) of this server, which Claude Desktop installs in one
    /// click, and the server.json the MCP registry lists it by (feature `bundle`).
    Bundle(bundle::BundleArgs),
    /// List or revoke the approvals the servers remembered in their shared task store
    /// (`grants list`, `grants revoke ID…`, `grants revoke --tool TOOL`).
    Grants(grants::GrantsArgs),
    /// List or revoke the consents users asked the sign-in to remember, in the servers'
    /// shared task store (`consents list`, `consents revoke ID…`).
    #[cfg(feature = "signin")]
    Consents(consents::ConsentsArgs),
}

/// `audit`'s arguments: the report's options. A server audits its own tools only; a command
/// after `--` (another server) is refused with the way to audit it.
#[derive(Args, Debug)]
struct AuditArgs {
    #[command(flatten)]
    options: toolsmith_audit::Options,
    #[arg(last = true, hide = true)]
    other: Vec<String>,
}

#[derive(Args, Debug)]
struct ToolsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Print an nginx `map` block instead of a table: it sets `$mcp_pool` to `destructive`
    /// when a request's `Mcp-Name` header (MCP 2026-07-28) names a destructive tool (of those
    /// the other filters keep), else to `safe`; route on it, e.g. to a stricter pool.
    #[arg(long, conflicts_with_all = ["json", "read_only"])]
    nginx_map: bool,
    /// Only read-only tools.
    #[arg(long)]
    read_only: bool,
    /// Only destructive tools.
    #[arg(long)]
    destructive: bool,
    /// Only open-world tools (those that reach outside the server).
    #[arg(long)]
    open_world: bool,
    /// Only tools of this category.
    #[arg(long, value_name = "CATEGORY")]
    category: Option<String>,
    /// Only tools with this tag.
    #[arg(long, value_name = "TAG")]
    tag: Option<String>,
    /// Only tools whose name, title or description contains TEXT (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    search: Option<String>,
    /// Show the CONFIRM column under this confirmation policy (as `serve --confirm`).
    #[arg(long, value_name = "destructive|write|none")]
    confirm: Option<crate::server::Confirm>,
}

/// Parses `args` (the first is the program name) and runs the command on `server`: with no
/// command (or `serve`) the server, else `tools`, `schema`, `call`, `check` or `audit`. Returns the
/// process's exit status (see [`run`](crate::run)).
pub(crate) async fn execute(server: Server, args: Vec<OsString>) -> ExitCode {
    let after = [
        server.own_flags_help.clone(),
        crate::setting::help(&server.settings),
    ];
    let after: Vec<String> = after.into_iter().flatten().collect();
    let after = (!after.is_empty()).then(|| after.join("\n\n"));
    let cli = match parse(args, after.as_deref()) {
        Ok(cli) => cli,
        Err(err) => {
            // Help, the version, or a usage error (status 2), as clap words them.
            let _ = err.print();
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
        }
    };
    // Listing, schemas, snapshots and calls of other tools need no state (`check` in
    // CI runs without a database); serving needs every tool's.
    let checked = if matches!(cli.command, None | Some(Command::Serve(_))) {
        server.checked_registry().map(drop)
    } else {
        server.served().map(drop)
    };
    let registry = match checked.and_then(|_| server.served()) {
        Ok(handle) => handle.current(),
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    };
    let registry: &Registry = &registry;
    let outcome = match cli.command {
        None => serve::serve(server, cli.serve).await.map(|()| 0),
        Some(Command::Serve(args)) => serve::serve(server, *args).await.map(|()| 0),
        Some(Command::Tools(args)) => {
            let confirm = args
                .confirm
                .unwrap_or_else(|| serve::confirm_of(&server, &cli.serve));
            tools(registry, args, &server.scope_names, confirm)
        }
        Some(Command::Schema { name }) => schema(registry, name.as_deref()),
        Some(Command::Call { name, args, yes }) => {
            // The serving policy of the environment (`TOOLSMITH_READ_ONLY`, ...)
            // applies to `call` as it does to the server.
            let server = serve::with_policy(server, &cli.serve);
            call(&server, registry, &name, &args, yes).await
        }
        Some(Command::Resources { json }) => {
            resource_prompt_commands::resources(registry, json, &server.scope_names)
        }
        Some(Command::Prompts { json }) => {
            resource_prompt_commands::prompts(registry, json, &server.scope_names)
        }
        Some(Command::Read { uri }) => resource_prompt_commands::read(&server, &uri).await,
        Some(Command::Prompt { name, args }) => {
            resource_prompt_commands::prompt(&server, &name, &args).await
        }
        Some(Command::Bundle(args)) => {
            let confirm = serve::confirm_of(&server, &cli.serve);
            bundle::bundle(&server, registry, confirm, args)
        }
        Some(Command::Check { file, write }) => {
            let confirm = serve::confirm_of(&server, &cli.serve);
            check(registry, &file, write, &server.scope_names, confirm)
        }
        Some(Command::Grants(args)) => grants::grants(args).await,
        #[cfg(feature = "signin")]
        Some(Command::Consents(args)) => consents::consents(args).await,
        Some(Command::Audit(AuditArgs { options, other })) => match other.first() {
            Some(command) => {
                eprintln!(
                    "`{} audit` audits this server's own tools, not `{command}`: to audit another server, run `toolsmith audit -- {}` (the toolsmith CLI: `cargo install toolsmith-cli`)",
                    executable_name(),
                    other.join(" ")
                );
                Ok(2)
            }
            None => audit::audit(registry, &options),
        },
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("{err}");
            ExitCode::FAILURE
        }
    }
}

/// The command line of `args`; `own`: the help of the program's own flags and settings, shown
/// after the server's in `--help` and `serve --help`.
fn parse(args: Vec<OsString>, own: Option<&str>) -> Result<Cli, clap::Error> {
    let name = executable_name();
    let version = crate::Registry::try_global()
        .ok()
        .and_then(|r| r.main_package())
        .map_or("0.0.0", |(_, version)| version);
    let mut command = Cli::command()
        .name(name.clone())
        .bin_name(name)
        .version(version);
    if let Some(own) = own {
        command = command
            .after_help(own.to_owned())
            .mut_subcommand("serve", |serve| serve.after_help(own.to_owned()));
    }
    #[cfg(not(feature = "http"))]
    let command = without_variables(command);
    let matches = command.try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

/// `command` reading no `TOOLSMITH_…` variable, nor showing one in its help: a build without
/// `http` takes its flags from the command line only (the variables are for containers,
/// which serve over HTTP). Each flag names its variable once, for every build.
#[cfg(not(feature = "http"))]
fn without_variables(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| arg.env(None::<&'static str>))
        .mut_subcommands(without_variables)
}

fn tools(
    registry: &Registry,
    args: ToolsArgs,
    names: &ScopeNames,
    confirm: crate::server::Confirm,
) -> Result<u8, Error> {
    let mut query = Search::new().page_size(Search::MAX_PAGE_SIZE);
    query.read_only = args.read_only.then_some(true);
    query.destructive = args.destructive.then_some(true);
    query.open_world = args.open_world.then_some(true);
    query.category = args.category;
    query.tags = args.tag.into_iter().collect();
    query.text = args.search;
    let tools = match all_matching(registry, query) {
        Ok(tools) => tools,
        Err(err) => {
            eprintln!("{err}");
            return Ok(2);
        }
    };
    if registry.is_empty() {
        eprintln!("{}", empty_registry_hint());
    }
    let mut out = std::io::stdout().lock();
    if args.nginx_map {
        match nginx::map_block(&tools, &executable_name()) {
            Ok(block) => write!(out, "{block}")?,
            Err(err) => {
                eprintln!("{err}");
                return Ok(1);
            }
        }
    } else if args.json {
        let rows: Vec<Value> = tools.iter().map(|t| tool_json(t, names, confirm)).collect();
        writeln!(out, "{}", pretty(&Value::Array(rows)))?;
    } else {
        write!(out, "{}", table(&tools, names, confirm))?;
    }
    Ok(0)
}

/// Every tool `query` matches, over all its pages; or why the search was refused.
fn all_matching(registry: &Registry, mut query: Search) -> Result<Vec<&ToolInfo>, SearchError> {
    let mut tools = Vec::new();
    loop {
        let page = registry.search(&query)?;
        tools.extend(page.tools);
        match page.next_cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => return Ok(tools),
        }
    }
}

fn tool_json(tool: &ToolInfo, names: &ScopeNames, confirm: crate::server::Confirm) -> Value {
    let hints = tool.hints();
    json!({
        "name": tool.name(),
        "title": tool.header().title(),
        "readOnly": hints.read_only,
        "destructive": hints.destructive,
        "idempotent": hints.idempotent,
        "openWorld": hints.open_world,
        "confirm": confirm.asks(tool),
        "upstreamConfirms": tool.upstream_confirms(),
        "task": match tool.task() {
            crate::tool::TaskSupport::Never => Value::Null,
            task => task.as_str().into(),
        },
        "category": tool.category(),
        "tags": tool.tags(),
        "scopes": names.required(tool).scopes(),
    })
}

/// Who asks the user before a call of `tool` under `confirm`, as the CONFIRM column says it:
/// `yes` (this server), `upstream` (only the server its calls are sent on to), `both`, `no`.
fn confirmed(tool: &ToolInfo, confirm: crate::server::Confirm) -> &'static str {
    match (confirm.asks(tool), tool.upstream_confirms()) {
        (true, false) => "yes",
        (true, true) => "both",
        (false, true) => "upstream",
        (false, false) => "no",
    }
}

/// The annotation matrix as an aligned table.
fn table(tools: &[&ToolInfo], names: &ScopeNames, confirm: crate::server::Confirm) -> String {
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut rows = vec![
        [
            "NAME",
            "TITLE",
            "READ-ONLY",
            "DESTRUCTIVE",
            "IDEMPOTENT",
            "OPEN-WORLD",
            "CONFIRM",
            "TASK",
            "CATEGORY",
            "SCOPE",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for tool in tools {
        let h = tool.hints();
        rows.push(vec![
            tool.name().to_owned(),
            tool.header().title().unwrap_or("-").to_owned(),
            yes(h.read_only).to_owned(),
            yes(h.destructive).to_owned(),
            yes(h.idempotent).to_owned(),
            yes(h.open_world).to_owned(),
            confirmed(tool, confirm).to_owned(),
            tool.task().as_str().to_owned(),
            tool.category().unwrap_or("-").to_owned(),
            names.required(tool).to_string(),
        ]);
    }
    toolsmith_audit::aligned(&rows)
}

fn schema(registry: &Registry, name: Option<&str>) -> Result<u8, Error> {
    let prompt_json = |p: &crate::prompt::PromptInfo| {
        let mut value = serde_json::to_value(p.mcp_prompt()).unwrap_or_default();
        value["argumentsSchema"] = Value::Object(p.arguments_schema().clone());
        value
    };
    let value = match name {
        None => {
            let mut all = json!({ "tools": registry.tools().iter().map(|t| t.mcp_tool()).collect::<Vec<_>>() });
            if !registry.prompts().is_empty() {
                all["prompts"] = registry.prompts().iter().map(prompt_json).collect();
            }
            all
        }
        Some(name) => match (registry.get(name), registry.prompt(name)) {
            (Some(tool), _) => {
                serde_json::to_value(tool.mcp_tool()).map_err(|err| Error::Encode(err.into()))?
            }
            (None, Some(prompt)) => prompt_json(prompt),
            (None, None) => return Ok(no_such_tool(registry, name)),
        },
    };
    writeln!(std::io::stdout().lock(), "{}", pretty(&value))?;
    Ok(0)
}

fn no_such_tool(registry: &Registry, name: &str) -> u8 {
    let known: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    eprintln!(
        "no tool is named '{name}'; the tools are: {}",
        known.join(", ")
    );
    1
}

async fn call(
    server: &Server,
    registry: &Registry,
    name: &str,
    args: &str,
    yes: bool,
) -> Result<u8, Error> {
    // The real reason behind a masked failure is logged, to stderr.
    crate::logging::init();
    let arguments = match serde_json::from_str::<Value>(args) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            eprintln!("--args must be a JSON object, e.g. --args '{{\"query\": \"milk\"}}'");
            return Ok(2);
        }
        Err(err) => {
            eprintln!("--args is not valid JSON: {err}");
            return Ok(2);
        }
    };
    let Some(tool) = registry.get(name) else {
        return Ok(no_such_tool(registry, name));
    };
    if server.confirm.asks(tool) && !yes {
        eprintln!(
            "tool '{name}' asks the user before every call: add --yes to confirm this call yourself"
        );
        return Ok(1);
    }
    let result = server.call_local(name, arguments, yes).await?;
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    if result.is_error == Some(true) {
        eprintln!("{}", text.join("\n"));
        return Ok(1);
    }
    let mut out = std::io::stdout().lock();
    match &result.structured_content {
        Some(value) => writeln!(out, "{}", pretty(value))?,
        None => {
            for block in text {
                writeln!(out, "{block}")?;
            }
        }
    }
    Ok(0)
}

fn check(
    registry: &Registry,
    file: &std::path::Path,
    write: bool,
    names: &ScopeNames,
    confirm: crate::server::Confirm,
) -> Result<u8, Error> {
    let tools: Vec<&ToolInfo> = registry.tools().iter().map(|t| &**t).collect();
    let mut current = snapshot::render(&tools, names, &|tool| confirm.asks(tool));
    current.push_str(&snapshot::render_items(
        registry.resources(),
        registry.prompts(),
        names,
    ));
    if write {
        std::fs::write(file, current)?;
        println!(
            "wrote the hints of {} tools{} to {}",
            registry.len(),
            items_counted(registry),
            file.display()
        );
        return Ok(0);
    }
    let committed = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(err) => {
            eprintln!(
                "cannot read the snapshot {}: {err}\ncreate it with `{} check --write {}`",
                file.display(),
                executable_name(),
                file.display()
            );
            return Ok(2);
        }
    };
    match snapshot::diff(&committed, &current) {
        Err(why) => {
            eprintln!(
                "{} is not a hint snapshot: {why}\nreview it, or write it again with `{} check --write {}`",
                file.display(),
                executable_name(),
                file.display()
            );
            Ok(2)
        }
        Ok(None) => {
            println!(
                "{}: the hints of {} tools{} match",
                file.display(),
                registry.len(),
                items_counted(registry)
            );
            Ok(0)
        }
        Ok(Some(report)) => {
            eprintln!(
                "{} is out of date: {}.\n{}review the changes, then run `{} check --write {}`",
                file.display(),
                report.headline,
                report.text,
                executable_name(),
                file.display()
            );
            Ok(1)
        }
    }
}

/// `, 2 resources and 1 prompt`, when there are any.
fn items_counted(registry: &crate::Registry) -> String {
    let (resources, prompts) = (registry.resources().len(), registry.prompts().len());
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    match (resources, prompts) {
        (0, 0) => String::new(),
        (r, 0) => format!(" and {}", plural(r, "resource", "resources")),
        (0, p) => format!(" and {}", plural(p, "prompt", "prompts")),
        (r, p) => format!(
            ", {} and {}",
            plural(r, "resource", "resources"),
            plural(p, "prompt", "prompts")
        ),
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

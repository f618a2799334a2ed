//! `grants list|revoke`: the approvals the servers remembered in their shared task store
//! (`--task-store redis://…`, the servers' own), listed, and revoked on every replica at
//! once (each looks its grants up in the store on every call).

use std::io::Write;

use clap::{Args, Subcommand};

use crate::Error;
use crate::approve::{Granted, Grants};

#[derive(Args, Debug)]
pub(super) struct GrantsArgs {
    #[command(subcommand)]
    command: GrantsCommand,
    /// The task store the servers share: `redis://HOST:PORT/DB` (their `--task-store`).
    #[arg(long, value_name = "URL", value_parser = super::tasks::store, global = true, env = "TOOLSMITH_TASK_STORE")]
    task_store: Option<super::tasks::StoreArg>,
}

#[derive(Subcommand, Debug)]
enum GrantsCommand {
    /// List the remembered approvals: id, caller, tool, arguments, session, time left.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Revoke remembered approvals: those whose ids are given, or every one of a tool.
    Revoke {
        /// The ids to revoke (as `grants list` shows them).
        ids: Vec<String>,
        /// Revoke every approval of this tool (of every caller, unless --caller).
        #[arg(long, value_name = "TOOL")]
        tool: Option<String>,
        /// With --tool: only this caller's (as `grants list` shows it).
        #[arg(long, value_name = "CALLER", requires = "tool")]
        caller: Option<String>,
    },
}

/// Runs `grants list|revoke`: 0 when done, 1 when nothing was revoked, 2 without a store.
pub(super) async fn grants(args: GrantsArgs) -> Result<u8, Error> {
    let Some(store) = args.task_store.and_then(|store| store.shared()) else {
        eprintln!(
            "grants are kept in a shared task store: give --task-store redis://HOST:PORT/DB (TOOLSMITH_TASK_STORE), the servers' own; a server without one keeps its grants in its own process (revoke them on its approvals page)"
        );
        return Ok(2);
    };
    let grants = Grants::default();
    grants.share(store);
    let listed = grants.list().await;
    match args.command {
        GrantsCommand::List { json } => {
            let mut out = std::io::stdout().lock();
            if json {
                let rows: Vec<serde_json::Value> = listed.iter().map(row_json).collect();
                writeln!(out, "{}", super::pretty(&serde_json::Value::Array(rows)))?;
            } else {
                write!(out, "{}", table(&listed))?;
            }
            Ok(0)
        }
        GrantsCommand::Revoke { ids, tool, caller } => {
            let mut chosen = ids;
            if let Some(tool) = &tool {
                chosen.extend(
                    listed
                        .iter()
                        .filter(|g| &g.tool == tool)
                        .filter(|g| caller.as_ref().is_none_or(|c| &g.caller == c))
                        .map(|g| g.id.clone()),
                );
            }
            if chosen.is_empty() {
                eprintln!("give the ids to revoke (`grants list` shows them), or --tool TOOL");
                return Ok(2);
            }
            let mut revoked = 0;
            for id in &chosen {
                if grants.revoke_id(id).await {
                    revoked += 1;
                } else {
                    eprintln!("{id}: no such approval is remembered");
                }
            }
            writeln!(
                std::io::stdout().lock(),
                "revoked {revoked} remembered approval(s)"
            )?;
            Ok(if revoked == 0 { 1 } else { 0 })
        }
    }
}

fn row_json(granted: &Granted) -> serde_json::Value {
    serde_json::json!({
        "id": granted.id,
        "caller": granted.caller,
        "tool": granted.tool,
        "arguments": granted.arguments,
        "session": granted.session,
        "expiresMs": granted.expires_ms,
    })
}

fn table(listed: &[Granted]) -> String {
    let now = crate::task::now_ms();
    let mut rows = vec![
        ["ID", "CALLER", "TOOL", "ARGUMENTS", "SESSION", "EXPIRES IN"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for granted in listed {
        let arguments = match granted.arguments.is_empty() {
            true => "*".to_owned(),
            false => serde_json::Value::Object(granted.arguments.clone()).to_string(),
        };
        rows.push(vec![
            granted.id.clone(),
            granted.caller.clone(),
            granted.tool.clone(),
            arguments,
            if granted.session { "yes" } else { "no" }.to_owned(),
            format!("{} s", granted.expires_ms.saturating_sub(now) / 1000),
        ]);
    }
    toolsmith_audit::aligned(&rows)
}

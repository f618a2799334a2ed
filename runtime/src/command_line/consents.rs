//! `consents list|revoke`: the consents users asked the sign-in to remember, kept in the
//! servers' shared task store (`--task-store redis://…`), listed, and revoked on every
//! replica at once: the user sees the consent page again at their next sign-in.

use std::io::Write;

use clap::{Args, Subcommand};

use crate::Error;
use crate::signin::{Consent, Consents};

#[derive(Args, Debug)]
pub(super) struct ConsentsArgs {
    #[command(subcommand)]
    command: ConsentsCommand,
    /// The task store the servers share: `redis://HOST:PORT/DB` (their `--task-store`).
    #[arg(long, value_name = "URL", value_parser = super::tasks::store, global = true, env = "TOOLSMITH_TASK_STORE")]
    task_store: Option<super::tasks::StoreArg>,
}

#[derive(Subcommand, Debug)]
enum ConsentsCommand {
    /// List the remembered consents: id, user, client, scopes, time left.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Revoke remembered consents by their ids (as `consents list` shows them).
    Revoke {
        /// The ids to revoke.
        #[arg(required = true)]
        ids: Vec<String>,
    },
}

/// Runs `consents list|revoke`: 0 when done, 1 when nothing was revoked, 2 without a store.
pub(super) async fn consents(args: ConsentsArgs) -> Result<u8, Error> {
    let Some(store) = args.task_store.and_then(|store| store.shared()) else {
        eprintln!(
            "remembered consents are kept in a shared task store: give --task-store redis://HOST:PORT/DB (TOOLSMITH_TASK_STORE), the servers' own; a server without one keeps them in its own process"
        );
        return Ok(2);
    };
    let consents = Consents::new(store);
    let failed = |err: crate::task::StoreError| Error::config("task store", err.to_string());
    match args.command {
        ConsentsCommand::List { json } => {
            let listed = consents.list().await.map_err(failed)?;
            let mut out = std::io::stdout().lock();
            if json {
                let rows: Vec<serde_json::Value> = listed.iter().map(row_json).collect();
                writeln!(out, "{}", super::pretty(&serde_json::Value::Array(rows)))?;
            } else {
                write!(out, "{}", table(&listed))?;
            }
            Ok(0)
        }
        ConsentsCommand::Revoke { ids } => {
            let mut revoked = 0;
            for id in &ids {
                if consents.revoke(id).await.map_err(failed)? {
                    revoked += 1;
                } else {
                    eprintln!("{id}: no such consent is remembered");
                }
            }
            writeln!(
                std::io::stdout().lock(),
                "revoked {revoked} remembered consent(s)"
            )?;
            Ok(if revoked == 0 { 1 } else { 0 })
        }
    }
}

fn row_json(consent: &Consent) -> serde_json::Value {
    serde_json::json!({
        "id": consent.id,
        "subject": consent.subject,
        "issuer": consent.issuer,
        "email": consent.email,
        "clientId": consent.client_id,
        "clientName": consent.client_name,
        "scopes": consent.scopes,
        "until": consent.until,
    })
}

fn table(listed: &[Consent]) -> String {
    let now = crate::task::now_ms() / 1000;
    let mut rows = vec![
        ["ID", "USER", "CLIENT", "SCOPES", "EXPIRES IN"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for consent in listed {
        let user = consent
            .email
            .clone()
            .unwrap_or_else(|| consent.subject.clone());
        let client = consent
            .client_name
            .clone()
            .unwrap_or_else(|| consent.client_id.clone());
        rows.push(vec![
            consent.id.clone(),
            user,
            client,
            consent.scopes.join(" "),
            format!("{} d", consent.until.saturating_sub(now) / 86_400),
        ]);
    }
    toolsmith_audit::aligned(&rows)
}

//! `import_notes`: a tool that works for a while, as a task.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use toolsmith::{Progress, State, ToolError, context::Resources, tool};

use crate::store::Notes;

/// The most notes one import makes.
const MAX_IMPORT: u32 = 1000;

/// What [`import_notes`] made.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Imported {
    /// How many notes were made.
    pub created: u32,
    /// Their ids, in order.
    pub note_ids: Vec<u64>,
}

/// Import `count` notes, one at a time, reporting progress after each: a stand-in for a
/// slow import (each note takes `pace_ms`). A client that declared the tasks extension gets
/// a task's handle at once and polls it (its status message says how far it is); any other
/// client waits for the result, up to the 10-minute timeout.
///
/// # Arguments
/// * `count` - How many notes to import (1 to 1000).
/// * `pace_ms` - Milliseconds each note takes (default 500, at most 10000).
#[tool(task, destructive = false, closed_world, timeout = "10m", title = "Import notes", category = "notes", tags = ["write", "import"])]
pub async fn import_notes(
    notes: State<Notes>,
    resources: Resources,
    progress: Progress,
    count: u32,
    pace_ms: Option<u64>,
) -> Result<Imported, ToolError> {
    if count == 0 || count > MAX_IMPORT {
        return Err(ToolError::new(format!(
            "An import makes 1 to {MAX_IMPORT} notes; {count} were asked for."
        )));
    }
    let pace = Duration::from_millis(pace_ms.unwrap_or(500).min(10_000));
    let mut note_ids = Vec::with_capacity(count as usize);
    for n in 1..=count {
        tokio::time::sleep(pace).await;
        let note = notes.lock().create(
            format!("Imported note {n}"),
            format!("Note {n} of an import of {count}."),
            vec!["imported".to_owned()],
        );
        note_ids.push(note.id);
        resources.updated("notes://index");
        progress.report(
            f64::from(n),
            f64::from(count),
            format!("imported {n} of {count} notes"),
        );
    }
    Ok(Imported {
        created: count,
        note_ids,
    })
}

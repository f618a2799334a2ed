//! The notes tools of the MCP tutorial, as ordinary functions over the shared [`Notes`]
//! store (a `State` parameter: filled by the server, not part of the input schema).

use schemars::JsonSchema;
use serde::Serialize;
use toolsmith::{State, ToolError, tool};

use crate::store::{Note, Notes};

/// Find notes whose title or body contains `query` (case-insensitive).
///
/// # Arguments
/// * `query` - Text to look for.
#[tool(read_only, idempotent, closed_world, title = "Search notes", category = "notes", tags = ["search", "read"])]
pub fn search_notes(notes: State<Notes>, query: String) -> Vec<Note> {
    notes.lock().search(&query)
}

/// Get one note by its id.
///
/// # Arguments
/// * `note_id` - The note's id.
#[tool(read_only, idempotent, closed_world, title = "Get note", category = "notes", tags = ["read"])]
pub fn get_note(notes: State<Notes>, note_id: u64) -> Result<Note, ToolError> {
    notes
        .lock()
        .get(note_id)
        .cloned()
        .ok_or_else(|| ToolError::new(format!("No note with id {note_id}.")))
}

/// Create a note and return it with its new id.
///
/// # Arguments
/// * `title` - The note's title.
/// * `body` - The note's text.
/// * `tags` - Optional labels.
#[tool(destructive = false, closed_world, title = "Create note", category = "notes", tags = ["write"])]
pub fn create_note(
    notes: State<Notes>,
    title: String,
    body: String,
    tags: Option<Vec<String>>,
) -> Note {
    notes.lock().create(title, body, tags.unwrap_or_default())
}

/// What [`delete_note`] did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Deleted {
    /// The id asked for.
    pub note_id: u64,
    /// Whether a note was removed; `false` when it was already gone.
    pub deleted: bool,
}

/// Delete a note. Deleting a note that is already gone is not an error.
///
/// # Arguments
/// * `note_id` - The id of the note to delete.
#[tool(destructive, idempotent, closed_world, title = "Delete note", category = "notes", tags = ["write", "delete"])]
pub fn delete_note(notes: State<Notes>, note_id: u64) -> Deleted {
    Deleted {
        note_id,
        deleted: notes.lock().delete(note_id),
    }
}

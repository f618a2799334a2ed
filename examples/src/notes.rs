//! The notes tools of the MCP tutorial, as ordinary functions over the shared [`Notes`]
//! store (a `State` parameter: filled by the server, not part of the input schema), and a
//! chart of the notes' tags that answers with an image.

use schemars::JsonSchema;
use serde::Serialize;
use toolsmith::{
    State, ToolError, context::Resources, tool, tool::Content, tool::Image, tool::Linked,
    tool::ResourceLink,
};

use crate::chart;
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

/// The most tags a note may carry.
pub const MAX_TAGS: usize = 20;
/// The longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 64;
/// The most tags [`tag_chart`] draws a bar for; the others share one more bar.
pub const MAX_BARS: usize = 20;

/// Create a note and return it with its new id, and a link to it (`notes://{id}`). A note
/// carries at most 20 tags, each at most 64 characters long; more is an error, and nothing
/// is created.
///
/// # Arguments
/// * `title` - The note's title.
/// * `body` - The note's text.
/// * `tags` - Optional labels: at most 20, each at most 64 characters.
#[tool(destructive = false, closed_world, title = "Create note", category = "notes", tags = ["write"])]
pub fn create_note(
    notes: State<Notes>,
    resources: Resources,
    title: String,
    body: String,
    tags: Option<Vec<String>>,
) -> Result<Linked<Note>, ToolError> {
    let tags = tags.unwrap_or_default();
    if tags.len() > MAX_TAGS {
        return Err(ToolError::new(format!(
            "A note carries at most {MAX_TAGS} tags; this one has {}.",
            tags.len()
        )));
    }
    if let Some(long) = tags.iter().position(|t| t.chars().count() > MAX_TAG_CHARS) {
        return Err(ToolError::new(format!(
            "A tag is at most {MAX_TAG_CHARS} characters long; tag {} is longer.",
            long + 1
        )));
    }
    let note = notes.lock().create(title, body, tags);
    resources.updated("notes://index");
    let link = ResourceLink::new(format!("notes://{}", note.id), note.title.clone())
        .mime_type("application/json");
    Ok(Linked::new(note).link(link))
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
#[tool(
    destructive,
    idempotent,
    closed_world,
    title = "Delete note",
    category = "notes",
    tags = ["write", "delete"],
    confirm = "Delete note {note_id}?"
)]
pub fn delete_note(notes: State<Notes>, resources: Resources, note_id: u64) -> Deleted {
    let deleted = notes.lock().delete(note_id);
    if deleted {
        resources.updated(format!("notes://{note_id}"));
        resources.updated("notes://index");
    }
    Deleted { note_id, deleted }
}

/// Draw a bar chart of how many notes carry each tag, as a PNG image: one bar per tag, in
/// alphabetical order of the tags, each as tall as its count relative to the largest. At most
/// 20 tags get a bar of their own: past 20, the 20 carried by the most notes do (ties go to
/// the first in alphabetical order), and one last bar counts the notes that carry any of the
/// others. By default a text block listing `tag: count` per bar, in the same order (the last
/// as `others (N tags): count`), precedes the image.
///
/// # Arguments
/// * `legend` - Whether to send the `tag: count` text before the image (default true).
#[tool(read_only, idempotent, closed_world, title = "Tag chart", category = "notes", tags = ["read", "chart"])]
pub fn tag_chart(notes: State<Notes>, legend: Option<bool>) -> Vec<Content> {
    let top = notes.lock().top_tags(MAX_BARS);
    let mut bars: Vec<usize> = top.tags.iter().map(|(_, n)| *n).collect();
    bars.extend(top.others.map(|others| others.notes));
    let image = Image::png(chart::bar_chart(&bars));
    if !legend.unwrap_or(true) {
        return vec![Content::from(image)];
    }
    let text = if top.tags.is_empty() {
        "No note has a tag.".to_owned()
    } else {
        let mut lines: Vec<String> = top
            .tags
            .iter()
            .map(|(tag, n)| format!("{tag}: {n}"))
            .collect();
        if let Some(others) = top.others {
            lines.push(format!("others ({} tags): {}", others.tags, others.notes));
        }
        lines.join("\n")
    };
    vec![Content::from(text), Content::from(image)]
}

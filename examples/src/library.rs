//! The notes as resources and a prompt: `notes://index` (every note's id and title),
//! `notes://{note_id}` (one note, as JSON), and `summarize_notes`, a prompt that asks the
//! model for a summary of the notes, or of those with a tag. Note ids and tags complete.

use serde::Serialize;
use toolsmith::{State, complete::Completion, prompt, resource};

use crate::store::{Note, Notes};

/// One line of the index.
#[derive(Debug, Serialize)]
pub struct Entry {
    /// The note's id.
    pub id: u64,
    /// Its title.
    pub title: String,
}

/// Every note's id and title, in id order.
#[resource(uri = "notes://index", title = "Note index", mime_type = "application/json", audience = ["user", "assistant"], priority = 0.8)]
pub fn note_index(notes: State<Notes>) -> Vec<Entry> {
    notes
        .lock()
        .search("")
        .into_iter()
        .map(|note| Entry {
            id: note.id,
            title: note.title,
        })
        .collect()
}

/// One note, as JSON: its id, title, body and tags.
///
/// # Arguments
/// * `note_id` - The note's id.
#[resource(uri = "notes://{note_id}", title = "Note", mime_type = "application/json", complete(note_id = note_ids))]
pub fn note(notes: State<Notes>, note_id: u64) -> Option<Note> {
    notes.lock().get(note_id).cloned()
}

/// Summarize the notes, or only the notes with a tag: a user message that quotes them.
///
/// # Arguments
/// * `tag` - Only the notes with this tag.
#[prompt(title = "Summarize notes", complete(tag = tags))]
pub fn summarize_notes(notes: State<Notes>, tag: Option<String>) -> String {
    let all = notes.lock().search("");
    let chosen: Vec<&Note> = all
        .iter()
        .filter(|n| tag.as_ref().is_none_or(|t| n.tags.contains(t)))
        .collect();
    let what = match &tag {
        Some(tag) => format!("my notes tagged \"{tag}\""),
        None => "my notes".to_owned(),
    };
    if chosen.is_empty() {
        return format!("I have no notes to summarize ({what}). Say so briefly.");
    }
    let mut text = format!("Summarize {what} in a few bullet points:\n");
    for note in chosen {
        text.push_str(&format!(
            "\n## {} (#{})\n{}\n",
            note.title, note.id, note.body
        ));
    }
    text
}

/// The note ids that start with what was typed.
pub fn note_ids(value: &str, completion: &Completion) -> Vec<String> {
    let Some(notes) = completion.state::<Notes>() else {
        return Vec::new();
    };
    let ids: Vec<String> = notes
        .lock()
        .search("")
        .iter()
        .map(|n| n.id.to_string())
        .filter(|id| id.starts_with(value))
        .collect();
    ids
}

/// The tags that start with what was typed (case-insensitive), in tag order.
pub fn tags(value: &str, completion: &Completion) -> Vec<String> {
    let Some(notes) = completion.state::<Notes>() else {
        return Vec::new();
    };
    let value = value.to_lowercase();
    let tags: Vec<String> = notes
        .lock()
        .tag_counts()
        .into_iter()
        .map(|(tag, _)| tag)
        .filter(|tag| tag.to_lowercase().starts_with(&value))
        .collect();
    tags
}

//! Every accepted form of `#[resource]`: a static resource, templates with `u64`, `String`
//! and `{+path}` variables, context parameters, each return form, `async fn`, and
//! completions by a sync and an async fn.

use std::time::{Duration, UNIX_EPOCH};

use serde::Serialize;
use toolsmith::{
    State, ToolError, complete::Completion, context::Caller, resource, resource::Modified,
    tool::Image,
};

struct Shelf {
    titles: Vec<String>,
}

#[derive(Serialize)]
struct Entry {
    id: u64,
    title: String,
}

/// Every note's id and title.
#[resource(
    uri = "notes://index",
    name = "note_index",
    title = "Note index",
    mime_type = "application/json",
    audience = ["user", "assistant"],
    priority = 0.8,
    icon = "https://example.com/index.png",
    scopes = ["notes:read"],
    timeout = "5s"
)]
fn index(shelf: State<Shelf>) -> Vec<Entry> {
    shelf
        .titles
        .iter()
        .enumerate()
        .map(|(i, title)| Entry {
            id: i as u64,
            title: title.clone(),
        })
        .collect()
}

/// One note, by its numeric id; `None` is "not found".
///
/// # Arguments
/// * `note_id` - The note's id.
#[resource(uri = "notes://by-id/{note_id}", complete(note_id = note_ids))]
fn note(shelf: State<Shelf>, note_id: u64) -> Option<String> {
    shelf.titles.get(note_id as usize).cloned()
}

/// The notes with a tag, for the caller.
///
/// # Arguments
/// * `tag` - The tag.
#[resource(uri = "notes://tags/{tag}", mime_type = "text/markdown", complete(tag = tags))]
async fn tagged(caller: Caller, tag: String) -> Result<String, ToolError> {
    match caller.subject() {
        Some(who) => Ok(format!("# {tag} ({who})")),
        None => Err(ToolError::new("sign in to read tagged notes")),
    }
}

/// A file under the notes' folder; its path may hold `/`.
///
/// # Arguments
/// * `path` - The file's path.
#[resource(uri = "files://{+path}")]
fn file(path: String) -> Vec<u8> {
    path.into_bytes()
}

/// The changelog, dated.
#[resource(uri = "docs://changelog", mime_type = "text/markdown")]
fn changelog() -> Modified<String> {
    Modified::new(
        "# 1.0".to_owned(),
        UNIX_EPOCH + Duration::from_secs(1_700_000_000),
    )
}

/// The cover, maybe dated, maybe missing, maybe failing.
#[resource(uri = "images://cover")]
async fn cover() -> Result<Option<Modified<Image>>, std::io::Error> {
    Ok(Some(Modified::new(
        Image::png(vec![0x89, b'P']),
        UNIX_EPOCH,
    )))
}

/// The note ids that start with what was typed.
fn note_ids(value: &str, _completion: &Completion) -> Vec<String> {
    ["1", "2", "10"]
        .iter()
        .filter(|id| id.starts_with(value))
        .map(|id| id.to_string())
        .collect()
}

/// The tags that start with what was typed, found asynchronously.
async fn tags(value: &str, _completion: &Completion) -> Vec<String> {
    vec![format!("{value}-tag")]
}

#[test]
fn compiles_and_works() {
    let registry = toolsmith::Registry::global();

    let index_info = registry.resource_declared("notes://index").unwrap();
    assert!(!index_info.is_template());
    assert_eq!(index_info.name(), "note_index");
    assert_eq!(index_info.header().title(), Some("Note index"));
    assert_eq!(
        index_info.header().description(),
        "Every note's id and title."
    );
    assert_eq!(index_info.mime_type(), Some("application/json"));
    assert_eq!(index_info.audience(), ["user", "assistant"]);
    assert_eq!(index_info.priority(), Some(0.8));
    assert_eq!(index_info.header().scopes(), ["notes:read"]);

    let note_info = registry
        .resource_declared("notes://by-id/{note_id}")
        .unwrap();
    assert!(note_info.is_template());
    assert_eq!(note_info.name(), "note");
    assert_eq!(note_info.variables().collect::<Vec<_>>(), ["note_id"]);
    assert_eq!(note_info.completes().collect::<Vec<_>>(), ["note_id"]);

    let tagged_info = registry.resource_for("notes://tags/rust").unwrap();
    assert_eq!(tagged_info.uri(), "notes://tags/{tag}");
    assert_eq!(tagged_info.completes().collect::<Vec<_>>(), ["tag"]);

    let file_info = registry.resource_for("files://a/b/c.md").unwrap();
    assert_eq!(file_info.uri(), "files://{+path}");
    assert_eq!(file_info.variables().collect::<Vec<_>>(), ["path"]);

    assert!(registry.resource_declared("docs://changelog").is_some());
    assert!(registry.resource_declared("images://cover").is_some());
    assert_eq!(registry.resources().len(), 6);

    // Still ordinary functions.
    let shelf = State::new(Shelf {
        titles: vec!["Groceries".to_owned()],
    });
    assert_eq!(index(shelf.clone()).len(), 1);
    assert_eq!(note(shelf.clone(), 0).as_deref(), Some("Groceries"));
    assert_eq!(note(shelf, 1), None);
    assert_eq!(file("a/b".to_owned()), b"a/b");
    assert_eq!(changelog().last_modified(), "2023-11-14T22:13:20Z");
    drop(tagged(
        Caller::new("alice", ["notes:read"]),
        "rust".to_owned(),
    ));
    drop(cover());
    let _ = tags;
}

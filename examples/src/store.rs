//! A small in-memory notes store. It knows nothing of MCP: the tools in
//! [`crate::notes`] are thin functions over it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Note {
    /// The note's id.
    pub id: u64,
    /// Its title.
    pub title: String,
    /// Its text.
    pub body: String,
    /// Free-form labels.
    pub tags: Vec<String>,
}

/// The tags a chart shows: see [`Store::top_tags`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopTags {
    /// The tags shown, in tag order, each with how many notes carry it.
    pub tags: Vec<(String, usize)>,
    /// The rest, when there are more.
    pub others: Option<Others>,
}

/// The tags a chart does not show one by one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Others {
    /// How many tags.
    pub tags: usize,
    /// How many notes carry at least one of them.
    pub notes: usize,
}

/// The notes, and the id the next note gets.
#[derive(Debug)]
pub struct Store {
    notes: Vec<Note>,
    next_id: u64,
}

impl Default for Store {
    fn default() -> Self {
        Self::seeded()
    }
}

impl Store {
    /// The tutorial's three notes; the next id is 4.
    ///
    /// ```
    /// let store = toolsmith_examples::store::Store::seeded();
    /// assert_eq!(store.get(2).unwrap().title, "Standup notes");
    /// ```
    pub fn seeded() -> Self {
        let note = |id, title: &str, body: &str, tag: &str| Note {
            id,
            title: title.into(),
            body: body.into(),
            tags: vec![tag.into()],
        };
        Store {
            notes: vec![
                note(1, "Groceries", "milk, eggs, bread", "home"),
                note(2, "Standup notes", "shipped the parser fix", "work"),
                note(3, "Book ideas", "a novel about a lighthouse", "personal"),
            ],
            next_id: 4,
        }
    }

    /// Notes whose title or body contains `query`, ignoring case.
    ///
    /// ```
    /// let store = toolsmith_examples::store::Store::seeded();
    /// assert_eq!(store.search("PARSER")[0].id, 2);
    /// ```
    pub fn search(&self, query: &str) -> Vec<Note> {
        let query = query.to_lowercase();
        self.notes
            .iter()
            .filter(|n| {
                n.title.to_lowercase().contains(&query) || n.body.to_lowercase().contains(&query)
            })
            .cloned()
            .collect()
    }

    /// The note with this id.
    ///
    /// ```
    /// assert!(toolsmith_examples::store::Store::seeded().get(99).is_none());
    /// ```
    pub fn get(&self, id: u64) -> Option<&Note> {
        self.notes.iter().find(|n| n.id == id)
    }

    /// Adds a note with the next id and returns it.
    ///
    /// ```
    /// let mut store = toolsmith_examples::store::Store::seeded();
    /// assert_eq!(store.create("t".into(), "b".into(), vec![]).id, 4);
    /// ```
    pub fn create(&mut self, title: String, body: String, tags: Vec<String>) -> Note {
        let note = Note {
            id: self.next_id,
            title,
            body,
            tags,
        };
        self.next_id += 1;
        self.notes.push(note.clone());
        note
    }

    /// How many notes carry each tag, in tag order (a tag repeated on one note counts once).
    ///
    /// ```
    /// let mut store = toolsmith_examples::store::Store::seeded();
    /// store.create("t".into(), "b".into(), vec!["work".into(), "work".into(), "idea".into()]);
    /// let counts = store.tag_counts();
    /// assert_eq!(counts[0], ("home".to_owned(), 1));
    /// assert_eq!(counts[1], ("idea".to_owned(), 1));
    /// assert_eq!(counts[3], ("work".to_owned(), 2));
    /// ```
    pub fn tag_counts(&self) -> Vec<(String, usize)> {
        let mut counts = BTreeMap::<&str, usize>::new();
        for note in &self.notes {
            let tags: BTreeSet<&str> = note.tags.iter().map(String::as_str).collect();
            for tag in tags {
                *counts.entry(tag).or_default() += 1;
            }
        }
        counts
            .into_iter()
            .map(|(tag, n)| (tag.to_owned(), n))
            .collect()
    }

    /// The `max` tags carried by the most notes (ties go to the first in tag order), in tag
    /// order, and, when there are more tags, how many others there are and how many notes
    /// carry at least one of them.
    ///
    /// ```
    /// let mut store = toolsmith_examples::store::Store::seeded();
    /// store.create("t".into(), "b".into(), vec!["work".into(), "idea".into()]);
    /// let top = store.top_tags(2);
    /// assert_eq!(top.tags, [("home".to_owned(), 1), ("work".to_owned(), 2)]);
    /// let others = top.others.unwrap();
    /// assert_eq!((others.tags, others.notes), (2, 2));
    /// assert!(store.top_tags(4).others.is_none());
    /// ```
    pub fn top_tags(&self, max: usize) -> TopTags {
        let mut tags = self.tag_counts();
        if tags.len() <= max {
            return TopTags { tags, others: None };
        }
        let mut order: Vec<usize> = (0..tags.len()).collect();
        // Stable: among equal counts, tag order.
        order.sort_by_key(|&i| std::cmp::Reverse(tags[i].1));
        let mut kept = vec![false; tags.len()];
        for &i in &order[..max] {
            kept[i] = true;
        }
        let mut others = BTreeSet::new();
        let mut index = 0;
        tags.retain(|(tag, _)| {
            let keep = kept[index];
            index += 1;
            if !keep {
                others.insert(tag.clone());
            }
            keep
        });
        let notes = self
            .notes
            .iter()
            .filter(|n| n.tags.iter().any(|t| others.contains(t)))
            .count();
        TopTags {
            tags,
            others: Some(Others {
                tags: others.len(),
                notes,
            }),
        }
    }

    /// Removes the note with this id; `false` when there was none.
    ///
    /// ```
    /// let mut store = toolsmith_examples::store::Store::seeded();
    /// assert!(store.delete(1));
    /// assert!(!store.delete(1));
    /// ```
    pub fn delete(&mut self, id: u64) -> bool {
        let before = self.notes.len();
        self.notes.retain(|n| n.id != id);
        self.notes.len() != before
    }
}

/// The store shared by the notes tools, registered once with
/// `toolsmith::Server::new().state(Notes::seeded())`.
///
/// ```
/// let notes = toolsmith_examples::store::Notes::seeded();
/// assert_eq!(notes.lock().get(1).unwrap().title, "Groceries");
/// ```
#[derive(Debug, Default)]
pub struct Notes(Mutex<Store>);

impl Notes {
    /// A store holding the tutorial's three notes.
    ///
    /// ```
    /// let notes = toolsmith_examples::store::Notes::seeded();
    /// # let _ = notes;
    /// ```
    pub fn seeded() -> Self {
        Notes(Mutex::new(Store::seeded()))
    }

    /// The store, locked (a poisoned lock is recovered: the store stays consistent).
    ///
    /// ```
    /// let notes = toolsmith_examples::store::Notes::seeded();
    /// assert!(notes.lock().get(3).is_some());
    /// ```
    pub fn lock(&self) -> MutexGuard<'_, Store> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

//! A pinned snapshot of the upstream tools: a tool whose hints, schemas, description or title
//! changed since a reviewer approved them (a "rug pull"), or that the snapshot does not list,
//! is refused or hidden, or held for review (`review.rs`: the approvals page, or
//! `gateway pin approve`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rmcp::model::JsonObject;
use toolsmith::{CallContext, Registry, Tool, ToolDescription, ToolError, tool::ToolFuture};

use crate::Error;

mod review;

/// What becomes of a tool that changed since the snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OnChange {
    /// Listed, with a description that says it changed (never the new one), and every call
    /// refused with an error that says how to review it.
    #[default]
    Refuse,
    /// Left out of the list.
    Hide,
    /// As [`OnChange::Refuse`], and held for an operator's review: the approvals page shows
    /// what changed, and Approve pins it as it is now (the snapshot file rewritten) and
    /// serves it; Reject keeps it refused (see [`Pin::reviews`]).
    Hold,
}

/// A snapshot written by `check --write` (`toolsmith gateway --config FILE check SNAPSHOT
/// --write`), that the tools served must still match.
///
/// ```
/// use toolsmith::Registry;
/// use toolsmith_gateway::{OnChange, Pin};
///
/// let reviewed = Registry::new().snapshot();
/// let pin = Pin::new(reviewed).on_change(OnChange::Hide);
/// let (registry, changed) = pin.apply(Registry::new()).unwrap();
/// assert!(registry.is_empty() && changed.is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct Pin {
    /// The snapshot's text, as reviewed (rewritten where a review approves a change).
    snapshot: Arc<Mutex<String>>,
    on_change: OnChange,
    /// How the snapshot is to be reviewed, for the refusal's message.
    review: String,
    /// The file it was read from, rewritten where a review approves a change.
    pub(crate) path: Option<PathBuf>,
    /// The changed tools held for review ([`OnChange::Hold`]), by name.
    pub(crate) held: Arc<Mutex<BTreeMap<String, Held>>>,
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held")
            .field("reviewed", &self.reviewed)
            .finish_non_exhaustive()
    }
}

/// A changed tool held for review: as it is now (a registry of it alone), and its snapshot
/// line as reviewed (`None`: the snapshot does not list it).
#[derive(Clone)]
pub(crate) struct Held {
    pub(crate) now: Registry,
    pub(crate) reviewed: Option<String>,
}

impl Pin {
    /// The snapshot's text; a changed tool is refused.
    pub fn new(snapshot: impl Into<String>) -> Pin {
        Pin {
            snapshot: Arc::new(Mutex::new(snapshot.into())),
            on_change: OnChange::Refuse,
            review: "write a new snapshot with `check --write` once the change is reviewed".into(),
            path: None,
            held: Arc::default(),
        }
    }

    /// The snapshot at `path`; an error when it cannot be read, or is not a snapshot
    /// (naming the line: one of no known kind, as a snapshot written before names were
    /// quoted has, or a second line for one name).
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("pin-doc-{}.snapshot", std::process::id()));
    /// std::fs::write(&path, toolsmith::Registry::new().snapshot()).unwrap();
    /// assert!(toolsmith_gateway::Pin::from_path(&path).is_ok());
    /// std::fs::write(&path, "get_note readOnly=true\n").unwrap();
    /// let err = toolsmith_gateway::Pin::from_path(&path).unwrap_err();
    /// assert!(err.contains("line 1:"), "{err}");
    /// # std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn from_path(path: &Path) -> Result<Pin, String> {
        let text = std::fs::read_to_string(path).map_err(|err| {
            format!(
                "cannot read the pinned snapshot {}: {err}; write it with `check --write`",
                path.display()
            )
        })?;
        // Read now, so that one that is not a snapshot stops the start, naming its line.
        Registry::new().drift(&text).map_err(|err| {
            format!(
                "cannot use the pinned snapshot {}: {err}; review it, or write it again with `check --write`",
                path.display()
            )
        })?;
        let mut pin = Pin::new(text);
        pin.path = Some(path.to_owned());
        Ok(pin)
    }

    /// What becomes of a changed tool (default: [`OnChange::Refuse`]).
    pub fn on_change(mut self, on_change: OnChange) -> Pin {
        self.on_change = on_change;
        self
    }

    /// The sentence a refusal ends with: how the operator reviews the change.
    pub fn review(mut self, how: impl Into<String>) -> Pin {
        self.review = how.into();
        self
    }

    /// `registry` with every tool that changed since the snapshot refused or hidden (each
    /// logged as a warning, with what changed), and those tools with what changed. An error
    /// when the snapshot is not one (naming the line).
    pub fn apply(
        &self,
        mut registry: Registry,
    ) -> Result<(Registry, BTreeMap<String, String>), Error> {
        let snapshot = self.snapshot();
        let changed = registry.drift(&snapshot).map_err(Error::Tools)?;
        if self.on_change == OnChange::Hold {
            // A change of this upstream's that reverted since is no longer to review.
            lock(&self.held)
                .retain(|name, _| registry.get(name).is_none() || changed.contains_key(name));
        }
        for (name, what) in &changed {
            if self.on_change == OnChange::Hold {
                let now = registry.clone().retain_tools(|tool| tool.name() == name);
                let reviewed = review::line_of(&snapshot, name);
                lock(&self.held).insert(name.clone(), Held { now, reviewed });
            }
            let Some(tool) = registry.remove_tool(name) else {
                continue;
            };
            match self.on_change {
                OnChange::Hide => {
                    tracing::warn!(tool = %name, changed = %what, "hidden: it changed since the pinned snapshot");
                }
                OnChange::Refuse | OnChange::Hold => {
                    tracing::warn!(tool = %name, changed = %what, held = self.on_change == OnChange::Hold, "refused: it changed since the pinned snapshot");
                    let scopes = tool.header().scopes().iter().map(|s| s.to_string());
                    let mut described = ToolDescription::new(
                        name.clone(),
                        format!(
                            "Changed since it was reviewed ({what}): every call is refused until it is reviewed again."
                        ),
                        tool.input_schema().clone(),
                        tool.hints(),
                    )
                    .with_tags(tool.tags().iter().cloned())
                    .with_scopes(scopes)
                    .with_origin(format!("tool '{name}', refused by the pinned snapshot"));
                    described.category = tool.category().map(str::to_owned);
                    let refused = Refused {
                        described,
                        why: format!(
                            "tool '{name}' changed since the pinned snapshot ({what}), so it is refused: {}",
                            self.review
                        ),
                    };
                    registry
                        .add_shared(Arc::new(refused))
                        .map_err(Error::Tools)?;
                }
            }
        }
        Ok((registry, changed))
    }

    /// The snapshot's text as it stands (with the changes approved since it was read).
    pub fn snapshot(&self) -> String {
        lock(&self.snapshot).clone()
    }

    /// Pins `name` as `line` (its snapshot line now; the fields the pin compares taken from
    /// it, the others kept as the file has them): in the file it was read from, read again
    /// first (another review may have rewritten it), then written whole beside it, synced and
    /// moved into place; and in the text kept here. An error says why the file could not be
    /// read or written.
    pub(crate) fn repin(&self, name: &str, line: &str) -> Result<(), String> {
        let mut snapshot = lock(&self.snapshot);
        let Some(path) = &self.path else {
            *snapshot = review::repinned(&snapshot, name, line);
            return Ok(());
        };
        let cannot = |what: &str, err: std::io::Error| {
            format!(
                "cannot {what} the pinned snapshot {}: {err}",
                path.display()
            )
        };
        // The file itself, where a link points.
        let target = std::fs::canonicalize(path).map_err(|err| cannot("find", err))?;
        let current = std::fs::read_to_string(&target).map_err(|err| cannot("read", err))?;
        let text = review::repinned(&current, name, line);
        let file_name = target
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let partial = target.with_file_name(format!(".{file_name}.{}.partial", std::process::id()));
        let written = std::fs::File::create(&partial).and_then(|mut file| {
            use std::io::Write;
            file.write_all(text.as_bytes())?;
            file.sync_all()
        });
        if let Err(err) = written.and_then(|()| std::fs::rename(&partial, &target)) {
            let _ = std::fs::remove_file(&partial);
            return Err(cannot("write", err));
        }
        *snapshot = text;
        Ok(())
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A tool that changed since the snapshot, in its place: its name, input schema and hints,
/// its category, tags and scopes (the gateway's, from its configuration), and a call that is
/// always refused (counted `outcome="refused"`).
struct Refused {
    described: ToolDescription,
    why: String,
}

impl Tool for Refused {
    fn describe(&self) -> ToolDescription {
        self.described.clone()
    }

    fn call(&self, _arguments: JsonObject, _context: &CallContext) -> ToolFuture {
        let why = self.why.clone();
        Box::pin(async move { Err(ToolError::refused(why)) })
    }
}

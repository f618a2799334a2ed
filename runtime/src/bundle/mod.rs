//! An MCP Bundle (`.mcpb`) of a server binary, which Claude Desktop installs in one click, and
//! the `server.json` the MCP registry lists it by. Every server binary's `bundle` command
//! makes both from its own registry (`command_line/bundle.rs`); `toolsmith bundle` makes them
//! for any stdio server from what it lists.
//!
//! A bundle is a zip archive of `manifest.json` (MCPB manifest 0.3: the server's name,
//! version, description, author, its tools and prompts, the command a host runs, and the
//! settings a host asks the user for, `user_config`) and the binary under `server/`
//! (`pack.rs`). The manifest is written by `manifest.rs`, `server.json` by
//! `registry_entry.rs`.
//!
//! ```
//! use toolsmith::bundle::{Bundle, ConfigField};
//!
//! let mut bundle = Bundle::new("/usr/local/bin/notes", "notes", "1.2.0");
//! bundle.description = "Search, read and write notes.".into();
//! bundle.author = "Ada Lovelace <ada@example.com>".into();
//! bundle.args = vec!["serve".into()];
//! bundle.tools.push(("search_notes".into(), "Search the notes.".into()));
//! bundle.config.push(ConfigField::flag(
//!     "read_only",
//!     "Read-only",
//!     "Offer only read-only tools.",
//!     "--read-only",
//! ));
//! let manifest = bundle.manifest().unwrap();
//! assert_eq!(manifest["server"]["mcp_config"]["command"], "${__dirname}/server/notes");
//! assert_eq!(manifest["server"]["mcp_config"]["args"][1], "--read-only=${user_config.read_only}");
//! assert_eq!(manifest["user_config"]["read_only"]["default"], false);
//! assert_eq!(manifest["author"]["email"], "ada@example.com");
//! ```

mod manifest;
mod pack;
mod registry_entry;

use std::path::PathBuf;

pub use manifest::{ConfigField, FieldKind, Passed, Prompt};
pub use pack::Packed;
pub use registry_entry::{NO_REGISTRY_ENTRY, SERVER_SCHEMA};

/// What a bundle holds and says: the server binary, what the manifest says of it, and the
/// settings a host asks the user for. Fill its fields, then [`Bundle::write`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Bundle {
    /// The server binary, copied into the bundle under `server/`.
    pub binary: PathBuf,
    /// The bundle's name (the package's): letters, digits, `-`, `_`, `.`.
    pub name: String,
    /// Shown by a host instead of the name, when given.
    pub display_name: Option<String>,
    /// The server's version (semantic).
    pub version: String,
    /// What the server is for (one sentence; a host shows it, the registry keeps 100
    /// characters).
    pub description: String,
    /// Who made it: `Name`, or `Name <email>` as Cargo spells an author.
    pub author: String,
    /// Its source repository's URL.
    pub repository: Option<String>,
    /// Its home page's URL.
    pub homepage: Option<String>,
    /// Its license (an SPDX expression).
    pub license: Option<String>,
    /// The arguments the host runs the binary with, before the options' own.
    pub args: Vec<String>,
    /// Its tools: (name, description).
    pub tools: Vec<(String, String)>,
    /// Whether the server may offer tools beyond those listed (tools it makes at run time).
    pub tools_generated: bool,
    /// Its prompts.
    pub prompts: Vec<Prompt>,
    /// Whether the server makes its prompts' messages at run time (rather than serving the
    /// listed texts as they are).
    pub prompts_generated: bool,
    /// What the host asks the user for (`user_config`), and how it passes each to the
    /// server.
    pub config: Vec<ConfigField>,
}

impl Bundle {
    /// A bundle of the server binary at `binary`, named `name`, at `version`; everything
    /// else empty.
    pub fn new(
        binary: impl Into<PathBuf>,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> Bundle {
        Bundle {
            binary: binary.into(),
            name: name.into(),
            display_name: None,
            version: version.into(),
            description: String::new(),
            author: String::new(),
            repository: None,
            homepage: None,
            license: None,
            args: Vec::new(),
            tools: Vec::new(),
            tools_generated: false,
            prompts: Vec::new(),
            prompts_generated: false,
            config: Vec::new(),
        }
    }

    /// The file name of the bundle: `NAME-VERSION-PLATFORM.mcpb` (the binary runs on one
    /// platform).
    pub fn file_name(&self) -> String {
        format!(
            "{}-{}-{}.mcpb",
            self.name,
            self.version,
            manifest::platform()
        )
    }
}

/// Why a bundle could not be made: what is missing or wrong, and how to give it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BundleError {
    /// The manifest would not be valid: what to give.
    #[error("{0}")]
    Incomplete(String),
    /// The binary could not be read, or the bundle written.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
}

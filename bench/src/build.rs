//! Writing the generated fixture crates, building them, and the build figures: a clean
//! release build of the fixture crate with its dependencies prebuilt, a dev rebuild after
//! editing one tool, and the release binary's size.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde::Serialize;

use crate::fixtures::{self, Kind};

/// Where the fixtures live: `<workspace>/target/bench`.
pub struct Workspace {
    pub root: PathBuf,
}

impl Workspace {
    /// The workspace this crate belongs to.
    pub fn current() -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .to_path_buf();
        Workspace { root }
    }

    fn bench_dir(&self) -> PathBuf {
        std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| self.root.join("target"), PathBuf::from)
            .join("bench")
    }

    /// The shared target directory of every fixture crate.
    fn target_dir(&self) -> PathBuf {
        self.bench_dir().join("target")
    }

    fn crate_dir(&self, kind: Kind, tools: usize) -> PathBuf {
        self.bench_dir().join(format!("{}-{tools}", kind.name()))
    }

    /// Writes the fixture for `kind` with `tools` tools: a crate for the Rust servers (with
    /// the workspace's `Cargo.lock`, so dependency versions match), a script for FastMCP.
    pub fn write(&self, kind: Kind, tools: usize) -> Result<PathBuf, String> {
        let dir = self.crate_dir(kind, tools);
        std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
        let write = |path: PathBuf, text: String| {
            let unchanged = std::fs::read_to_string(&path).is_ok_and(|old| old == text);
            if unchanged {
                Ok(())
            } else {
                std::fs::write(&path, text).map_err(|e| e.to_string())
            }
        };
        if kind == Kind::FastMcp {
            write(dir.join("server.py"), fixtures::source(kind, tools))?;
            return Ok(dir);
        }
        write(dir.join("Cargo.toml"), self.manifest(kind, tools))?;
        write(dir.join("src/main.rs"), fixtures::source(kind, tools))?;
        if !dir.join("Cargo.lock").exists() {
            std::fs::copy(self.root.join("Cargo.lock"), dir.join("Cargo.lock"))
                .map_err(|e| e.to_string())?;
        }
        Ok(dir)
    }

    fn manifest(&self, kind: Kind, tools: usize) -> String {
        let root = self.root.display();
        let server = match kind {
            Kind::Toolsmith => format!("toolsmith = {{ path = \"{root}/runtime\" }}"),
            Kind::Echo => "serde_json = { version = \"1.0.154\", features = [\"raw_value\"] }".to_owned(),
            _ => "rmcp = { version = \"=3.11.0\", default-features = false, features = [\"server\", \"macros\", \"transport-io\"] }".to_owned(),
        };
        format!(
            r#"[package]
name = "bench-{kind}-{tools}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
{server}
serde = {{ version = "1.0.229", features = ["derive"] }}
schemars = {{ version = "1.2.3", features = ["derive"] }}
tokio = {{ version = "1.54.1", features = ["rt-multi-thread", "macros"] }}

[profile.release]
debug = false

[workspace]
"#,
            kind = kind.name()
        )
    }

    fn cargo(&self, dir: &Path, args: &[&str]) -> Result<f64, String> {
        let started = Instant::now();
        let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(args)
            .arg("--quiet")
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", self.target_dir())
            .output()
            .map_err(|e| e.to_string())?;
        if !output.status.success() {
            return Err(format!(
                "cargo {} in {} failed:\n{}",
                args.join(" "),
                dir.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        Ok(started.elapsed().as_secs_f64())
    }

    /// Builds the fixture in release mode and returns the command that serves it.
    pub fn release_command(
        &self,
        kind: Kind,
        tools: usize,
        python: &str,
    ) -> Result<Vec<String>, String> {
        let dir = self.write(kind, tools)?;
        if kind == Kind::FastMcp {
            return Ok(vec![
                python.to_owned(),
                dir.join("server.py").display().to_string(),
            ]);
        }
        self.cargo(&dir, &["build", "--release"])?;
        let binary = self
            .target_dir()
            .join("release")
            .join(format!("bench-{}-{tools}", kind.name()));
        Ok(vec![binary.display().to_string()])
    }

    /// Writes and builds (release) the crate `bench-<name>` with these dependencies and
    /// `main.rs`, or writes `server.py` when `dependencies` is empty; returns the program.
    pub fn release_program(
        &self,
        name: &str,
        dependencies: &str,
        source: &str,
    ) -> Result<PathBuf, String> {
        let dir = self.bench_dir().join(name);
        std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
        let write = |path: PathBuf, text: &str| {
            if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
                return Ok(());
            }
            std::fs::write(&path, text).map_err(|e| e.to_string())
        };
        if dependencies.is_empty() {
            let script = dir.join("server.py");
            write(script.clone(), source)?;
            return Ok(script);
        }
        let manifest = format!(
            "[package]\nname = \"bench-{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{dependencies}\n[profile.release]\ndebug = false\n\n[workspace]\n"
        );
        write(dir.join("Cargo.toml"), &manifest)?;
        write(dir.join("src/main.rs"), source)?;
        if !dir.join("Cargo.lock").exists() {
            std::fs::copy(self.root.join("Cargo.lock"), dir.join("Cargo.lock"))
                .map_err(|e| e.to_string())?;
        }
        self.cargo(&dir, &["build", "--release"])?;
        Ok(self
            .target_dir()
            .join("release")
            .join(format!("bench-{name}")))
    }

    /// The build figures of one Rust fixture.
    pub fn build_figures(&self, kind: Kind, tools: usize) -> Result<BuildFigures, String> {
        let dir = self.write(kind, tools)?;
        let package = format!("bench-{}-{tools}", kind.name());
        // Dependencies prebuilt: a warm build first, then the crate alone from clean.
        self.cargo(&dir, &["build", "--release"])?;
        self.cargo(&dir, &["clean", "--release", "-p", &package])?;
        let clean_release_s = self.cargo(&dir, &["build", "--release"])?;
        let binary = self.target_dir().join("release").join(&package);
        let binary_bytes = std::fs::metadata(&binary).map_err(|e| e.to_string())?.len();

        self.cargo(&dir, &["build"])?;
        let main = dir.join("src/main.rs");
        let original = std::fs::read_to_string(&main).map_err(|e| e.to_string())?;
        let edited = original.replacen("(tool 0)", "(tool 0, edited)", 1);
        std::fs::write(&main, edited).map_err(|e| e.to_string())?;
        let rebuilt = self.cargo(&dir, &["build"]);
        std::fs::write(&main, original).map_err(|e| e.to_string())?;
        Ok(BuildFigures {
            clean_release_s,
            dev_rebuild_s: rebuilt?,
            binary_bytes,
        })
    }
}

/// Build figures of one fixture.
#[derive(Debug, Clone, Serialize)]
pub struct BuildFigures {
    /// Clean release build of the fixture crate, dependencies prebuilt, seconds.
    pub clean_release_s: f64,
    /// Dev rebuild after editing one tool, seconds.
    pub dev_rebuild_s: f64,
    /// Size of the release binary.
    pub binary_bytes: u64,
}

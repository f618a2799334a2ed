//! The guide's first crate (its quickstart page): its `Cargo.toml` pins the versions the
//! workspace builds and tests with, so that a new user's crate resolves to what is known to
//! work.

use std::collections::BTreeMap;

const QUICKSTART: &str = include_str!("../../../runtime/src/guide/quickstart.md");
const WORKSPACE: &str = include_str!("../../../Cargo.toml");

/// The `version` of each `name = ...` line (a bare string, or `version = "..."` inside
/// braces) between `[section]` and the next section, and the line itself.
fn dependencies(toml: &str, section: &str) -> BTreeMap<String, (String, String)> {
    let mut inside = false;
    let mut found = BTreeMap::new();
    for line in toml.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == format!("[{section}]");
            continue;
        }
        let Some((name, value)) = line.split_once('=').filter(|_| inside) else {
            continue;
        };
        let value = value.trim();
        let version = match value.strip_prefix('"') {
            Some(bare) => bare.split('"').next(),
            None => value
                .split("version = \"")
                .nth(1)
                .and_then(|v| v.split('"').next()),
        };
        if let Some(version) = version {
            found.insert(
                name.trim().to_owned(),
                (version.to_owned(), line.to_owned()),
            );
        }
    }
    found
}

fn first_crate_manifest() -> &'static str {
    QUICKSTART
        .split("```toml\n")
        .nth(1)
        .and_then(|block| block.split("```").next())
        .expect("with a Cargo.toml")
}

#[test]
fn the_first_crates_versions_are_the_workspaces() {
    let manifest = first_crate_manifest();
    let pinned = dependencies(WORKSPACE, "workspace.dependencies");
    let ours = &dependencies(WORKSPACE, "workspace.package")["version"].0;
    let normal = dependencies(manifest, "dependencies");
    let dev = dependencies(manifest, "dev-dependencies");
    assert_eq!(
        normal.keys().collect::<Vec<_>>(),
        ["schemars", "serde", "tokio", "toolsmith"]
    );
    assert_eq!(dev.keys().collect::<Vec<_>>(), ["serde_json", "toolsmith"]);
    for (name, (version, line)) in normal.iter().chain(&dev) {
        let expected = if name == "toolsmith" {
            ours
        } else {
            &pinned[name].0
        };
        assert_eq!(version, expected, "the quickstart: {line}");
    }
    assert!(normal["serde"].1.contains("\"derive\""));
    for feature in ["\"rt-multi-thread\"", "\"macros\""] {
        assert!(normal["tokio"].1.contains(feature), "{}", normal["tokio"].1);
    }
    assert!(dev["toolsmith"].1.contains("\"testing\""));
    assert!(normal["schemars"].0.starts_with("1."), "schemars 1.x");
}

/// The quickstart says how to depend on toolsmith before it is published (a user outside
/// this repository cannot fetch `"0.1.0"`), and the folder it names holds the crate.
#[test]
fn the_quickstart_says_how_to_depend_before_publication() {
    let text = QUICKSTART.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("Until `toolsmith` is published on crates.io"),
        "{text:.300}"
    );
    assert!(text.contains(r#"toolsmith = { path = "../toolsmith/runtime" }"#));
    let manifest = include_str!("../../../runtime/Cargo.toml");
    assert!(manifest.contains("name = \"toolsmith\""));
}

/// The README does not claim that the guide's sources read as they are while their examples
/// carry rustdoc's hidden `# ` lines: it says what those lines are.
#[test]
fn the_readme_says_what_the_guides_hidden_lines_are() {
    let readme = include_str!("../../../README.md");
    let mut in_code = false;
    let quickstart_hides = QUICKSTART.lines().any(|line| {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        in_code && line.starts_with("# ")
    });
    assert!(quickstart_hides, "the check needs a page with hidden lines");
    assert!(!readme.contains("which read as they are"));
    assert!(readme.contains("rustdoc's hidden lines"));
}

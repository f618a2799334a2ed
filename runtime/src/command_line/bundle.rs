//! `bundle`: an MCP Bundle (`.mcpb`) of this server, which Claude Desktop installs in one
//! click, and the `server.json` the MCP registry lists it by (`toolsmith::bundle`, feature
//! `bundle`). The manifest lists the tools this server offers and its prompts; the user is asked for the serving policy a desktop user
//! may want (read-only, no destructive or open-world tools, confirmation), passed as flags,
//! and for the settings the program declared ([`Server::setting`]), passed in their
//! variables.

use std::path::PathBuf;

use clap::Args;

use crate::{Error, Registry, Server};

/// `bundle`'s arguments: what the package's Cargo.toml does not say, and where to write.
#[derive(Args, Debug)]
pub(super) struct BundleArgs {
    /// The folder to write the bundle and server.json into.
    #[arg(long, value_name = "DIR", default_value = ".")]
    out: PathBuf,
    /// The server binary to bundle (default: this program).
    #[arg(long, value_name = "PATH")]
    binary: Option<PathBuf>,
    /// What the server is for (default: the package's `description`).
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
    /// Who made it, `Name` or `Name <email>` (default: the package's first author, else the
    /// owner of its GitHub repository).
    #[arg(long, value_name = "NAME")]
    author: Option<String>,
    /// The name a host shows (default: the package's name).
    #[arg(long, value_name = "TEXT")]
    display_name: Option<String>,
    /// Its source repository (default: the package's `repository`).
    #[arg(long, value_name = "URL")]
    repository: Option<String>,
    /// The name the MCP registry lists it by, NAMESPACE/NAME (default: io.github.OWNER/NAME
    /// for a GitHub repository).
    #[arg(long, value_name = "NAMESPACE/NAME")]
    registry_name: Option<String>,
    /// Where the bundle will be downloaded from, named in server.json (default: the GitHub
    /// release tagged vVERSION of the repository).
    #[arg(long, value_name = "URL")]
    url: Option<String>,
}

/// Writes the bundle of `server` (its tools in `registry`, `confirm` its confirmation policy)
/// and its `server.json`, as `args` say; prints where.
#[cfg(feature = "bundle")]
pub(super) fn bundle(
    server: &Server,
    registry: &Registry,
    confirm: crate::server::Confirm,
    args: BundleArgs,
) -> Result<u8, Error> {
    use crate::bundle::{Bundle, ConfigField};

    let binary = match args.binary {
        Some(binary) => binary,
        None => std::env::current_exe()?,
    };
    let (name, version) = server.identity(registry);
    let about = registry.main_about().unwrap_or_default();
    let given = |flag: Option<String>, cargo: Option<&str>| {
        flag.or_else(|| {
            cargo
                .filter(|text| !text.trim().is_empty())
                .map(str::to_owned)
        })
    };
    let mut bundle = Bundle::new(binary, name, version);
    bundle.description = given(args.description, about.description).unwrap_or_default();
    bundle.author = given(args.author, about.authors).unwrap_or_default();
    bundle.display_name = args.display_name;
    bundle.repository = given(args.repository, about.repository);
    bundle.homepage = given(None, about.homepage);
    bundle.license = given(None, about.license);
    bundle.args = vec!["serve".to_owned()];
    bundle.tools = registry
        .tools()
        .iter()
        .filter(|tool| server.policy.allows(tool).is_ok())
        .map(|tool| {
            (
                tool.name().to_owned(),
                tool.header().description().to_owned(),
            )
        })
        .collect();
    bundle.tools_generated = server.is_live();
    bundle.prompts = registry.prompts().iter().map(prompt_of).collect();
    bundle.prompts_generated = !bundle.prompts.is_empty();
    bundle.config = vec![
        ConfigField::flag(
            "read_only",
            "Read-only",
            "Offer only read-only tools; calls to any other tool are refused.",
            "--read-only",
        ),
        ConfigField::flag(
            "deny_destructive",
            "No destructive tools",
            "Offer no destructive tool; calls to one are refused.",
            "--deny-destructive",
        ),
        ConfigField::flag(
            "deny_open_world",
            "No open-world tools",
            "Offer no tool that reaches outside the server; calls to one are refused.",
            "--deny-open-world",
        ),
        ConfigField::flag_value(
            "confirm",
            "Ask before",
            "Which tools ask you before every call, besides those that always do: destructive, write (every tool that is not read-only) or none.",
            "--confirm",
            confirm.as_str(),
        ),
    ];
    bundle
        .config
        .extend(server.settings.iter().map(ConfigField::from_setting));
    // What Cargo.toml could have said, said where to say it.
    if bundle.description.trim().is_empty() {
        eprintln!(
            "a bundle needs a description: set `description` in the package's Cargo.toml, or pass --description TEXT"
        );
        return Ok(1);
    }
    let packed = match bundle.write(&args.out) {
        Ok(packed) => packed,
        Err(err) => {
            eprintln!("{err}");
            return Ok(1);
        }
    };
    println!("wrote {} (sha256 {})", packed.path.display(), packed.sha256);
    match bundle.write_registry_entry(&args.out, &packed, args.registry_name, args.url) {
        Ok(Some((path, url))) => {
            println!("wrote {} (the bundle is expected at {url})", path.display());
        }
        Ok(None) => eprintln!("{}", crate::bundle::NO_REGISTRY_ENTRY),
        Err(err) => {
            eprintln!("{err}");
            return Ok(1);
        }
    }
    Ok(0)
}

/// `prompt` as a bundle's manifest lists it. Its messages are made by code at each get, from
/// its arguments and the server's state, so its text is what it says of itself (the
/// manifest says the server generates its prompts).
#[cfg(feature = "bundle")]
fn prompt_of(prompt: &crate::prompt::PromptInfo) -> crate::bundle::Prompt {
    let listed = prompt.mcp_prompt();
    let text = listed
        .description
        .clone()
        .or_else(|| prompt.header().title().map(str::to_owned))
        .unwrap_or_else(|| prompt.name().to_owned());
    let mut entry = crate::bundle::Prompt::new(prompt.name(), text);
    entry.description = listed.description.clone();
    entry.arguments = listed
        .arguments
        .iter()
        .flatten()
        .map(|argument| argument.name.clone())
        .collect();
    entry
}

/// Without the `bundle` feature: how to build with it.
#[cfg(not(feature = "bundle"))]
pub(super) fn bundle(
    _: &Server,
    _: &Registry,
    _: crate::server::Confirm,
    _: BundleArgs,
) -> Result<u8, Error> {
    eprintln!(
        "{} was built without toolsmith's `bundle` feature: build it with `cargo run --features toolsmith/bundle -- bundle` (or features = [\"bundle\"] on its toolsmith dependency)",
        crate::server::executable_name()
    );
    Ok(2)
}

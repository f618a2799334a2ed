//! `toolsmith bundle -- SERVER [ARGS...]`: an MCP Bundle (`.mcpb`) of any stdio MCP server
//! that is one native binary, and its `server.json` (`toolsmith::bundle`). The server is
//! started once and asked its name, version, tools and prompts; the bundle holds the binary,
//! which the host runs with the same arguments. (A toolsmith server has a `bundle` command of
//! its own, which knows its settings and serving policy.)

use std::path::{Path, PathBuf};
use std::time::Duration;

use toolsmith::Setting;
use toolsmith::bundle::{Bundle, BundleError, ConfigField, NO_REGISTRY_ENTRY, Prompt};

use crate::connect::{Failure, connect, spawn, tools};

/// `toolsmith bundle`'s arguments.
#[derive(clap::Args, Debug)]
pub struct BundleArgs {
    /// The server's command: a native binary and the arguments a host runs it with, after
    /// `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,
    /// The folder to write the bundle and server.json into.
    #[arg(long, value_name = "DIR", default_value = ".")]
    out: PathBuf,
    /// What the server is for (default: the description it gives).
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
    /// Who made it, `Name` or `Name <email>` (default: the owner of a GitHub --repository).
    #[arg(long, value_name = "NAME")]
    author: Option<String>,
    /// Its source repository.
    #[arg(long, value_name = "URL")]
    repository: Option<String>,
    /// A setting the server reads from the environment, which the host asks the user for:
    /// `VARIABLE=what it is for` (repeatable).
    #[arg(long = "setting", value_name = "VARIABLE=DESCRIPTION")]
    settings: Vec<String>,
    /// The same for a secret (a token, a password): the host keeps it out of sight.
    #[arg(long = "secret-setting", value_name = "VARIABLE=DESCRIPTION")]
    secret_settings: Vec<String>,
    /// The name the MCP registry lists it by, NAMESPACE/NAME (default: io.github.OWNER/NAME
    /// for a GitHub repository).
    #[arg(long, value_name = "NAMESPACE/NAME")]
    registry_name: Option<String>,
    /// Where the bundle will be downloaded from, named in server.json (default: the GitHub
    /// release tagged vVERSION of the repository).
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Give up when the server has not answered within SECS.
    #[arg(long, value_name = "SECS", default_value = "60")]
    timeout: u64,
}

/// Makes the bundle; returns the exit status (2 for bad arguments, 1 for a server that
/// could not be listed or a bundle that could not be written).
pub async fn bundle(args: BundleArgs) -> u8 {
    match made(args).await {
        Ok(()) => 0,
        Err(Failure::Usage(err)) => {
            eprintln!("{err}");
            2
        }
        Err(Failure::Server(err)) => {
            eprintln!("{err}");
            1
        }
    }
}

async fn made(args: BundleArgs) -> Result<(), Failure> {
    let binary = native_binary(&args.command[0])?;
    let plain = args.settings.iter().map(|setting| (setting, false));
    let secret = args.secret_settings.iter().map(|setting| (setting, true));
    let settings = plain
        .chain(secret)
        .map(|(setting, secret)| match setting.split_once('=') {
            Some((variable, description)) if !variable.trim().is_empty() => {
                let made = Setting::new(variable.trim(), variable.trim(), description.trim());
                Ok(if secret { made.secret() } else { made })
            }
            _ => Err(Failure::Usage(format!(
                "--setting {setting:?}: write it as VARIABLE=what it is for"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let listed = tokio::time::timeout(Duration::from_secs(args.timeout), listed(&args.command));
    let (info, tools, prompts) = listed.await.map_err(|_| {
        Failure::Server(format!(
            "`{}` did not answer within {} s; check that it is a stdio MCP server, or raise --timeout",
            args.command.join(" "),
            args.timeout
        ))
    })??;
    let mut bundle = Bundle::new(binary, info.name, info.version);
    bundle.description = args.description.or(info.description).unwrap_or_default();
    bundle.author = args.author.unwrap_or_default();
    bundle.display_name = info.title;
    bundle.homepage = info.website_url;
    bundle.repository = args.repository;
    bundle.args = args.command[1..].to_vec();
    bundle.tools = tools;
    bundle.prompts_generated = !prompts.is_empty();
    bundle.prompts = prompts;
    bundle.config = settings.iter().map(ConfigField::from_setting).collect();
    let packed = bundle
        .write(&args.out)
        .map_err(|err| Failure::Server(err.to_string()))?;
    println!("wrote {} (sha256 {})", packed.path.display(), packed.sha256);
    match bundle.write_registry_entry(&args.out, &packed, args.registry_name, args.url) {
        Ok(Some((path, url))) => {
            println!("wrote {} (the bundle is expected at {url})", path.display());
        }
        Ok(None) => eprintln!("{NO_REGISTRY_ENTRY}"),
        // A registry name that is not one is the caller's to correct; a file not written, not.
        Err(err @ BundleError::Incomplete(_)) => return Err(Failure::Usage(err.to_string())),
        Err(err) => return Err(Failure::Server(err.to_string())),
    }
    Ok(())
}

/// What the server says of itself, its tools (name, description) and its prompts.
type Listed = (
    toolsmith::rmcp::model::Implementation,
    Vec<(String, String)>,
    Vec<Prompt>,
);

async fn listed(command: &[String]) -> Result<Listed, Failure> {
    let (child, _group) = spawn(command)?;
    let shown = command.join(" ");
    let client = connect(child, None, &shown).await?;
    let info = client
        .peer_info()
        .and_then(|info| info.server_info.clone())
        .ok_or_else(|| Failure::Server(format!("`{shown}` gave no server info")))?;
    let (_, tools, cut) = tools(&client, &shown, 10_000).await?;
    if cut {
        return Err(Failure::Server(format!(
            "`{shown}` lists more than 10000 tools"
        )));
    }
    let tools = tools
        .iter()
        .map(|tool| {
            let text = |key: &str| tool[key].as_str().unwrap_or_default().to_owned();
            (text("name"), text("description"))
        })
        .collect();
    let offers_prompts = client
        .peer_info()
        .is_some_and(|info| info.capabilities.prompts.is_some());
    let prompts = match offers_prompts {
        true => client
            .list_all_prompts()
            .await
            .map_err(|err| Failure::Server(format!("prompts/list failed on {shown}: {err}")))?,
        false => Vec::new(),
    };
    let _ = client.cancel().await;
    let prompts = prompts
        .into_iter()
        .map(|prompt| {
            let text = prompt
                .description
                .clone()
                .or_else(|| prompt.title.clone())
                .unwrap_or_else(|| prompt.name.clone());
            let mut entry = Prompt::new(prompt.name, text);
            entry.description = prompt.description;
            entry.arguments = prompt
                .arguments
                .into_iter()
                .flatten()
                .map(|argument| argument.name)
                .collect();
            entry
        })
        .collect();
    Ok((info, tools, prompts))
}

/// The file of `program` (a path, or a name looked up in `PATH`) when it is a native
/// executable (ELF, Mach-O, PE), which a bundle can hold alone.
fn native_binary(program: &str) -> Result<PathBuf, Failure> {
    let path = match program.contains(std::path::MAIN_SEPARATOR) {
        true => PathBuf::from(program),
        false => on_path(program)
            .ok_or_else(|| Failure::Usage(format!("`{program}` is not a file here nor on PATH")))?,
    };
    let mut head = [0u8; 4];
    let read = std::fs::File::open(&path).and_then(|mut file| {
        use std::io::Read;
        file.read_exact(&mut head)
    });
    if let Err(err) = read {
        return Err(Failure::Usage(format!(
            "cannot read {}: {err}",
            path.display()
        )));
    }
    let native = head == *b"\x7fELF"
        || head[..2] == *b"MZ"
        || matches!(
            u32::from_be_bytes(head),
            0xfeedface | 0xfeedfacf | 0xcefaedfe | 0xcffaedfe | 0xcafebabe
        );
    if !native {
        return Err(Failure::Usage(format!(
            "{} is not a native binary (a script, or an interpreter's program): a bundle of it needs its runtime too; pack a Node or Python server with `mcpb pack` (npm @anthropic-ai/mcpb)",
            path.display()
        )));
    }
    Ok(path)
}

fn on_path(program: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(program))
        .find(|candidate| is_file(candidate))
}

fn is_file(path: &Path) -> bool {
    path.metadata().is_ok_and(|meta| meta.is_file())
}

//! Gateways in front of the toolsmith server on TM Dev Lab's workload (issue [6/7] item 2):
//! `toolsmith gateway` (stateless, the upstream under its own names), FastMCP's proxy
//! (`bench/gateway/fastmcp_proxy.py --http`, stateless) and IBM's ContextForge
//! (`crate::http::contextforge`, which renames the tools), each with the toolsmith fixture as
//! its one upstream over Streamable HTTP. The server measured is the gateway; the upstream's
//! CPU counts with the backends'.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::process::{Running, free_addr, spawn};
use crate::http::contextforge::{self, ContextForge};

/// A gateway to put in front.
#[derive(Debug, Clone)]
pub(super) enum Front {
    /// `toolsmith gateway`, the program given.
    Toolsmith(PathBuf),
    /// FastMCP's proxy, run by the Python given (one with `fastmcp` installed).
    FastMcp(String),
    /// ContextForge's `mcpgateway`, the executable given.
    ContextForge(PathBuf),
}

/// A gateway running in front of the upstream.
pub(super) struct Fronted {
    pub(super) pid: u32,
    pub(super) url: String,
    /// The names the gateway serves the tools under, where they are not their own.
    pub(super) names: BTreeMap<String, String>,
    _running: Kept,
}

impl Fronted {
    /// A gateway that is one process, serving the tools under their own names at
    /// `http://addr/mcp`.
    fn process(running: Running, addr: &str) -> Fronted {
        Fronted {
            pid: running.0.id(),
            url: format!("http://{addr}/mcp"),
            names: BTreeMap::new(),
            _running: Kept::Process(running),
        }
    }
}

enum Kept {
    Process(#[allow(dead_code)] Running),
    ContextForge(#[allow(dead_code)] ContextForge),
}

/// Starts `front` with `upstream` (`http://ADDR/mcp`) as its one upstream; `scratch` holds
/// its configuration.
pub(super) fn start(front: &Front, upstream: &str, scratch: &Path) -> Result<Fronted, String> {
    match front {
        Front::Toolsmith(program) => {
            let config = scratch.join("tmdevlab-gateway.toml");
            std::fs::write(
                &config,
                format!("[servers.tm]\ntype = \"http\"\nurl = \"{upstream}\"\nprefix = \"\"\n"),
            )
            .map_err(|e| e.to_string())?;
            let addr = free_addr()?;
            let config = config.display().to_string();
            // Stateless, as the server it fronts (`--stateless` where the build knows it).
            let mut args = ["gateway", "--config", &config, "serve", "--http", &addr]
                .map(str::to_owned)
                .to_vec();
            let before = ["gateway", "--config", config.as_str()];
            args.extend(crate::http::stateless(program, &before).map(str::to_owned));
            Ok(Fronted::process(spawn(program, &args, &[])?, &addr))
        }
        Front::FastMcp(python) => {
            let addr = free_addr()?;
            let proxy = crate::build::Workspace::current()
                .root
                .join("bench/gateway/fastmcp_proxy.py");
            let args = [
                proxy.display().to_string(),
                "--http".into(),
                addr.clone(),
                upstream.into(),
            ];
            Ok(Fronted::process(
                spawn(Path::new(python), &args, &[])?,
                &addr,
            ))
        }
        Front::ContextForge(mcpgateway) => {
            let forge = contextforge::start(mcpgateway, upstream, scratch)?;
            Ok(Fronted {
                pid: forge.pid(),
                url: forge.url(),
                names: forge.names.clone(),
                _running: Kept::ContextForge(forge),
            })
        }
    }
}

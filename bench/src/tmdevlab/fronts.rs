//! Gateways in front of the toolsmith server on TM Dev Lab's workload (issue [6/7] item 2):
//! `toolsmith gateway` (stateless, the upstream under its own names) and IBM's ContextForge
//! (`crate::http::contextforge`, which renames the tools), each with the toolsmith fixture as
//! its one upstream over Streamable HTTP. The server measured is the gateway; the upstream's
//! CPU counts with the backends'.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Running, free_addr, spawn};
use crate::http::contextforge::{self, ContextForge};

/// A gateway to put in front.
#[derive(Debug, Clone)]
pub(super) enum Front {
    /// `toolsmith gateway`, the program given.
    Toolsmith(PathBuf),
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

enum Kept {
    Toolsmith(#[allow(dead_code)] Running),
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
            let args = [
                "gateway",
                "--config",
                &config,
                "serve",
                "--http",
                &addr,
                "--stateless",
            ]
            .map(str::to_owned);
            let running = spawn(program, &args, &[])?;
            Ok(Fronted {
                pid: running.0.id(),
                url: format!("http://{addr}/mcp"),
                names: BTreeMap::new(),
                _running: Kept::Toolsmith(running),
            })
        }
        Front::ContextForge(mcpgateway) => {
            let forge = contextforge::start(mcpgateway, upstream, scratch)?;
            Ok(Fronted {
                pid: forge.pid(),
                url: forge.url.clone(),
                names: forge.names.clone(),
                _running: Kept::ContextForge(forge),
            })
        }
    }
}

//! `audit`: the checks of `toolsmith audit` (crate `toolsmith-audit`) on this server's own
//! tools, in-process: the tools/list JSON every client gets, without a connection.

use crate::Error;
use crate::server::executable_name;

/// Audits every registered tool as `tools/list` shows it, and prints the report as
/// `options` ask. A toolsmith server passes with no error: `#[tool]` states every hint,
/// refuses contradictions, bad names and missing descriptions at compile time, and writes
/// portable object schemas.
pub(super) fn audit(
    registry: &crate::Registry,
    options: &toolsmith_audit::Options,
) -> Result<u8, Error> {
    let tools = registry
        .tools()
        .iter()
        .map(|tool| serde_json::to_value(tool.mcp_tool()).map_err(|err| Error::Encode(err.into())))
        .collect::<Result<Vec<_>, Error>>()?;
    let server = match registry.main_package() {
        Some((name, version)) => toolsmith_audit::Server {
            name: name.to_owned(),
            version: Some(version.to_owned()),
            protocol_version: None,
        },
        None => toolsmith_audit::Server::named(executable_name()),
    };
    let report = toolsmith_audit::Report::new(server, tools);
    Ok(options.finish(report, &mut std::io::stdout().lock())?)
}

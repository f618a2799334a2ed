//! The MCP headers a request is screened by, named once: a lookup by a name made here skips
//! parsing the name on every request.

use axum::http::HeaderName;

pub(super) static MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
pub(super) static MCP_PROTOCOL_VERSION: HeaderName =
    HeaderName::from_static("mcp-protocol-version");
pub(super) static LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
pub(super) static MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
pub(super) static MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");

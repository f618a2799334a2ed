//! The HTTP benchmark's servers: the stdio fixtures' tools (see `crate::fixtures`) served
//! over stateless Streamable HTTP by toolsmith, by rmcp's `StreamableHttpService` (in its
//! best configuration and as rmcp's examples serve it), by FastMCP, and a ceiling: a bare
//! hyper handler answering the same JSON, no framework.

use crate::fixtures;

/// A server under test over HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HttpKind {
    /// `notes serve --http`-style: `toolsmith::run()`.
    Toolsmith,
    /// rmcp's macros on `StreamableHttpService`, stateless, a prebuilt router cloned per
    /// request, `TCP_NODELAY`: its best configuration.
    RmcpBest,
    /// rmcp as its examples serve it: `axum::serve` without `TCP_NODELAY`, SSE responses.
    RmcpDefault,
    /// FastMCP, `stateless_http=True`.
    FastMcp,
    /// A bare hyper handler: the ceiling.
    Ceiling,
}

impl HttpKind {
    /// Its short name.
    pub fn name(self) -> &'static str {
        match self {
            HttpKind::Toolsmith => "toolsmith",
            HttpKind::RmcpBest => "rmcp",
            HttpKind::RmcpDefault => "rmcp-default",
            HttpKind::FastMcp => "fastmcp",
            HttpKind::Ceiling => "ceiling",
        }
    }

    /// The fixture crate's (or script's) name: both rmcp configurations are one binary.
    pub fn crate_name(self) -> &'static str {
        match self {
            HttpKind::Toolsmith => "toolsmith-http",
            HttpKind::RmcpBest | HttpKind::RmcpDefault => "rmcp-http",
            HttpKind::FastMcp => "fastmcp-http",
            HttpKind::Ceiling => "ceiling-http",
        }
    }

    /// The dependencies of its crate (none for FastMCP).
    pub fn dependencies(self, root: &str) -> String {
        if self == HttpKind::FastMcp {
            return String::new();
        }
        let common = "serde = { version = \"1.0.229\", features = [\"derive\"] }\nserde_json = { version = \"1.0.154\", features = [\"raw_value\"] }\ntokio = { version = \"1.54.1\", features = [\"rt-multi-thread\", \"macros\", \"net\"] }\n";
        let own = match self {
            HttpKind::Toolsmith => format!(
                "toolsmith = {{ path = \"{root}/runtime\", features = [\"auth\"] }}\nschemars = {{ version = \"1.2.3\", features = [\"derive\"] }}\n"
            ),
            HttpKind::RmcpBest | HttpKind::RmcpDefault => "rmcp = { version = \"=3.11.0\", default-features = false, features = [\"server\", \"macros\", \"transport-streamable-http-server\"] }\naxum = { version = \"0.8.9\", default-features = false, features = [\"http1\", \"tokio\"] }\nschemars = { version = \"1.2.3\", features = [\"derive\"] }\n".to_owned(),
            HttpKind::Ceiling => "hyper = { version = \"1\", features = [\"server\", \"http1\"] }\nhyper-util = { version = \"0.1\", features = [\"tokio\"] }\nhttp-body-util = \"0.1\"\nbytes = \"1\"\n".to_owned(),
            HttpKind::FastMcp => String::new(),
        };
        format!("{own}{common}")
    }

    /// The server's source (`main.rs`, or `server.py`) with `tools` tools.
    pub fn source(self, tools: usize) -> String {
        match self {
            HttpKind::Toolsmith => fixtures::toolsmith_run(tools),
            HttpKind::RmcpBest | HttpKind::RmcpDefault => {
                fixtures::rmcp_with_main(tools, RMCP_IMPORTS, RMCP_MAIN)
            }
            HttpKind::FastMcp => fixtures::fastmcp_with_main(tools, FASTMCP_MAIN),
            HttpKind::Ceiling => ceiling(tools),
        }
    }

    /// The arguments that serve it at `addr` in response `mode` (`json` or `sse`), with
    /// authorization when `auth` gives (issuer, JWKS file).
    pub fn args(self, addr: &str, mode: &str, auth: Option<(&str, &str)>) -> Vec<String> {
        let mut args: Vec<String> = match self {
            HttpKind::Toolsmith => {
                let mut args = vec!["serve".into(), "--http".into(), addr.into()];
                if mode == "sse" {
                    args.push("--sse-responses".into());
                }
                args
            }
            HttpKind::RmcpBest => vec![addr.into(), mode.into()],
            HttpKind::RmcpDefault => vec![addr.into(), "default".into()],
            HttpKind::FastMcp => vec![addr.into(), mode.into()],
            HttpKind::Ceiling => vec![addr.into()],
        };
        if let (HttpKind::Toolsmith, Some((issuer, jwks))) = (self, auth) {
            args.extend([
                "--auth-issuer".into(),
                issuer.into(),
                "--auth-jwks".into(),
                jwks.into(),
            ]);
        }
        args
    }
}

const RMCP_IMPORTS: &str = "use std::sync::Arc;\nuse rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};\nuse rmcp::transport::streamable_http_server::session::local::LocalSessionManager;\nuse axum::serve::ListenerExt;\n";

/// `BIN ADDR json|sse|default`: stateless; `json` and `sse` are rmcp's best configuration (a
/// router built once and cloned per request, `TCP_NODELAY`), `default` is how rmcp's
/// examples serve (`axum::serve` as is, SSE).
const RMCP_MAIN: &str = r#"
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().collect();
    let (addr, mode) = (args[1].clone(), args[2].clone());
    let prebuilt = Bench { tool_router: Bench::tool_router() };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(mode == "json");
    let service = StreamableHttpService::new(
        move || Ok(prebuilt.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    if mode == "default" {
        axum::serve(listener, router).await?;
    } else {
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router).await?;
    }
    Ok(())
}
"#;

const FASTMCP_MAIN: &str = r#"

if __name__ == "__main__":
    import sys

    host, port = sys.argv[1].rsplit(":", 1)
    mcp.run(
        transport="http",
        host=host,
        port=int(port),
        path="/mcp",
        stateless_http=True,
        json_response=sys.argv[2] == "json",
        show_banner=False,
        log_level="WARNING",
    )
"#;

/// The ceiling: hyper answering `tools/list` (serialized once per revision) and
/// `tools/call` (the tool's answer) as JSON on `POST /mcp`, with `TCP_NODELAY`, in the
/// shapes of the revision the request's `_meta` names; no checks but parsing (headers are
/// not read).
fn ceiling(tools: usize) -> String {
    let common = fixtures::ceiling_common(tools);
    format!(
        r##"// @generated by toolsmith-bench (http::fixtures): do not edit.
//! The HTTP ceiling: a bare hyper handler for {tools} tools, no framework.
#![cfg_attr(rustfmt, rustfmt::skip)]

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{{BodyExt, Full}};
use hyper::body::Incoming;
use hyper::{{Request, Response}};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;

{common}
#[derive(Deserialize)]
struct Message<'a> {{
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}}

fn answer(lists: &[String; 2], body: &[u8]) -> String {{
    let Ok(message) = serde_json::from_slice::<Message>(body) else {{
        return r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32700,"message":"parse error"}}}}"#.to_owned();
    }};
    let id = message.id.map_or("null", |id| id.get());
    match message.method {{
        "initialize" => format!(r#"{{{{"jsonrpc":"2.0","id":{{id}},"result":{{{{"protocolVersion":"2025-11-25","capabilities":{{{{"tools":{{{{}}}}}}}},"serverInfo":{{{{"name":"ceiling","version":"0"}}}}}}}}}}}}"#),
        "tools/list" => {{
            let list = &lists[stateless(message.params) as usize];
            format!(r#"{{{{"jsonrpc":"2.0","id":{{id}},"result":{{list}}}}}}"#)
        }}
        "tools/call" => {{
            match message.params.and_then(|p| answer_text(p.get())) {{
                Some((text, modern)) => {{
                    let text = serde_json::to_string(&text).unwrap();
                    let complete = complete(modern);
                    format!(r#"{{{{"jsonrpc":"2.0","id":{{id}},"result":{{{{"content":[{{{{"type":"text","text":{{text}}}}}}],"isError":false{{complete}}}}}}}}}}"#)
                }}
                None => format!(r#"{{{{"jsonrpc":"2.0","id":{{id}},"error":{{{{"code":-32602,"message":"invalid params"}}}}}}}}"#),
            }}
        }}
        _ => format!(r#"{{{{"jsonrpc":"2.0","id":{{id}},"error":{{{{"code":-32601,"message":"method not found"}}}}}}}}"#),
    }}
}}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {{
    let lists: Arc<[String; 2]> = Arc::new(tool_lists());
    let addr = std::env::args().nth(1).expect("ADDR");
    let listener = tokio::net::TcpListener::bind(addr).await?;
    loop {{
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let lists = lists.clone();
        tokio::spawn(async move {{
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {{
                let lists = lists.clone();
                async move {{
                    let body = request.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                    let answer = answer(&lists, &body);
                    let response = Response::builder()
                        .header("content-type", "application/json")
                        .body(Full::new(Bytes::from(answer)))
                        .unwrap();
                    Ok::<_, Infallible>(response)
                }}
            }});
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        }});
    }}
}}
"##
    )
}

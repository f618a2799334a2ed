//! The protocol on the wire: the fixture server and the examples as child processes, over
//! stdio and Streamable HTTP, with rmcp's client, raw JSON-RPC lines and raw HTTP. The
//! differential tests (`differential.rs`, with `harness.rs`) send one script along every
//! path and compare the answers.

mod approvals;
mod asking;
mod auth;
mod auth_keys;
mod backlog;
mod chaos;
mod confirm;
mod content;
mod differential;
mod gateway;
mod harness;
mod http;
mod http_2026;
mod http_adversarial;
mod http_handshake;
mod http_limits;
mod http_logs;
mod http_origins;
mod http_paths;
mod http_routes;
mod http_sessions;
mod http_sessions_fast;
mod http_startup;
mod id_reuse;
mod layers;
mod lifecycle;
mod logs;
mod malformed;
mod open_world;
mod protocol_edges;
mod replicas;
mod resources;
mod rounds;
mod signin;
mod stdio;
mod stdio_guard;
mod tasks_http;
mod tool_search;

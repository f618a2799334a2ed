//! The runs of one round at one revision: the requests each revision sends, the check of a
//! server's answers before it is measured, the wrk loads, the memory figure and the cost of
//! authorization.

use std::time::Duration;

use serde_json::json;

use super::{HttpKind, ISSUER, Options, Programs, Running, Sample, Setup, probe, wrk};
use crate::load::{cpu_time, peak_rss};
use crate::revision::Revision;

/// The tool every HTTP call names (wrk sends the same request over and over).
const CALLED: &str = "tool_7";

/// A request of `method` as `revision` sends it: its body and its MCP headers.
pub(super) struct Request {
    pub(super) body: String,
    pub(super) headers: Vec<(String, String)>,
}

pub(super) fn call_request(revision: Revision) -> Request {
    let params = revision.params(json!({"name": CALLED, "arguments": {"a": 1, "b": 2}}));
    Request {
        body: json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
            .to_string(),
        headers: revision.http_headers("tools/call", Some(CALLED)),
    }
}

fn list_request(revision: Revision) -> Request {
    let mut body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    if revision.stateless() {
        body["params"] = revision.params(json!({}));
    }
    Request {
        body: body.to_string(),
        headers: revision.http_headers("tools/list", None),
    }
}

/// Checks that `server` answers a call and a list correctly, in `revision`'s shapes,
/// before it is measured.
pub(super) fn check(
    server: &Running,
    tools: usize,
    token: Option<&str>,
    label: &str,
    revision: Revision,
) -> Result<(), String> {
    let label = format!("{label} at {revision}");
    let call = call_request(revision);
    let called = probe::post(&server.addr, &call.body, &call.headers, token)
        .map_err(|e| format!("{label}: {e}"))?;
    let text = called["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    if text != r#"{"tool":7,"sum":3,"label":""}"# || called["result"]["isError"] == true {
        return Err(format!("{label}: wrong tools/call answer {called}"));
    }
    revision
        .check_result(&called["result"])
        .map_err(|e| format!("{label}: tools/call: {e}"))?;
    let list = list_request(revision);
    let listed = probe::post(&server.addr, &list.body, &list.headers, token)
        .map_err(|e| format!("{label}: {e}"))?;
    let count = listed["result"]["tools"].as_array().map_or(0, Vec::len);
    if count != tools {
        return Err(format!(
            "{label}: tools/list has {count} tools, not {tools}"
        ));
    }
    revision
        .check_result(&listed["result"])
        .map_err(|e| format!("{label}: tools/list: {e}"))
}

/// The wrk scripts of one revision.
pub(super) struct Scripts {
    call: String,
    list: String,
}

impl Scripts {
    /// The script of a `tools/call`.
    pub(super) fn call(&self) -> &str {
        &self.call
    }

    pub(super) fn write(scratch: &std::path::Path, revision: Revision) -> Result<Scripts, String> {
        let (call, list) = (call_request(revision), list_request(revision));
        Ok(Scripts {
            call: wrk::script(
                scratch,
                &format!("call-{revision}"),
                &call.body,
                &call.headers,
                None,
            )?,
            list: wrk::script(
                scratch,
                &format!("list-{revision}"),
                &list.body,
                &list.headers,
                None,
            )?,
        })
    }
}

/// What the runs of one round at one revision share.
pub(super) struct Context<'a> {
    pub programs: &'a Programs,
    pub wrk: &'a str,
    pub scripts: &'a Scripts,
    pub options: &'a Options,
    pub round: usize,
    pub revision: Revision,
}

impl Context<'_> {
    /// One server under every load: calls and lists, at each connection count.
    pub(super) fn load(&self, setup: Setup, samples: &mut Vec<Sample>) -> Result<(), String> {
        let (options, revision) = (self.options, self.revision);
        let server = self.programs.start(setup, None)?;
        check(&server, options.tools, None, &setup.label(), revision)?;
        let pid = server.child.id();
        let url = format!("http://{}/mcp", server.addr);
        let label = format!("{} {revision}", setup.label());
        for (method, script) in [
            ("tools/call", &self.scripts.call),
            ("tools/list", &self.scripts.list),
        ] {
            for &connections in &options.connections {
                // The default configuration's 40 ms per request (Nagle against delayed
                // ACKs) is measured at one and 64 connections only.
                if setup.kind == HttpKind::RmcpDefault && !(connections == 1 || connections == 64) {
                    continue;
                }
                // FastMCP answers in milliseconds: its runs are longer, so that some
                // requests complete even at 256 connections.
                let duration = if setup.kind == HttpKind::FastMcp {
                    options.duration.max(Duration::from_secs(10))
                } else {
                    options.duration
                };
                let before = cpu_time(pid);
                let run = match wrk::run(self.wrk, &url, script, connections, duration) {
                    Ok(run) => run,
                    // FastMCP times out under the heavier loads: noted, not measured.
                    Err(e) if setup.kind == HttpKind::FastMcp => {
                        eprintln!(
                            "  {label:<33} {method:<10} c={connections:<4} not measured: {e}"
                        );
                        continue;
                    }
                    Err(e) => return Err(format!("{label} {method} c={connections}: {e}")),
                };
                let cpu = cpu_time(pid).saturating_sub(before);
                let cpu_us = cpu.as_secs_f64() * 1e6 / run.requests.max(1) as f64;
                eprintln!(
                    "  {label:<33} {method:<10} c={connections:<4} {:>9.0}/s p50 {:>8.0} µs p99 {:>8.0} µs cpu {:>6.1} µs",
                    run.per_second, run.p50_us, run.p99_us, cpu_us
                );
                if run.requests == 0 {
                    continue;
                }
                samples.push(Sample {
                    round: self.round,
                    revision,
                    server: setup.label(),
                    method,
                    connections,
                    per_second: run.per_second,
                    p50_us: run.p50_us,
                    p99_us: run.p99_us,
                    cpu_us,
                });
            }
        }
        Ok(())
    }

    /// Peak RSS (kB) of a fresh server after `rss_connections` connections called for 3 s.
    pub(super) fn rss(&self, setup: Setup) -> Result<u64, String> {
        let connections = self.options.rss_connections;
        let server = self.programs.start(setup, None)?;
        let url = format!("http://{}/mcp", server.addr);
        wrk::run(
            self.wrk,
            &url,
            &self.scripts.call,
            connections,
            Duration::from_secs(3),
        )
        .map_err(|e| {
            format!(
                "{} at {} with {connections} connections: {e}",
                setup.label(),
                self.revision
            )
        })?;
        let rss = peak_rss(server.child.id());
        eprintln!(
            "  {:<33} peak RSS {rss} kB with {connections} connections",
            format!("{} {}", setup.label(), self.revision)
        );
        Ok(rss)
    }
}

/// Server CPU per call at 64 connections, toolsmith (JSON) without and with authorization
/// (a JWKS file, an RS256 token; the validated token is cached until its `exp`).
pub(super) fn auth_overhead(
    context: &Context,
    scratch: &std::path::Path,
) -> Result<(f64, f64), String> {
    let (programs, revision) = (context.programs, context.revision);
    let setup = Setup {
        kind: HttpKind::Toolsmith,
        mode: "json",
    };
    let key = toolsmith_tests::keys::Key::rsa("bench");
    let jwks = scratch.join("jwks.json");
    std::fs::write(&jwks, toolsmith_tests::keys::jwks(&[&key])).map_err(|e| e.to_string())?;
    let mut figures = [0.0; 2];
    for (i, authorized) in [false, true].into_iter().enumerate() {
        let jwks = jwks.display().to_string();
        let server = programs.start(setup, authorized.then_some((ISSUER, jwks.as_str())))?;
        let call = call_request(revision);
        let url = format!("http://{}/mcp", server.addr);
        let token = authorized.then(|| {
            key.sign(&toolsmith_tests::keys::claims(
                ISSUER,
                &url,
                "bench",
                "tools:destructive",
            ))
        });
        check(
            &server,
            context.options.tools,
            token.as_deref(),
            "toolsmith (auth)",
            revision,
        )?;
        let script = wrk::script(
            scratch,
            &format!("auth-{authorized}-{revision}"),
            &call.body,
            &call.headers,
            token.as_deref(),
        )?;
        let pid = server.child.id();
        let before = cpu_time(pid);
        let run = wrk::run(context.wrk, &url, &script, 64, context.options.duration)?;
        let cpu = cpu_time(pid).saturating_sub(before);
        figures[i] = cpu.as_secs_f64() * 1e6 / run.requests.max(1) as f64;
    }
    eprintln!(
        "  toolsmith (json) {revision} cpu per call: {:.1} µs, with auth {:.1} µs",
        figures[0], figures[1]
    );
    Ok((figures[0], figures[1]))
}

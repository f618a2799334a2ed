//! Driving `wrk` (Debian's package, installed when missing): keep-alive connections sending
//! one JSON-RPC POST over and over, with latency percentiles.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde::Serialize;

/// What one `wrk` run measured.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Run {
    pub requests: u64,
    pub per_second: f64,
    pub p50_us: f64,
    pub p99_us: f64,
}

/// `wrk`'s path, installing the Debian package when it is missing (as root).
pub fn ensure() -> Result<String, String> {
    for path in ["/usr/bin/wrk", "/usr/local/bin/wrk"] {
        if Path::new(path).exists() {
            return Ok(path.to_owned());
        }
    }
    eprintln!("installing wrk (Debian package)");
    let status = Command::new("sh")
        .args([
            "-c",
            "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >&2 || (apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >&2)",
        ])
        .status()
        .map_err(|e| e.to_string())?;
    if status.success() && Path::new("/usr/bin/wrk").exists() {
        Ok("/usr/bin/wrk".to_owned())
    } else {
        Err("wrk is not installed and could not be installed (apt-get install wrk)".into())
    }
}

/// The Lua script that makes every request `body` with the content negotiation headers,
/// `headers` (the MCP ones of the request's revision) and a bearer token, if any.
pub fn script(
    dir: &Path,
    name: &str,
    body: &str,
    headers: &[(String, String)],
    token: Option<&str>,
) -> Result<String, String> {
    let quote = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut lua = format!(
        "wrk.method = \"POST\"\nwrk.body = \"{}\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.headers[\"Accept\"] = \"application/json, text/event-stream\"\n",
        quote(body)
    );
    for (header, value) in headers {
        lua.push_str(&format!(
            "wrk.headers[\"{}\"] = \"{}\"\n",
            quote(header),
            quote(value)
        ));
    }
    if let Some(token) = token {
        lua.push_str(&format!(
            "wrk.headers[\"Authorization\"] = \"Bearer {token}\"\n"
        ));
    }
    let path = dir.join(format!("{name}.lua"));
    std::fs::write(&path, lua).map_err(|e| e.to_string())?;
    Ok(path.display().to_string())
}

/// Runs `wrk` with `connections` keep-alive connections for `duration` against `url`.
pub fn run(
    wrk: &str,
    url: &str,
    script: &str,
    connections: usize,
    duration: Duration,
) -> Result<Run, String> {
    let threads = connections.clamp(1, 2);
    let output = Command::new(wrk)
        .args([
            "-t",
            &threads.to_string(),
            "-c",
            &connections.to_string(),
            "-d",
            &format!("{}s", duration.as_secs().max(1)),
            "--timeout",
            "10s",
            "--latency",
            "-s",
            script,
            url,
        ])
        .output()
        .map_err(|e| format!("wrk: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        return Err(format!(
            "wrk failed: {text}{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    parse(&text)
}

fn parse(text: &str) -> Result<Run, String> {
    if let Some(line) = text
        .lines()
        .find(|l| l.contains("Non-2xx or 3xx responses"))
    {
        return Err(format!("wrk saw failed requests: {}", line.trim()));
    }
    if let Some(line) = text.lines().find(|l| l.contains("Socket errors")) {
        // Timeouts or resets mean the figures are not of a healthy server.
        let bad = line
            .split(',')
            .filter_map(|part| part.split_whitespace().last()?.parse::<u64>().ok())
            .sum::<u64>();
        if bad > 0 {
            return Err(format!("wrk: {}", line.trim()));
        }
    }
    let percentile = |p: &str| {
        text.lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(p))
            .and_then(|v| micros(v.trim()))
            .ok_or_else(|| format!("no {p} latency in wrk's output:\n{text}"))
    };
    let per_second = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Requests/sec:"))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .ok_or_else(|| format!("no Requests/sec in wrk's output:\n{text}"))?;
    let requests = text
        .lines()
        .find(|l| l.contains("requests in"))
        .and_then(|l| l.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap_or(0);
    Ok(Run {
        requests,
        per_second,
        p50_us: percentile("50%")?,
        p99_us: percentile("99%")?,
    })
}

/// `123.45us`, `1.20ms`, `2.00s` in microseconds.
fn micros(value: &str) -> Option<f64> {
    let split = value.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = value.split_at(split);
    let number: f64 = number.parse().ok()?;
    Some(match unit {
        "us" => number,
        "ms" => number * 1e3,
        "s" => number * 1e6,
        "m" => number * 60e6,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::{parse, script};
    use crate::revision::Revision;

    #[test]
    fn a_script_sends_the_revision_headers() {
        let dir = std::env::temp_dir().join(format!("wrk-script-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let headers = Revision::V2026_07_28.http_headers("tools/call", Some("tool_7"));
        let path = script(&dir, "call", r#"{"a":"b"}"#, &headers, Some("t0k")).unwrap();
        let lua = std::fs::read_to_string(path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        for line in [
            r#"wrk.body = "{\"a\":\"b\"}""#,
            r#"wrk.headers["MCP-Protocol-Version"] = "2026-07-28""#,
            r#"wrk.headers["Mcp-Method"] = "tools/call""#,
            r#"wrk.headers["Mcp-Name"] = "tool_7""#,
            r#"wrk.headers["Authorization"] = "Bearer t0k""#,
        ] {
            assert!(lua.lines().any(|l| l == line), "{line} in {lua}");
        }
    }

    #[test]
    fn wrk_output_is_read() {
        let out = "Running 2s test @ http://127.0.0.1:1/mcp\n  2 threads and 64 connections\n  Latency Distribution\n     50%  412.00us\n     75%  600.00us\n     90%    1.01ms\n     99%    2.50ms\n  30000 requests in 2.00s, 9.00MB read\nRequests/sec:  15000.12\nTransfer/sec:      4.50MB\n";
        let run = parse(out).unwrap();
        assert_eq!(run.requests, 30000);
        assert_eq!(run.p50_us, 412.0);
        assert_eq!(run.p99_us, 2500.0);
        assert!((run.per_second - 15000.12).abs() < 1e-6);
        assert!(parse(&format!("{out}  Non-2xx or 3xx responses: 5\n")).is_err());
        assert!(
            parse(&format!(
                "{out}  Socket errors: connect 0, read 3, write 0, timeout 0\n"
            ))
            .is_err()
        );
    }
}

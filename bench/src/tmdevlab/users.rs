//! TM Dev Lab v2's virtual users (its `benchmark.js`, a k6 script, rewritten here): each
//! user loops over the three tools, one session per call (`initialize` at 2024-11-05,
//! `notifications/initialized`, `tools/call`, `DELETE` when the server gave a session id),
//! then a `tools/list` session, then sleeps 50 ms. Each answer is checked as the script
//! checks it. Counted as the script counts: a request is an `initialize`, a `tools/call` or
//! a `tools/list` (the notification and the `DELETE` are protocol overhead); latency is a tool
//! call's. A request counts when it began and ended within the measured window, and a user
//! starts no session after it.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use reqwest::Client;
use serde_json::{Value, json};

/// One load: `vus` users against `url`, measured after `warmup` for `window`.
#[derive(Debug, Clone)]
pub struct Load {
    pub url: String,
    pub vus: usize,
    pub warmup: Duration,
    pub window: Duration,
    /// The name a tool is served under, where it is not its own (a gateway that renames).
    pub names: BTreeMap<String, String>,
}

/// What the users saw within the measured window.
#[derive(Debug, Default, Clone)]
pub struct Seen {
    /// `initialize`, `tools/call` and `tools/list` requests.
    pub requests: u64,
    /// Every HTTP request, the notification and `DELETE` included.
    pub http_requests: u64,
    /// Requests that failed, and answers that failed their check.
    pub errors: u64,
    /// Each tool call's duration, µs.
    pub calls_us: Vec<u32>,
    /// Each `initialize`'s duration, µs.
    pub initialize_us: Vec<u32>,
    /// The first error seen, to show.
    pub first_error: Option<String>,
}

impl Seen {
    fn merge(&mut self, other: Seen) {
        self.requests += other.requests;
        self.http_requests += other.http_requests;
        self.errors += other.errors;
        self.calls_us.extend(other.calls_us);
        self.initialize_us.extend(other.initialize_us);
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }

    fn error(&mut self, counted: bool, why: String) {
        if counted {
            self.errors += 1;
            self.first_error.get_or_insert(why);
        }
    }
}

/// Runs `load` on the current runtime: every user until the window ends.
pub async fn run(load: &Load) -> Seen {
    let client = Client::builder()
        .pool_max_idle_per_host(load.vus)
        .tcp_nodelay(true)
        .timeout(Duration::from_secs(30))
        .build()
        .expect("an HTTP client");
    let start = Instant::now();
    let (from, until) = (start + load.warmup, start + load.warmup + load.window);
    let users: Vec<_> = (1..=load.vus)
        .map(|vu| {
            let (client, url, names) = (client.clone(), load.url.clone(), load.names.clone());
            tokio::spawn(async move { user(vu, client, url, names, from, until).await })
        })
        .collect();
    let mut seen = Seen::default();
    for user in users {
        if let Ok(one) = user.await {
            seen.merge(one);
        }
    }
    seen
}

/// A user's three tool calls, as the script makes them.
fn tools(user: &str) -> [(&'static str, Value); 3] {
    [
        (
            "search_products",
            json!({"category": "Electronics", "min_price": 50.0, "max_price": 500.0, "limit": 10}),
        ),
        ("get_user_cart", json!({"user_id": user})),
        (
            "checkout",
            json!({"user_id": user, "items": [
                {"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}
            ]}),
        ),
    ]
}

/// Whether a tool's answer is what the script's check expects.
fn check(tool: &str, answer: &Value) -> bool {
    let Some(text) = answer["result"]["content"][0]["text"].as_str() else {
        return false;
    };
    let Ok(d) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    let len = |v: &Value| v.as_array().map_or(0, Vec::len);
    match tool {
        "search_products" => {
            d["total_found"] == 2251
                && len(&d["products"]) == 10
                && len(&d["top10_popular_ids"]) == 10
        }
        "get_user_cart" => {
            d["user_id"].as_str().is_some_and(|u| !u.is_empty())
                && len(&d["cart"]["items"]) >= 1
                && len(&d["recent_history"]) == 5
        }
        _ => {
            d["status"] == "confirmed"
                && d["total"].as_f64().is_some_and(|t| t > 0.0)
                && d["items_count"] == 2
        }
    }
}

async fn user(
    vu: usize,
    client: Client,
    url: String,
    names: BTreeMap<String, String>,
    from: Instant,
    until: Instant,
) -> Seen {
    let user_id = format!("user-{:05}", vu % 1000);
    // Written once: the generator's own work competes with the server for the same cores.
    let calls = tools(&user_id).map(|(tool, arguments)| {
        let served = names.get(tool).map_or(tool, String::as_str);
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": served, "arguments": arguments}});
        (tool, call.to_string())
    });
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}).to_string();
    let mut seen = Seen::default();
    let session = Session {
        client: &client,
        url: &url,
    };
    let window = Window { from, until };
    'users: while Instant::now() < until {
        for (tool, call) in &calls {
            if Instant::now() >= until {
                break 'users;
            }
            let began = Instant::now();
            let result = session.run(call, true, &window, &mut seen).await;
            let counted = window.counts(began);
            match result {
                Ok(answer) if check(tool, &answer) => {}
                Ok(answer) => seen.error(counted, format!("{tool} failed its check: {answer}")),
                Err(why) => seen.error(counted, format!("{tool}: {why}")),
            }
        }
        if Instant::now() >= until {
            break;
        }
        let began = Instant::now();
        let result = session.run(&list, false, &window, &mut seen).await;
        let counted = window.counts(began);
        match result {
            Ok(answer) if answer["result"]["tools"].is_array() => {}
            Ok(answer) => seen.error(counted, format!("tools/list failed its check: {answer}")),
            Err(why) => seen.error(counted, format!("tools/list: {why}")),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    seen
}

/// The measured window: a request counts when it began in it and ended in it (a request
/// still running at its end, on a server that answers in seconds, is not one it served).
struct Window {
    from: Instant,
    until: Instant,
}

impl Window {
    fn counts(&self, began: Instant) -> bool {
        began >= self.from && Instant::now() <= self.until
    }
}

struct Session<'a> {
    client: &'a Client,
    url: &'a str,
}

impl Session<'_> {
    /// One session around `request`: its answer (whose duration is a call's, when it is one).
    async fn run(
        &self,
        request: &str,
        is_call: bool,
        window: &Window,
        seen: &mut Seen,
    ) -> Result<Value, String> {
        const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"k6-bench","version":"1.0"}}}"#;
        const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let began = Instant::now();
        let (session, answer) = self.post(INITIALIZE, None).await?;
        let took = began.elapsed();
        if window.counts(began) {
            seen.requests += 1;
            seen.http_requests += 1;
            seen.initialize_us.push(took.as_micros() as u32);
        }
        if answer["result"]["protocolVersion"].is_null() {
            return Err(format!("initialize: {answer}"));
        }
        let notified = Instant::now();
        self.post(INITIALIZED, session.as_deref()).await?;
        if window.counts(notified) {
            seen.http_requests += 1;
        }
        let began = Instant::now();
        let (_, answer) = self.post(request, session.as_deref()).await?;
        let took = began.elapsed();
        if window.counts(began) {
            seen.requests += 1;
            seen.http_requests += 1;
            if is_call {
                seen.calls_us.push(took.as_micros() as u32);
            }
        }
        if let Some(session) = session {
            let deleting = Instant::now();
            let deleted = self
                .client
                .delete(self.url)
                .header("mcp-session-id", session)
                .timeout(Duration::from_secs(2))
                .send()
                .await;
            if window.counts(deleting) {
                seen.http_requests += 1;
            }
            if let Ok(response) = deleted {
                let _ = response.bytes().await;
            }
        }
        Ok(answer)
    }

    /// POSTs `message`; the session id the answer carries, and the JSON-RPC message in its
    /// body (JSON, or the first event of a stream; null when none, as for a notification).
    async fn post(
        &self,
        message: &str,
        session: Option<&str>,
    ) -> Result<(Option<String>, Value), String> {
        let mut post = self
            .client
            .post(self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_owned());
        if let Some(session) = session {
            post = post.header("mcp-session-id", session);
        }
        let response = post.send().await.map_err(|e| e.to_string())?;
        let status = response.status();
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
            .or(session.map(str::to_owned));
        let body = response.bytes().await.map_err(|e| e.to_string())?;
        if !status.is_success() {
            return Err(format!("HTTP {status}: {}", String::from_utf8_lossy(&body)));
        }
        Ok((session, parse(&body)))
    }
}

/// A JSON body, or the first `data:` event of a stream that holds JSON; null otherwise.
fn parse(body: &[u8]) -> Value {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.starts_with('{') {
        return serde_json::from_str(text).unwrap_or(Value::Null);
    }
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("data:"))
        .map(str::trim)
        .filter(|data| data.starts_with('{'))
        .find_map(|data| serde_json::from_str(data).ok())
        .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_from_json_and_from_streams_and_checked() {
        let ten = json!(vec![0; 10]);
        let text = json!({"total_found": 2251, "products": ten, "top10_popular_ids": ten});
        let answer = json!({"result": {"content": [{"type": "text", "text": text.to_string()}]}});
        assert_eq!(parse(answer.to_string().as_bytes()), answer);
        let stream = format!("event: message\nid: 1\ndata: {answer}\n\n");
        assert_eq!(parse(stream.as_bytes()), answer);
        assert_eq!(parse(b""), Value::Null);
        assert!(check("search_products", &answer));
        assert!(!check("get_user_cart", &answer));
        let short = json!({"total_found": 2250, "products": ten, "top10_popular_ids": ten});
        let short = json!({"result": {"content": [{"type": "text", "text": short.to_string()}]}});
        assert!(!check("search_products", &short), "a wrong count fails");
    }
}

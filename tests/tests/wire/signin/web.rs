//! The browser's side of the sign-in tests: a cookie jar over the raw HTTP client, URLs and
//! forms encoded and read, and the consent page's form.

use std::sync::Mutex;

use toolsmith_tests::http::{Response, request};

/// A browser: its cookies (by name, whatever host), sent with every request; redirects are
/// returned, never followed.
#[derive(Default)]
pub struct Browser {
    cookies: Mutex<Vec<(String, String)>>,
}

impl Browser {
    pub fn new() -> Browser {
        Browser::default()
    }

    /// `GET path` at `addr`.
    pub async fn get(&self, addr: &str, path: &str) -> Response {
        self.send(addr, "GET", path, &[], "").await
    }

    /// `GET location`: an absolute URL, or a path at `addr`.
    pub async fn go(&self, addr: &str, location: &str) -> Response {
        let (addr, path) = split_url(location, addr);
        self.get(&addr, &path).await
    }

    /// `POST path` at `addr` of a form, from the page's own origin (as a browser sends it).
    pub async fn post_form(&self, addr: &str, path: &str, body: &str) -> Response {
        let origin = format!("http://{addr}");
        let headers = [
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Origin", origin.as_str()),
        ];
        self.send(addr, "POST", path, &headers, body).await
    }

    /// Whether a cookie `name` is kept.
    pub fn has(&self, name: &str) -> bool {
        self.cookies.lock().unwrap().iter().any(|(n, _)| n == name)
    }

    async fn send(
        &self,
        addr: &str,
        method: &str,
        path: &str,
        extra: &[(&str, &str)],
        body: &str,
    ) -> Response {
        let cookie = {
            let cookies = self.cookies.lock().unwrap();
            cookies
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let mut headers = extra.to_vec();
        if !cookie.is_empty() {
            headers.push(("Cookie", cookie.as_str()));
        }
        let response = request(addr, method, path, &headers, body).await;
        let mut cookies = self.cookies.lock().unwrap();
        for (name, value) in &response.headers {
            if !name.eq_ignore_ascii_case("set-cookie") {
                continue;
            }
            let pair = value.split(';').next().unwrap_or_default();
            let Some((name, value)) = pair.split_once('=') else {
                continue;
            };
            let (name, value) = (name.trim().to_owned(), value.trim().to_owned());
            let gone = value.is_empty()
                || response_attribute(&response, &name, "max-age").as_deref() == Some("0");
            cookies.retain(|(n, _)| *n != name);
            if !gone {
                cookies.push((name, value));
            }
        }
        response
    }
}

/// Attribute `attribute` of the `Set-Cookie` of cookie `name` in `response`, lowercase.
fn response_attribute(response: &Response, name: &str, attribute: &str) -> Option<String> {
    response
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("set-cookie"))
        .find(|(_, v)| v.trim_start().starts_with(&format!("{name}=")))
        .and_then(|(_, v)| {
            v.split(';').skip(1).find_map(|part| {
                let (key, value) = part.split_once('=').unwrap_or((part, ""));
                key.trim()
                    .eq_ignore_ascii_case(attribute)
                    .then(|| value.trim().to_ascii_lowercase())
            })
        })
}

/// `(host:port, path?query)` of an absolute http URL; a path alone is at `addr`.
pub fn split_url(url: &str, addr: &str) -> (String, String) {
    match url.strip_prefix("http://") {
        Some(rest) => {
            let at = rest.find('/').unwrap_or(rest.len());
            let path = if at == rest.len() { "/" } else { &rest[at..] };
            (rest[..at].to_owned(), path.to_owned())
        }
        None => (addr.to_owned(), url.to_owned()),
    }
}

/// `value` percent-encoded for a query or a form (unreserved characters kept).
pub fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3]).map(|h| u8::from_str_radix(h, 16)) {
                    Ok(Ok(byte)) => {
                        out.push(byte);
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `key=value&...` of `pairs`, encoded.
pub fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The first value of query parameter `name` of `url`, decoded.
pub fn param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    let query = query.split('#').next().unwrap_or_default();
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (decode(key) == name).then(|| decode(value))
    })
}

/// The consent page's form: its hidden fields and the scopes it offers.
#[derive(Debug)]
pub struct Page {
    pub pending: String,
    pub csrf: String,
    /// The values of the `scope` checkboxes, in order.
    pub scopes: Vec<String>,
    /// Whether it has a `remember` checkbox.
    pub remember: bool,
    pub html: String,
}

impl Page {
    pub fn parse(html: &str) -> Page {
        let inputs = inputs(html);
        let field = |name: &str| {
            inputs
                .iter()
                .find(|a| attribute(a, "name") == Some(name))
                .and_then(|a| attribute(a, "value"))
                .unwrap_or_else(|| panic!("no input {name} in the consent page: {html}"))
                .to_owned()
        };
        Page {
            pending: field("pending"),
            csrf: field("csrf"),
            scopes: inputs
                .iter()
                .filter(|a| attribute(a, "name") == Some("scope"))
                .filter_map(|a| attribute(a, "value").map(str::to_owned))
                .collect(),
            remember: inputs
                .iter()
                .any(|a| attribute(a, "name") == Some("remember")),
            html: html.to_owned(),
        }
    }
}

type Attributes = Vec<(String, String)>;

/// The attributes of every `<input>` of `html`.
fn inputs(html: &str) -> Vec<Attributes> {
    html.split("<input")
        .skip(1)
        .map(|rest| attributes(&rest[..rest.find('>').unwrap_or(rest.len())]))
        .collect()
}

fn attributes(mut tag: &str) -> Attributes {
    let mut found = Vec::new();
    loop {
        tag = tag.trim_start().trim_start_matches('/').trim_start();
        let end = tag
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(tag.len());
        if end == 0 {
            return found;
        }
        let name = tag[..end].to_ascii_lowercase();
        tag = &tag[end..];
        let Some(rest) = tag.trim_start().strip_prefix('=') else {
            found.push((name, String::new()));
            continue;
        };
        let rest = rest.trim_start();
        let (value, after) = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let close = rest[1..].find(q).map_or(rest.len(), |i| i + 1);
                (&rest[1..close], rest.get(close + 1..).unwrap_or(""))
            }
            _ => {
                let close = rest.find(char::is_whitespace).unwrap_or(rest.len());
                (&rest[..close], &rest[close..])
            }
        };
        found.push((name, unescape(value)));
        tag = after;
    }
}

fn attribute<'a>(attributes: &'a Attributes, name: &str) -> Option<&'a str> {
    attributes
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

fn unescape(value: &str) -> String {
    value
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

//! Where an upstream's users sign in: its 401's `WWW-Authenticate: Bearer
//! resource_metadata="..."` (else `/.well-known/oauth-protected-resource` at its URL), that
//! document (RFC 9728) naming its authorization server, whose metadata (RFC 8414, else
//! OpenID Connect discovery) names the endpoints.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// How long one request to the upstream or its authorization server may take.
pub(super) const TIMEOUT: Duration = Duration::from_secs(10);
/// The most bytes read of one answer.
const MAX_ANSWER: usize = 256 * 1024;

/// The upstream's authorization server, as discovered.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Metadata {
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: String,
    pub(crate) token_endpoint: String,
    #[serde(default)]
    pub(crate) registration_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) revocation_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
    /// Whether its authorization responses name it (`iss`, RFC 9207): then they must.
    #[serde(default)]
    pub(crate) authorization_response_iss_parameter_supported: bool,
    /// The resource its tokens are asked for (the protected resource document's `resource`).
    #[serde(skip)]
    pub(crate) resource: String,
    /// The scopes the upstream's challenge named, for a configuration that names none.
    #[serde(skip)]
    pub(crate) challenge_scope: Option<String>,
}

/// The value of `name` in a `WWW-Authenticate: Bearer k="v", ...` challenge.
pub(crate) fn challenge_param(header: &str, name: &str) -> Option<String> {
    let rest = header.trim_start();
    let rest = rest
        .strip_prefix("Bearer")
        .or_else(|| rest.strip_prefix("bearer"))?;
    let mut rest = rest.trim_start();
    while !rest.is_empty() {
        let eq = rest.find('=')?;
        let key = rest[..eq].trim().trim_start_matches(',').trim();
        let after = rest[eq + 1..].trim_start();
        let (value, next) = if let Some(quoted) = after.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    '"' => {
                        end = Some(i + 1);
                        break;
                    }
                    c => value.push(c),
                }
            }
            (value, &quoted[end?..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim().to_owned(), &after[end..])
        };
        if key.eq_ignore_ascii_case(name) {
            return Some(value);
        }
        rest = next.trim_start().trim_start_matches(',').trim_start();
    }
    None
}

/// `url` with `well_known` put between its origin and its path (RFC 8414 §3.1, RFC 9728
/// §3.1): `https://a/mcp` -> `https://a/.well-known/x/mcp`.
pub(crate) fn inserted(url: &str, well_known: &str) -> Result<String, String> {
    let parsed = url::Url::parse(url).map_err(|_| format!("{url:?} is not a URL"))?;
    let path = parsed.path().trim_end_matches('/');
    Ok(format!("{}{well_known}{path}", origin(&parsed)))
}

/// `scheme://host[:port]` of `url`.
pub(crate) fn origin(url: &url::Url) -> String {
    url.origin().ascii_serialization()
}

/// Whether `url` may be an endpoint of a sign-in: `https`, or `http` to a loopback host.
pub(crate) fn checked_endpoint(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|_| format!("{url:?} is not a URL"))?;
    let loopback = match parsed.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(format!(
            "{url} is not https (plain http is for a loopback host only)"
        )),
    }
}

/// Whether two URLs name one resource (a trailing `/` aside).
fn same_resource(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// Discovers the authorization server of the upstream at `url`: `expected` (the configured
/// issuer), if given, must be the one it names, else nothing is asked of the one it names.
pub(crate) async fn discover(
    http: &reqwest::Client,
    url: &str,
    expected: Option<&str>,
) -> Result<Metadata, String> {
    // An unauthenticated request: the 401's challenge names the resource metadata.
    let probe = http
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#)
        .send()
        .await
        .map_err(|e| format!("the upstream at {url} did not answer: {}", reason(&e)))?;
    let challenge = probe
        .headers()
        .get_all("www-authenticate")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.trim_start().to_ascii_lowercase().starts_with("bearer"))
        .map(str::to_owned);
    let challenge_scope = challenge
        .as_deref()
        .and_then(|c| challenge_param(c, "scope"));
    let candidates = match challenge
        .as_deref()
        .and_then(|c| challenge_param(c, "resource_metadata"))
    {
        Some(named) => vec![named],
        None => {
            let parsed = url::Url::parse(url).map_err(|_| format!("{url:?} is not a URL"))?;
            vec![
                inserted(url, "/.well-known/oauth-protected-resource")?,
                format!("{}/.well-known/oauth-protected-resource", origin(&parsed)),
            ]
        }
    };
    let mut resource_doc = None;
    let mut why = String::new();
    for candidate in &candidates {
        checked_endpoint(candidate)?;
        match get_json(http, candidate).await {
            Ok(doc) => {
                resource_doc = Some(doc);
                break;
            }
            Err(err) => why = err,
        }
    }
    let doc = resource_doc.ok_or_else(|| {
        format!(
            "the upstream names no authorization server (no protected resource metadata: {why})"
        )
    })?;
    let resource = doc
        .get("resource")
        .and_then(Value::as_str)
        .ok_or("the upstream's protected resource metadata has no `resource`")?
        .to_owned();
    if !same_resource(&resource, url) {
        return Err(format!(
            "the upstream's protected resource metadata is for {resource}, not {url}"
        ));
    }
    let issuer = doc
        .get("authorization_servers")
        .and_then(Value::as_array)
        .and_then(|servers| servers.first())
        .and_then(Value::as_str)
        .ok_or("the upstream's protected resource metadata names no `authorization_servers`")?
        .trim_end_matches('/')
        .to_owned();
    if let Some(expected) = expected
        && expected.trim_end_matches('/') != issuer
    {
        return Err(format!(
            "the upstream names the authorization server {issuer}, not the configured `issuer` {expected}: the gateway signs in (and sends its client) only there; check `issuer`, or the upstream"
        ));
    }
    checked_endpoint(&issuer)?;
    let mut metadata = authorization_server(http, &issuer).await?;
    metadata.resource = resource;
    metadata.challenge_scope = challenge_scope;
    Ok(metadata)
}

/// The metadata of the authorization server `issuer`: RFC 8414, else OpenID discovery.
async fn authorization_server(http: &reqwest::Client, issuer: &str) -> Result<Metadata, String> {
    let candidates = [
        inserted(issuer, "/.well-known/oauth-authorization-server")?,
        format!("{issuer}/.well-known/openid-configuration"),
        inserted(issuer, "/.well-known/openid-configuration")?,
    ];
    let mut why = String::new();
    for candidate in candidates {
        let doc = match get_json(http, &candidate).await {
            Ok(doc) => doc,
            Err(err) => {
                why = err;
                continue;
            }
        };
        return checked_metadata(doc, issuer, &candidate);
    }
    Err(format!(
        "the authorization server {issuer} publishes no metadata ({why})"
    ))
}

/// The metadata `doc` read at `at`, if it is `issuer`'s and usable.
pub(crate) fn checked_metadata(doc: Value, issuer: &str, at: &str) -> Result<Metadata, String> {
    let metadata: Metadata = serde_json::from_value(doc)
        .map_err(|e| format!("the authorization server's metadata at {at} is not usable: {e}"))?;
    if metadata.issuer.trim_end_matches('/') != issuer {
        return Err(format!(
            "the authorization server's metadata at {at} names the issuer {:?}, not {issuer:?}",
            metadata.issuer
        ));
    }
    let s256 = metadata
        .code_challenge_methods_supported
        .as_ref()
        .is_some_and(|methods| methods.iter().any(|m| m == "S256"));
    if !s256 {
        return Err(format!(
            "the authorization server {issuer} does not say it supports PKCE S256 (code_challenge_methods_supported)"
        ));
    }
    for endpoint in [&metadata.authorization_endpoint, &metadata.token_endpoint]
        .into_iter()
        .chain(metadata.registration_endpoint.as_ref())
        .chain(metadata.revocation_endpoint.as_ref())
    {
        checked_endpoint(endpoint)?;
    }
    Ok(metadata)
}

/// `GET url`, its 200 answer as JSON.
async fn get_json(http: &reqwest::Client, url: &str) -> Result<Value, String> {
    let response = http
        .get(url)
        .header("Accept", "application/json")
        .send()
        .await
        .map_err(|e| format!("{url}: {}", reason(&e)))?;
    let status = response.status();
    let body = body_of(response).await.map_err(|e| format!("{url}: {e}"))?;
    if !status.is_success() {
        return Err(format!("{url} answered {status}"));
    }
    serde_json::from_slice(&body).map_err(|_| format!("{url} did not answer JSON"))
}

/// An answer's body, at most [`MAX_ANSWER`] bytes.
pub(super) async fn body_of(mut response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| reason(&e))? {
        if body.len() + chunk.len() > MAX_ANSWER {
            return Err(format!("the answer is larger than {MAX_ANSWER} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Why a request failed, in a few words (never its URL's query).
pub(super) fn reason(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        "no answer in time".to_owned()
    } else if err.is_connect() {
        "it cannot be reached".to_owned()
    } else {
        let text = err.to_string();
        match err.url() {
            Some(url) => text
                .replace(&format!(" ({url})"), "")
                .replace(url.as_str(), ""),
            None => text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenges_parameters_are_read() {
        let header = r#"Bearer error="invalid_token", resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp", scope="tools:read tools:write""#;
        assert_eq!(
            challenge_param(header, "resource_metadata").as_deref(),
            Some("http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            challenge_param(header, "scope").as_deref(),
            Some("tools:read tools:write")
        );
        assert_eq!(challenge_param(header, "realm"), None);
        let escaped = r#"Bearer realm=x, error_description="a \"quoted\" word", scope=a"#;
        assert_eq!(
            challenge_param(escaped, "error_description").as_deref(),
            Some(r#"a "quoted" word"#)
        );
        assert_eq!(challenge_param(escaped, "scope").as_deref(), Some("a"));
        assert_eq!(challenge_param(r#"Basic realm="x""#, "realm"), None);
        assert_eq!(
            challenge_param(r#"Bearer scope="unterminated"#, "scope"),
            None
        );
    }

    #[test]
    fn well_known_urls_go_between_origin_and_path() {
        assert_eq!(
            inserted(
                "https://a.example/mcp",
                "/.well-known/oauth-protected-resource"
            )
            .unwrap(),
            "https://a.example/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            inserted(
                "http://127.0.0.1:8/",
                "/.well-known/oauth-authorization-server"
            )
            .unwrap(),
            "http://127.0.0.1:8/.well-known/oauth-authorization-server"
        );
        assert!(checked_endpoint("http://127.0.0.1:8/x").is_ok());
        assert!(checked_endpoint("https://as.example/x").is_ok());
        let err = checked_endpoint("http://as.example/token").unwrap_err();
        assert!(err.contains("not https"), "{err}");
    }

    #[test]
    fn metadata_must_be_the_issuers_and_offer_s256() {
        let good = serde_json::json!({"issuer": "https://as.example",
            "authorization_endpoint": "https://as.example/authorize",
            "token_endpoint": "https://as.example/token",
            "revocation_endpoint": "https://as.example/revoke",
            "code_challenge_methods_supported": ["S256"]});
        let metadata = checked_metadata(good.clone(), "https://as.example", "at").unwrap();
        assert_eq!(
            metadata.revocation_endpoint.as_deref(),
            Some("https://as.example/revoke")
        );
        let err = checked_metadata(good.clone(), "https://other.example", "at").unwrap_err();
        assert!(err.contains("names the issuer"), "{err}");
        let mut plain = good.clone();
        plain["code_challenge_methods_supported"] = serde_json::json!(["plain"]);
        let err = checked_metadata(plain, "https://as.example", "at").unwrap_err();
        assert!(err.contains("PKCE S256"), "{err}");
        let mut http = good;
        http["token_endpoint"] = "http://as.example/token".into();
        let err = checked_metadata(http, "https://as.example", "at").unwrap_err();
        assert!(err.contains("not https"), "{err}");
    }
}

//! A token endpoint's answer (RFC 6749 section 5, RFC 8693 section 2.2), read: the token,
//! who it names and when it expires (without verifying it: it is the upstream's to verify),
//! or why it cannot be used; and what an endpoint said, as an error shows it.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde_json::Value;

use super::UpstreamToken;
use super::exchange_config::ACCESS_TOKEN_TYPE;

const JWT_TYPE: &str = "urn:ietf:params:oauth:token-type:jwt";
/// A token is not used within this of its expiry.
const MARGIN: Duration = Duration::from_secs(30);
/// How long a token that says nothing of its expiry is kept.
const UNDATED_KEPT: Duration = Duration::from_secs(300);
/// The most of a token endpoint's answer read.
pub(super) const MAX_ANSWER: usize = 64 * 1024;
/// The most of an endpoint's `error` or `error_description` shown.
const MAX_SAID: usize = 300;

/// A token endpoint's successful answer as the token and until when it is used; an error
/// says what it lacks.
pub(super) fn parse_token(json: &Value) -> Result<(UpstreamToken, Instant), String> {
    let text = |name: &str| json.get(name).and_then(Value::as_str);
    let access = text("access_token")
        .filter(|t| !t.is_empty())
        .ok_or("without an `access_token`")?;
    if let Some(kind) = text("issued_token_type")
        && kind != ACCESS_TOKEN_TYPE
        && kind != JWT_TYPE
    {
        return Err(format!(
            "a token of type {}, not an access token",
            said(kind)
        ));
    }
    if let Some(kind) = text("token_type")
        && !kind.eq_ignore_ascii_case("bearer")
        && !kind.eq_ignore_ascii_case("n_a")
    {
        return Err(format!(
            "a token of type {}: the gateway sends Bearer tokens only",
            said(kind)
        ));
    }
    let payload = jwt_payload(access);
    let claim = |name: &str| payload.as_ref().and_then(|p| p.get(name).cloned());
    let now = SystemTime::now();
    let lifetime = match json.get("expires_in").and_then(Value::as_f64) {
        Some(secs) => Some(Duration::from_secs_f64(secs.clamp(0.0, 365.0 * 86_400.0))),
        None => claim("exp").and_then(|exp| exp.as_u64()).map(|exp| {
            let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
            // At most a year, as `expires_in`.
            Duration::from_secs(exp.min(u64::MAX / 2))
                .saturating_sub(since)
                .min(Duration::from_secs(365 * 86_400))
        }),
    };
    let fresh_until =
        Instant::now() + lifetime.map_or(UNDATED_KEPT, |lifetime| lifetime.saturating_sub(MARGIN));
    let token = UpstreamToken {
        access: access.to_owned(),
        expires_at: lifetime.map(|lifetime| now + lifetime),
        subject: claim("sub").and_then(|sub| sub.as_str().map(str::to_owned)),
    };
    Ok((token, fresh_until))
}

/// The payload of `token` when it is a JWT (read without verification: for the audit log).
pub(super) fn jwt_payload(token: &str) -> Option<serde_json::Map<String, Value>> {
    let mut parts = token.split('.');
    let (_, payload, _, None) = (parts.next()?, parts.next()?, parts.next()?, parts.next()) else {
        return None;
    };
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// What an endpoint said, as an error shows it: terminal controls escaped, at most 300
/// characters.
pub(super) fn said(text: &str) -> String {
    let mut shown: String = text.chars().take(MAX_SAID).collect();
    if text.chars().nth(MAX_SAID).is_some() {
        shown.push('…');
    }
    toolsmith_audit::shown(&shown).into_owned()
}

/// The body, unless it is longer than [`MAX_ANSWER`] (`None`).
pub(super) async fn read_bounded(
    mut response: reqwest::Response,
) -> Result<Option<Vec<u8>>, reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > MAX_ANSWER {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

//! What a client may register: its redirect URIs (`https`, or `http` to a loopback host),
//! its name (as the consent page shows it).

use serde_json::Value;

/// The most redirect URIs of one client.
const MAX_REDIRECTS: usize = 10;
/// The longest client name.
const MAX_NAME: usize = 200;

/// The redirect URIs asked: at least one, at most ten, each `https` or loopback `http`,
/// without a fragment.
pub(super) fn redirect_uris(asked: Option<Vec<Value>>) -> Result<Vec<String>, String> {
    let bad = |why: String| why;
    let asked = asked.unwrap_or_default();
    if asked.is_empty() {
        return Err(bad("redirect_uris is missing: give at least one".to_owned()));
    }
    if asked.len() > MAX_REDIRECTS {
        return Err(bad(format!("at most {MAX_REDIRECTS} redirect_uris")));
    }
    asked
        .into_iter()
        .map(|uri| {
            let Value::String(uri) = uri else {
                return Err(bad("each redirect URI is a string".to_owned()));
            };
            checked_redirect(&uri).map_err(bad)?;
            Ok(uri)
        })
        .collect()
}

/// A redirect URI a client may register: `https`, or `http` to a loopback host (a native
/// client, RFC 8252 §7.3), no fragment, no user name.
pub(super) fn checked_redirect(uri: &str) -> Result<(), String> {
    if uri.len() > 2000 {
        return Err("a redirect URI is at most 2000 characters".to_owned());
    }
    let url = reqwest::Url::parse(uri).map_err(|_| format!("{uri:?} is not a URL"))?;
    if url.fragment().is_some() || uri.contains('#') {
        return Err(format!("{uri} has a fragment: a redirect URI has none"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!("{uri} names a user: a redirect URI does not"));
    }
    match url.scheme() {
        "https" => Ok(()),
        "http" if loopback(&url) => Ok(()),
        "http" => Err(format!(
            "{uri} is plain http: use https (http is for a loopback host only, 127.0.0.1, [::1] or localhost)"
        )),
        other => Err(format!(
            "{uri}: the scheme {other} is not accepted: use https, or http on a loopback host"
        )),
    }
}

/// A client's name as the consent page shows it: at most 200 characters, no control
/// characters.
pub(super) fn checked_name(name: &str) -> Result<String, String> {
    if name.chars().count() > MAX_NAME {
        return Err(format!("client_name is at most {MAX_NAME} characters"));
    }
    if name.chars().any(char::is_control) {
        return Err("client_name has control characters".to_owned());
    }
    Ok(name.trim().to_owned())
}

pub(super) use crate::auth::loopback;

#[cfg(test)]
mod tests {
    use super::checked_redirect;

    #[test]
    fn redirect_uris_are_https_or_loopback_http() {
        for good in [
            "https://app.example/cb",
            "http://127.0.0.1:3000/cb",
            "http://[::1]/cb",
            "http://localhost:9/x",
        ] {
            assert!(checked_redirect(good).is_ok(), "{good}");
        }
        for bad in [
            "http://app.example/cb",
            "https://app.example/cb#x",
            "javascript:alert(1)",
            "https://u:p@app.example/",
            "http://127.0.0.1.evil.example/cb",
            "nonsense",
        ] {
            assert!(checked_redirect(bad).is_err(), "{bad}");
        }
    }
}

//! The clients: registered by Dynamic Client Registration (RFC 7591), or known by a Client
//! ID Metadata Document (a client id that is the `https` URL of its metadata, fetched through
//! the outbound guard: public addresses only, size and time bounded, cached).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use super::records::{Client, Kept, digest, key, now, random};
use super::server::AuthServer;
use super::tokens::Refusal;

/// How long a registered client is kept.
const CLIENT_LIFETIME: Duration = Duration::from_secs(90 * 24 * 3600);
/// The most redirect URIs of one client.
const MAX_REDIRECTS: usize = 10;
/// The longest client name.
const MAX_NAME: usize = 200;
/// The largest metadata document read.
pub(super) const MAX_DOCUMENT: usize = 5 * 1024;
/// How long fetching a metadata document may take.
pub(super) const DOCUMENT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a fetched metadata document is used before it is fetched again.
const DOCUMENT_KEPT: Duration = Duration::from_secs(600);
/// The most metadata documents cached.
const DOCUMENTS_KEPT: usize = 1000;

/// A registration request (RFC 7591 §2), as far as it is read.
#[derive(Debug, Deserialize)]
pub(super) struct Registration {
    #[serde(default)]
    redirect_uris: Option<Vec<Value>>,
    #[serde(default)]
    client_name: Option<Value>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
    #[serde(default)]
    grant_types: Option<Vec<String>>,
    #[serde(default)]
    response_types: Option<Vec<String>>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    client_id: Option<Value>,
}

/// Metadata documents fetched, by URL.
#[derive(Default)]
pub(super) struct Documents(Mutex<HashMap<String, (Client, Instant)>>);

impl AuthServer {
    /// Registers a client: 201 with its id (and secret, for a confidential one).
    pub(super) async fn register(&self, asked: Registration) -> Result<Value, Refusal> {
        let minute = now() / 60;
        let window = format!("{}:{minute}", key::REGISTRATIONS);
        if self.store.count(&window, Duration::from_secs(60)).await?
            > self.settings.registrations_per_minute
        {
            return Err(Refusal::new(
                429,
                "too_many_requests",
                "too many clients registered this minute; try again in a minute",
            ));
        }
        let metadata = |why: String| Refusal::new(400, "invalid_client_metadata", why);
        let redirect_uris = redirect_uris(asked.redirect_uris)?;
        let name = match asked.client_name {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(checked_name(&name).map_err(metadata)?),
            Some(_) => return Err(metadata("client_name must be a string".to_owned())),
        };
        let auth_method = asked
            .token_endpoint_auth_method
            .unwrap_or_else(|| "none".to_owned());
        if !matches!(
            auth_method.as_str(),
            "none" | "client_secret_post" | "client_secret_basic"
        ) {
            return Err(metadata(format!(
                "token_endpoint_auth_method {auth_method:?} is not supported: use none, client_secret_post or client_secret_basic"
            )));
        }
        if let Some(grants) = &asked.grant_types
            && let Some(other) = grants
                .iter()
                .find(|g| !matches!(g.as_str(), "authorization_code" | "refresh_token"))
        {
            return Err(metadata(format!(
                "grant type {other:?} is not supported: authorization_code and refresh_token are"
            )));
        }
        if let Some(types) = &asked.response_types
            && let Some(other) = types.iter().find(|t| *t != "code")
        {
            return Err(metadata(format!(
                "response type {other:?} is not supported: only code is"
            )));
        }
        if asked.client_id.is_some() {
            return Err(metadata("client_id is the server's to choose".to_owned()));
        }
        if self.store.count(key::CLIENTS, CLIENT_LIFETIME).await? > self.settings.max_clients {
            return Err(Refusal::new(
                429,
                "too_many_requests",
                "this server has registered as many clients as it keeps; try again later",
            ));
        }
        let id = random(18);
        let secret = (auth_method != "none").then(|| random(32));
        let client = Client {
            id: id.clone(),
            name: name.clone(),
            redirect_uris: redirect_uris.clone(),
            auth_method: auth_method.clone(),
            secret: secret.as_deref().map(digest),
            document: false,
            scope: asked.scope.clone(),
        };
        Kept(self.store.as_ref())
            .put(&key::client(&id), &client, CLIENT_LIFETIME)
            .await?;
        tracing::info!(client = %id, name = name.as_deref().unwrap_or(""), "sign-in: a client registered");
        let mut answer = json!({
            "client_id": id,
            "client_id_issued_at": now(),
            "redirect_uris": redirect_uris,
            "token_endpoint_auth_method": auth_method,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        });
        if let Some(name) = name {
            answer["client_name"] = name.into();
        }
        if let Some(scope) = asked.scope {
            answer["scope"] = scope.into();
        }
        if let Some(secret) = secret {
            answer["client_secret"] = secret.into();
            answer["client_secret_expires_at"] = 0.into();
        }
        Ok(answer)
    }

    /// The client `id` names: registered here, or (an `https` URL) its metadata document.
    /// `Err` says, in words for a person, why it is not one.
    pub(super) async fn client(&self, id: &str) -> Result<Client, String> {
        if id.starts_with("https://") || id.starts_with("http://") {
            return self.document(id).await;
        }
        match Kept(self.store.as_ref()).read::<Client>(&key::client(id)).await {
            Ok(Some(client)) => Ok(client),
            Ok(None) => Err("the client is not registered here (or its registration expired): register it again".to_owned()),
            Err(err) => Err(format!("the server's store is not reachable ({err}); try again")),
        }
    }

    /// The client whose id is the URL of its metadata document.
    async fn document(&self, id: &str) -> Result<Client, String> {
        if let Some((client, at)) = lock(&self.documents).get(id)
            && at.elapsed() < DOCUMENT_KEPT
        {
            return Ok(client.clone());
        }
        let url = reqwest::Url::parse(id).map_err(|_| "the client id is not a URL".to_owned())?;
        let host = url.host_str().unwrap_or("").to_owned();
        let allowed = self.settings.allow_hosts.iter().any(|h| {
            h.trim_matches(['[', ']'])
                .eq_ignore_ascii_case(host.trim_matches(['[', ']']))
        });
        if url.scheme() != "https" && !allowed {
            return Err("a client id that is a URL must be https".to_owned());
        }
        if url.fragment().is_some() || !url.username().is_empty() || url.password().is_some() {
            return Err("a client id URL has no fragment and no user name".to_owned());
        }
        if url.path() == "/" || url.path().split('/').any(|s| s == "." || s == "..") {
            return Err(
                "a client id URL has a path to its document, without . or .. segments".to_owned(),
            );
        }
        let body = self.fetch_document(&url).await?;
        let document: Value = serde_json::from_slice(&body)
            .map_err(|_| "the client's metadata document is not JSON".to_owned())?;
        if document.get("client_id").and_then(Value::as_str) != Some(id) {
            return Err(
                "the client's metadata document names another client_id than its URL".to_owned(),
            );
        }
        let method = document
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .unwrap_or("none");
        if method != "none" {
            return Err(format!(
                "the client's metadata document asks for {method:?}: a client known by its metadata document is public (none)"
            ));
        }
        let uris = document
            .get("redirect_uris")
            .and_then(Value::as_array)
            .cloned();
        let redirect_uris = redirect_uris(uris).map_err(|r| r.description)?;
        let name = match document.get("client_name") {
            Some(Value::String(name)) => Some(checked_name(name)?),
            _ => None,
        };
        let client = Client {
            id: id.to_owned(),
            name,
            redirect_uris,
            auth_method: "none".to_owned(),
            secret: None,
            document: true,
            scope: document
                .get("scope")
                .and_then(Value::as_str)
                .map(str::to_owned),
        };
        let mut documents = lock(&self.documents);
        if documents.len() >= DOCUMENTS_KEPT {
            documents.retain(|_, (_, at)| at.elapsed() < DOCUMENT_KEPT);
            if documents.len() >= DOCUMENTS_KEPT {
                documents.clear();
            }
        }
        documents.insert(id.to_owned(), (client.clone(), Instant::now()));
        Ok(client)
    }
}

fn lock(documents: &Documents) -> std::sync::MutexGuard<'_, HashMap<String, (Client, Instant)>> {
    documents.0.lock().unwrap_or_else(|e| e.into_inner())
}

/// The redirect URIs asked: at least one, at most ten, each `https` or loopback `http`,
/// without a fragment.
fn redirect_uris(asked: Option<Vec<Value>>) -> Result<Vec<String>, Refusal> {
    let bad = |why: String| Refusal::new(400, "invalid_redirect_uri", why);
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
fn checked_name(name: &str) -> Result<String, String> {
    if name.chars().count() > MAX_NAME {
        return Err(format!("client_name is at most {MAX_NAME} characters"));
    }
    if name.chars().any(char::is_control) {
        return Err("client_name has control characters".to_owned());
    }
    Ok(name.trim().to_owned())
}

/// Whether `url`'s host is a loopback host.
pub(super) fn loopback(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

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

/// INTERIM (replaced by `crate::net`'s guard): the body at `url`, public addresses only
/// unless its host is allowed, at most [`MAX_DOCUMENT`] bytes, within [`DOCUMENT_TIMEOUT`].
pub(super) async fn fetch(url: &reqwest::Url, allow: &[String]) -> Result<Vec<u8>, String> {
    let host = url
        .host_str()
        .unwrap_or("")
        .trim_matches(['[', ']'])
        .to_owned();
    let allowed = allow
        .iter()
        .any(|h| h.trim_matches(['[', ']']).eq_ignore_ascii_case(&host));
    if !allowed {
        let port = url.port_or_known_default().unwrap_or(443);
        let addrs: Vec<std::net::SocketAddr> = tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|_| format!("the client's metadata host {host} does not resolve"))?
            .collect();
        if addrs.is_empty() || addrs.iter().any(|a| !public(a.ip())) {
            return Err(format!(
                "the client's metadata document is on this machine or a private network ({host}): it is not fetched"
            ));
        }
    }
    crate::tls::install_crypto_provider();
    let client = reqwest::Client::builder()
        .timeout(DOCUMENT_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .map_err(|e| e.to_string())?;
    let work = async {
        let mut response = client
            .get(url.clone())
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|_| "the client's metadata document could not be fetched".to_owned())?;
        if !response.status().is_success() {
            return Err(format!(
                "the client's metadata document answered {}",
                response.status()
            ));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|_| "the client's metadata document broke off".to_owned())?
        {
            if body.len() + chunk.len() > MAX_DOCUMENT {
                return Err(format!(
                    "the client's metadata document is over {MAX_DOCUMENT} bytes"
                ));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    };
    tokio::time::timeout(DOCUMENT_TIMEOUT, work)
        .await
        .map_err(|_| {
            format!(
                "the client's metadata document took over {}s to fetch",
                DOCUMENT_TIMEOUT.as_secs()
            )
        })?
}

fn public(ip: std::net::IpAddr) -> bool {
    match ip {
        std::net::IpAddr::V4(v4) => {
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation())
        }
        std::net::IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => public(v4.into()),
            None => {
                !(v6.is_loopback()
                    || v6.is_unspecified()
                    || v6.is_multicast()
                    || (v6.segments()[0] & 0xfe00) == 0xfc00
                    || (v6.segments()[0] & 0xffc0) == 0xfe80)
            }
        },
    }
}

//! Clients known by a Client ID Metadata Document: a client id that is the `https` URL of
//! its metadata, fetched through the outbound guard (public addresses only, size and time
//! bounded) and cached for a while.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::checks::{checked_name, redirect_uris};
use super::records::Client;

/// The largest metadata document read.
pub(super) const MAX_DOCUMENT: usize = 5 * 1024;
/// How long fetching a metadata document may take.
pub(super) const DOCUMENT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a fetched metadata document is used before it is fetched again.
const DOCUMENT_KEPT: Duration = Duration::from_secs(600);
/// The most metadata documents cached.
const DOCUMENTS_KEPT: usize = 1000;

/// Metadata documents fetched, by URL.
#[derive(Default)]
pub(super) struct Documents(Mutex<HashMap<String, (Client, Instant)>>);

impl Documents {
    /// The client whose id is the URL of its metadata document.
    pub(super) async fn client(&self, id: &str, allow_hosts: &[String]) -> Result<Client, String> {
        if let Some((client, at)) = self.lock().get(id)
            && at.elapsed() < DOCUMENT_KEPT
        {
            return Ok(client.clone());
        }
        let url = reqwest::Url::parse(id).map_err(|_| "the client id is not a URL".to_owned())?;
        let host = url.host_str().unwrap_or("").to_owned();
        let allowed = allow_hosts.iter().any(|h| {
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
        let body = fetch(&url, allow_hosts).await?;
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
        let redirect_uris = redirect_uris(uris)?;
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
        let mut documents = self.lock();
        if documents.len() >= DOCUMENTS_KEPT {
            documents.retain(|_, (_, at)| at.elapsed() < DOCUMENT_KEPT);
            if documents.len() >= DOCUMENTS_KEPT {
                documents.clear();
            }
        }
        documents.insert(id.to_owned(), (client.clone(), Instant::now()));
        Ok(client)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Client, Instant)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
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

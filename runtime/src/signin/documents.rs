//! Clients known by a Client ID Metadata Document: a client id that is the `https` URL of
//! its metadata, fetched through the outbound guard (public addresses only, size and time
//! bounded) and cached for a while.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::checks::{checked_name, redirect_uris};
use super::records::Client;
use crate::net::Outbound;

/// The largest metadata document read.
pub(super) const MAX_DOCUMENT: usize = 5 * 1024;
/// How long fetching a metadata document may take.
pub(super) const DOCUMENT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a fetched metadata document is used before it is fetched again.
const DOCUMENT_KEPT: Duration = Duration::from_secs(600);
/// The most metadata documents cached.
const DOCUMENTS_KEPT: usize = 1000;

/// Metadata documents fetched, by URL, and how they are fetched.
pub(super) struct Documents {
    fetched: Mutex<HashMap<String, (Client, Instant)>>,
    outbound: Outbound,
}

impl Documents {
    /// Documents fetched through the outbound guard: public addresses only, but for
    /// `allow_hosts`; at most [`MAX_DOCUMENT`] bytes within [`DOCUMENT_TIMEOUT`]; no redirect.
    pub(super) fn new(allow_hosts: &[String]) -> Result<Documents, String> {
        let outbound = allow_hosts
            .iter()
            .fold(Outbound::builder(), |b, host| b.allow_host(host.clone()))
            .allow_hint("--signin-allow-host")
            .max_bytes(MAX_DOCUMENT)
            .timeout(DOCUMENT_TIMEOUT)
            .max_redirects(0)
            .build()?;
        Ok(Documents {
            fetched: Mutex::new(HashMap::new()),
            outbound,
        })
    }

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
        let body = self
            .outbound
            .get(id, |_, _| {})
            .await
            .map_err(|err| format!("the client's metadata document was not fetched: {err}"))?
            .body;
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
        self.fetched.lock().unwrap_or_else(|e| e.into_inner())
    }
}

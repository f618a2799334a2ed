//! The clients: registered by Dynamic Client Registration (RFC 7591), or known by a Client
//! ID Metadata Document (see `documents.rs`).

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use super::checks::{checked_name, redirect_uris};
use super::records::{Client, RecordStore, digest, key, now, random};
use super::server::AuthServer;
use super::tokens::Refusal;

/// How long a registered client is kept.
const CLIENT_LIFETIME: Duration = Duration::from_secs(90 * 24 * 3600);

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
        let redirect_uris = redirect_uris(asked.redirect_uris)
            .map_err(|why| Refusal::new(400, "invalid_redirect_uri", why))?;
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
        RecordStore(self.store.as_ref())
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
            return self.documents.client(id, &self.settings.allow_hosts).await;
        }
        match RecordStore(self.store.as_ref()).read::<Client>(&key::client(id)).await {
            Ok(Some(client)) => Ok(client),
            Ok(None) => Err("the client is not registered here (or its registration expired): register it again".to_owned()),
            Err(err) => Err(format!("the server's store is not reachable ({err}); try again")),
        }
    }
}

//! One authorization, from the client's request to its code: the request checked (its
//! client, its redirect URI exactly, PKCE S256, its resource), the user sent to the
//! provider, their identity read when they come back, their consent asked (or remembered),
//! and the code sent to the client.

use std::time::Duration;

use axum::http::StatusCode;
use serde::Deserialize;

use super::consents::{self, Consent};
use super::page;
use super::records::{Asked, Code, Identity, Pending, RecordStore, digest, key, random};
use super::server::AuthServer;
use crate::task::StoreError;

/// How long a user has to sign in at the provider, and to answer the consent page.
const SIGN_IN_TIME: Duration = Duration::from_secs(600);
/// How long a code may wait to be redeemed.
const CODE_LIFETIME: Duration = Duration::from_secs(60);

/// What the browser gets.
pub(super) enum Answer {
    /// A page (the consent page, or an error that cannot go back to the client).
    Page(axum::response::Response),
    /// A redirect; with the browser cookie to set, when one is.
    Redirect(String, Option<String>),
}

/// `/oauth/authorize`'s query.
#[derive(Debug, Default, Deserialize)]
pub(super) struct AuthorizeQuery {
    response_type: Option<String>,
    client_id: Option<String>,
    redirect_uri: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    state: Option<String>,
    scope: Option<String>,
    resource: Option<String>,
    /// `consent` shows the consent page even when a remembered consent covers the request.
    prompt: Option<String>,
}

/// The provider's redirect back.
#[derive(Debug, Default, Deserialize)]
pub(super) struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

pub(super) fn failed(status: StatusCode, why: &str) -> Answer {
    Answer::Page(page::error(status, why))
}

pub(super) fn unavailable(err: StoreError) -> Answer {
    tracing::warn!("sign-in: the store failed: {err}");
    failed(
        StatusCode::SERVICE_UNAVAILABLE,
        "The server cannot reach its store at the moment; try again.",
    )
}

impl AuthServer {
    /// The client's redirect URI with `params`, the `state` it sent and this issuer (RFC
    /// 9207).
    fn back(&self, redirect_uri: &str, state: Option<&str>, params: &[(&str, &str)]) -> Answer {
        let mut url = match reqwest::Url::parse(redirect_uri) {
            Ok(url) => url,
            Err(_) => return failed(StatusCode::BAD_REQUEST, "The redirect URI is not a URL."),
        };
        {
            let mut query = url.query_pairs_mut();
            for (name, value) in params {
                query.append_pair(name, value);
            }
            if let Some(state) = state {
                query.append_pair("state", state);
            }
            query.append_pair("iss", &self.issuer);
        }
        Answer::Redirect(url.into(), None)
    }

    pub(super) fn refuse(&self, asked: &Asked, error: &str, description: &str) -> Answer {
        self.back(
            &asked.redirect_uri,
            asked.state.as_deref(),
            &[("error", error), ("error_description", description)],
        )
    }

    /// `/oauth/authorize`: the request checked; the user sent to the provider.
    pub(super) async fn authorize(&self, query: AuthorizeQuery) -> Answer {
        let Some(client_id) = query.client_id.as_deref().filter(|c| !c.is_empty()) else {
            return failed(
                StatusCode::BAD_REQUEST,
                "The request names no client (client_id).",
            );
        };
        let client = match self.client(client_id).await {
            Ok(client) => client,
            Err(why) => return failed(StatusCode::BAD_REQUEST, &format!("Unknown client: {why}")),
        };
        // Compared exactly, character for character: never a redirect elsewhere.
        let redirect_uri = match query.redirect_uri {
            Some(uri) if client.redirect_uris.contains(&uri) => uri,
            Some(_) => {
                return failed(
                    StatusCode::BAD_REQUEST,
                    "The redirect URI is not one the client registered (they are compared exactly).",
                );
            }
            None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
            None => {
                return failed(
                    StatusCode::BAD_REQUEST,
                    "The request names no redirect URI (redirect_uri).",
                );
            }
        };
        let state = query.state.clone();
        let refuse = |error: &str, why: &str| {
            self.back(
                &redirect_uri,
                state.as_deref(),
                &[("error", error), ("error_description", why)],
            )
        };
        if query.response_type.as_deref() != Some("code") {
            return refuse(
                "unsupported_response_type",
                "only response_type=code is supported",
            );
        }
        let Some(challenge) = query.code_challenge.filter(|c| !c.is_empty()) else {
            return refuse(
                "invalid_request",
                "PKCE is required: send code_challenge with code_challenge_method=S256",
            );
        };
        if query.code_challenge_method.as_deref() != Some("S256") {
            return refuse(
                "invalid_request",
                "code_challenge_method must be S256 (plain is not accepted)",
            );
        }
        if challenge.len() != 43
            || !challenge
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return refuse(
                "invalid_request",
                "code_challenge is not an S256 challenge (43 characters of base64url)",
            );
        }
        let resource = match query.resource {
            Some(resource) if resource == self.resource => resource,
            Some(_) => {
                return refuse(
                    "invalid_target",
                    "resource names another server than this one",
                );
            }
            None => self.resource.clone(),
        };
        let asked_scopes: Vec<String> = match query.scope.as_deref().or(client.scope.as_deref()) {
            Some(scope) => scope.split_whitespace().map(str::to_owned).collect(),
            None => Vec::new(),
        };
        // Scopes this server does not know (openid, offline_access, ...) are not granted;
        // none asked is every one it knows.
        let mut scopes: Vec<String> = asked_scopes
            .iter()
            .filter(|s| self.scopes.contains(s))
            .cloned()
            .collect();
        if asked_scopes.is_empty() {
            scopes = self.scopes.clone();
        }
        if scopes.is_empty() {
            return refuse(
                "invalid_scope",
                &format!(
                    "none of the scopes asked is one of this server's: {}",
                    self.scopes.join(" ")
                ),
            );
        }
        let id = random(24);
        let asked = Asked {
            client_id: client.id.clone(),
            redirect_uri: redirect_uri.clone(),
            challenge,
            scopes,
            state: state.clone(),
            resource,
            verifier: random(48),
            nonce: random(16),
            ask_again: query
                .prompt
                .as_deref()
                .is_some_and(|p| p.split_whitespace().any(|p| p == "consent")),
        };
        let callback = self.callback_url();
        let url = match self
            .upstream
            .sign_in_url(&callback, &id, &asked.verifier, &asked.nonce)
            .await
        {
            Ok(url) => url,
            Err(why) => {
                tracing::warn!("sign-in: the identity provider is not usable: {why}");
                return refuse(
                    "temporarily_unavailable",
                    "the identity provider cannot be reached; try again",
                );
            }
        };
        if let Err(err) = RecordStore(self.store.as_ref())
            .put(&key::asked(&id), &asked, SIGN_IN_TIME)
            .await
        {
            return unavailable(err);
        }
        Answer::Redirect(url, None)
    }

    /// The scopes of `asked` the operator's rules let `caller` be granted. A hint scope
    /// implies those below it (destructive: write and read; write: read), so one kept from
    /// the caller keeps those above it too.
    fn restricted(&self, caller: &crate::context::Caller, asked: &[String]) -> Vec<String> {
        use super::server::Level;
        let kept = super::rule::restricted(&self.settings.rules, caller, asked.to_vec());
        let offers = (self.offers)();
        let level = |scope: &str| offers.iter().find(|o| o.scope == scope).map(|o| o.level);
        let rank = |level: Option<Level>| match level {
            Some(Level::Read) => Some(0),
            Some(Level::Change) => Some(1),
            Some(Level::Destructive) => Some(2),
            _ => None,
        };
        let lowest_kept_from = offers
            .iter()
            .filter(|o| {
                !super::rule::restricted(&self.settings.rules, caller, vec![o.scope.clone()])
                    .contains(&o.scope)
            })
            .filter_map(|o| rank(Some(o.level)))
            .min();
        match lowest_kept_from {
            Some(floor) => kept
                .into_iter()
                .filter(|s| rank(level(s)).is_none_or(|r| r < floor))
                .collect(),
            None => kept,
        }
    }

    /// This server's redirect URI at the provider.
    pub(super) fn callback_url(&self) -> String {
        format!("{}/oauth/callback", self.issuer)
    }

    /// `/oauth/callback`: who signed in; the consent page, or the code when a remembered
    /// consent covers the request.
    pub(super) async fn callback(&self, query: CallbackQuery) -> Answer {
        let Some(state) = query.state.as_deref().filter(|s| !s.is_empty()) else {
            return failed(
                StatusCode::BAD_REQUEST,
                "The identity provider sent no state: no sign-in in progress.",
            );
        };
        let asked = match RecordStore(self.store.as_ref())
            .take::<Asked>(&key::asked(state))
            .await
        {
            Ok(Some(asked)) => asked,
            Ok(None) => {
                return failed(
                    StatusCode::BAD_REQUEST,
                    "This sign-in expired or was finished already: start again from the application.",
                );
            }
            Err(err) => return unavailable(err),
        };
        if let Some(error) = query.error {
            tracing::info!(
                error,
                "sign-in: the identity provider did not sign the user in"
            );
            return self.refuse(
                &asked,
                "access_denied",
                "the sign-in at the identity provider did not succeed",
            );
        }
        let Some(code) = query.code else {
            return self.refuse(&asked, "server_error", "the identity provider sent no code");
        };
        let identity = match self
            .upstream
            .identity(&code, &self.callback_url(), &asked.verifier, &asked.nonce)
            .await
        {
            Ok(identity) => identity,
            Err(why) => {
                tracing::warn!("sign-in: the identity was not read: {why}");
                return self.refuse(
                    &asked,
                    "server_error",
                    "the identity provider's answer was not usable",
                );
            }
        };
        let caller = identity.caller();
        let offered = self.restricted(&caller, &asked.scopes);
        if offered.is_empty() {
            tracing::info!(subject = %identity.subject, "sign-in: no scope asked may be granted to this user");
            return self.refuse(
                &asked,
                "access_denied",
                "your account may not be granted any of the scopes asked",
            );
        }
        let remembered = RecordStore(self.store.as_ref())
            .read::<Consent>(&consents::key_of(&identity, &asked.client_id))
            .await;
        match remembered {
            Ok(Some(consent)) if !asked.ask_again => {
                if offered.iter().all(|s| consent.scopes.contains(s)) {
                    tracing::info!(subject = %identity.subject, client = %asked.client_id, "sign-in: a remembered consent answers");
                    return self.code(asked, identity, offered).await;
                }
            }
            Ok(_) => {}
            Err(err) => return unavailable(err),
        }
        let browser = random(24);
        let pending = Pending {
            asked,
            identity,
            offered,
            csrf: random(24),
            browser: digest(&browser),
        };
        let id = random(24);
        if let Err(err) = RecordStore(self.store.as_ref())
            .put(&key::pending(&id), &pending, SIGN_IN_TIME)
            .await
        {
            return unavailable(err);
        }
        Answer::Redirect(format!("/oauth/consent?pending={id}"), Some(browser))
    }

    /// A code for `scopes`, sent to the client.
    pub(super) async fn code(
        &self,
        asked: Asked,
        identity: Identity,
        scopes: Vec<String>,
    ) -> Answer {
        let code = random(32);
        let record = Code {
            client_id: asked.client_id.clone(),
            redirect_uri: asked.redirect_uri.clone(),
            challenge: asked.challenge.clone(),
            scopes,
            resource: asked.resource.clone(),
            identity,
        };
        if let Err(err) = RecordStore(self.store.as_ref())
            .put(&key::code(&code), &record, CODE_LIFETIME)
            .await
        {
            return unavailable(err);
        }
        self.back(
            &asked.redirect_uri,
            asked.state.as_deref(),
            &[("code", &code)],
        )
    }
}

//! Token exchange (RFC 8693): each caller's access token exchanged at the configured token
//! endpoint for one with the upstream's audience and scopes, kept per caller until 30 s
//! before it expires; and the gateway's own token (`client_credentials`) for listing.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use serde_json::Value;
use sha2::{Digest, Sha256};
use toolsmith::ToolError;
use toolsmith::context::Caller;

use super::client_auth::{ClientAuth, Credentials, JWT_BEARER};
use super::exchange_config::ACCESS_TOKEN_TYPE;
use super::token_answer::{MAX_ANSWER, parse_token, read_bounded, said};
use super::token_cache::{MAX_CALLERS, TokenCache};
use super::{ActsAs, Asking, Exchange, UpstreamToken};

const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// How long a token endpoint may take to answer.
const TIMEOUT: Duration = Duration::from_secs(10);

/// One upstream's token exchange, built from its [`Exchange`].
pub(crate) struct Exchanger {
    endpoint: String,
    /// The endpoint as errors and logs show it (no user part, no query).
    shown: String,
    client_id: String,
    auth: Option<ClientAuth>,
    audience: Option<String>,
    resource: Option<String>,
    scope: Option<String>,
    subject_token_type: String,
    /// What is wrong with its configuration, if anything: every request fails naming it.
    problem: Option<String>,
    ca_file: Option<PathBuf>,
    http: OnceLock<Result<reqwest::Client, String>>,
    timeout: Duration,
    cache: TokenCache,
}

/// Which grant a request is.
enum Grant<'a> {
    Exchange { subject_token: &'a str },
    ClientCredentials,
}

impl Grant<'_> {
    fn what(&self) -> &'static str {
        match self {
            Grant::Exchange { .. } => "the token exchange",
            Grant::ClientCredentials => "the gateway's own token request (client_credentials)",
        }
    }
}

impl Exchanger {
    /// The exchange `exchange` describes. What is wrong with it (no client credentials, a
    /// plain-http endpoint off loopback) and its CA file are found out at its first request,
    /// which fails naming them (the gateway's own, at connect).
    pub(crate) fn new(exchange: &Exchange) -> Exchanger {
        let auth = match (&exchange.client_secret, &exchange.private_key) {
            (Some(secret), _) => Some(ClientAuth::Secret(secret.clone())),
            (None, Some(pem)) => Some(ClientAuth::Key {
                pem: pem.clone(),
                key_id: exchange.key_id.clone(),
            }),
            (None, None) => None,
        };
        Exchanger {
            endpoint: exchange.token_endpoint.clone(),
            shown: crate::told::shown_url(&exchange.token_endpoint),
            client_id: exchange.client_id.clone(),
            problem: exchange.check().err(),
            auth,
            audience: exchange.audience.clone(),
            resource: exchange.sent_resource().map(str::to_owned),
            scope: (!exchange.scopes.is_empty()).then(|| exchange.scopes.join(" ")),
            subject_token_type: exchange.subject_token_type.clone(),
            ca_file: exchange.ca_file.clone(),
            http: OnceLock::new(),
            timeout: TIMEOUT,
            cache: TokenCache::new(MAX_CALLERS),
        }
    }

    /// Its HTTP client: HTTPS trusting its CA file beside the system's authorities, no
    /// redirect followed (built at the first request).
    fn http(&self) -> Result<&reqwest::Client, String> {
        let built = self.http.get_or_init(|| {
            crate::tls::builder(self.ca_file.as_deref())?
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|err| format!("the HTTP client could not be built: {err}"))
        });
        built.as_ref().map_err(Clone::clone)
    }

    /// RFC 8693 at the token endpoint for `caller` (subject_token = the caller's access token
    /// as sent), kept per caller identity until 30 s before it expires.
    pub(crate) async fn token_for(
        &self,
        upstream: &str,
        caller: &Caller,
    ) -> Result<UpstreamToken, ToolError> {
        let Some(subject_token) = caller.bearer().filter(|t| !t.is_empty()) else {
            return Err(ToolError::new(format!(
                "upstream '{upstream}' acts as each user, and this caller has no token to exchange: serve the gateway with authorization (--auth-issuer or --signin-*) and call with a token"
            )));
        };
        self.exchanged(upstream, caller.identity(), subject_token)
            .await
    }

    /// The token for the caller known as `identity`, who presented `subject_token`.
    async fn exchanged(
        &self,
        upstream: &str,
        identity: &str,
        subject_token: &str,
    ) -> Result<UpstreamToken, ToolError> {
        let digest: [u8; 32] = Sha256::digest(subject_token.as_bytes()).into();
        self.cache
            .get_or_fetch(identity, digest, || {
                self.request(upstream, Grant::Exchange { subject_token })
            })
            .await
            .map_err(|why| ToolError::new(format!("upstream '{upstream}': {why}")))
    }

    /// A `client_credentials` token, for the same audience, resource and scopes (the gateway
    /// lists the upstream's tools as itself). Kept as a caller's is.
    pub(crate) async fn own_token(&self, upstream: &str) -> Result<UpstreamToken, crate::Error> {
        // No caller's identity is empty.
        self.cache
            .get_or_fetch("", [0; 32], || {
                self.request(upstream, Grant::ClientCredentials)
            })
            .await
            .map_err(|why| crate::Error::Identity {
                upstream: upstream.to_owned(),
                why,
            })
    }

    /// The upstream refused `caller`'s token: forget it.
    pub(crate) fn rejected(&self, caller: &Caller) {
        self.cache.forget(caller.identity());
    }

    /// The form of a request: the grant, the audience, resource and scopes, and the client
    /// assertion when the client signs one.
    fn form(&self, grant: &Grant<'_>, credentials: &Credentials) -> String {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        match grant {
            Grant::Exchange { subject_token } => {
                form.append_pair("grant_type", TOKEN_EXCHANGE)
                    .append_pair("subject_token", subject_token)
                    .append_pair("subject_token_type", &self.subject_token_type)
                    .append_pair("requested_token_type", ACCESS_TOKEN_TYPE);
            }
            Grant::ClientCredentials => {
                form.append_pair("grant_type", "client_credentials");
            }
        }
        for (name, value) in [
            ("audience", &self.audience),
            ("resource", &self.resource),
            ("scope", &self.scope),
        ] {
            if let Some(value) = value {
                form.append_pair(name, value);
            }
        }
        if let Credentials::Assertion(jwt) = credentials {
            form.append_pair("client_id", &self.client_id)
                .append_pair("client_assertion_type", JWT_BEARER)
                .append_pair("client_assertion", jwt);
        }
        form.finish()
    }

    /// One request to the token endpoint: the token, and until when it is used.
    async fn request(
        &self,
        upstream: &str,
        grant: Grant<'_>,
    ) -> Result<(UpstreamToken, Instant), String> {
        let what = grant.what();
        let shown = &self.shown;
        let (Some(auth), None) = (&self.auth, &self.problem) else {
            let problem = self.problem.as_deref().unwrap_or("no client credentials");
            return Err(format!("{what} is misconfigured: {problem}"));
        };
        let http = self
            .http()
            .map_err(|why| format!("{what} at {shown}: {why}"))?;
        let credentials = auth
            .credentials(&self.client_id, &self.endpoint)
            .map_err(|why| format!("{what} at {shown}: {why}"))?;
        let mut request = http
            .post(&self.endpoint)
            .header(reqwest::header::ACCEPT, "application/json")
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            );
        if let Credentials::Basic(header) = &credentials {
            request = request.header(reqwest::header::AUTHORIZATION, header);
        }
        let request = request.body(self.form(&grant, &credentials));
        let answer = tokio::time::timeout(self.timeout, async {
            let response = request.send().await?;
            let status = response.status();
            let kind = response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let body = read_bounded(response).await?;
            Ok::<_, reqwest::Error>((status, kind, body))
        })
        .await;
        let (status, kind, body) = match answer {
            Err(_) => {
                return Err(format!(
                    "{what} at {shown} did not answer within {} s",
                    self.timeout.as_secs_f32()
                ));
            }
            Ok(Err(err)) => {
                return Err(format!(
                    "{what} at {shown} could not be reached: {}",
                    crate::error::said(&err.without_url())
                ));
            }
            Ok(Ok(answer)) => answer,
        };
        let Some(body) = body else {
            return Err(format!(
                "{what} at {shown} answered more than {} KiB: expected a token response",
                MAX_ANSWER / 1024
            ));
        };
        let json = serde_json::from_slice::<Value>(&body)
            .ok()
            .filter(Value::is_object);
        let Some(json) = json else {
            return Err(format!(
                "{what} at {shown} answered {status} with no JSON ({}): expected a token response (RFC 8693)",
                kind.as_deref().map_or("no content type".into(), said)
            ));
        };
        let text = |name: &str| json.get(name).and_then(Value::as_str);
        if !status.is_success() {
            let Some(error) = text("error") else {
                return Err(format!(
                    "{what} at {shown} answered {status} without an OAuth `error`"
                ));
            };
            let description = text("error_description")
                .map(|d| format!(" ({})", said(d)))
                .unwrap_or_default();
            return Err(format!(
                "{what} at {shown} was refused: {}{description}",
                said(error)
            ));
        }
        parse_token(&json)
            .map_err(|why| format!("{what} at {shown} answered {why}"))
            .inspect(|(token, _)| {
                tracing::debug!(
                    upstream,
                    endpoint = %shown,
                    subject = token.subject.as_deref().unwrap_or("?"),
                    "{what}: a token for the upstream"
                );
            })
    }
}

/// The token exchange as the session pool uses it: it never asks the user.
impl ActsAs for Exchanger {
    fn identity(&self) -> &'static str {
        "exchange"
    }

    fn token_for<'a>(
        &'a self,
        upstream: &'a str,
        caller: &'a Caller,
        _: &'a Asking,
    ) -> BoxFuture<'a, Result<UpstreamToken, ToolError>> {
        Box::pin(Exchanger::token_for(self, upstream, caller))
    }

    fn own_token<'a>(
        &'a self,
        upstream: &'a str,
    ) -> BoxFuture<'a, Result<Option<UpstreamToken>, crate::Error>> {
        Box::pin(async move { Exchanger::own_token(self, upstream).await.map(Some) })
    }

    fn rejected<'a>(&'a self, caller: &'a Caller, _: &'a Asking) -> BoxFuture<'a, ()> {
        Exchanger::rejected(self, caller);
        Box::pin(std::future::ready(()))
    }

    /// The token exchanged for the caller's token as they present it now: a caller who comes
    /// with a new token (a refresh, another client of theirs) has it exchanged, and their
    /// session opened anew with that one. (An exchange that fails keeps the session.)
    fn still_current<'a>(
        &'a self,
        caller: &'a Caller,
        _: &'a Asking,
        token: &'a UpstreamToken,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            match Exchanger::token_for(self, "", caller).await {
                Ok(now) => now.access == token.access,
                Err(_) => true,
            }
        })
    }
}

#[cfg(test)]
#[path = "exchange_tests.rs"]
mod tests;

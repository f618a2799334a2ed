//! Authorization at the HTTP edge (feature `auth`): the Protected Resource Metadata (RFC
//! 9728), bearer tokens on every request to the MCP endpoint (401 when missing or invalid),
//! and tool calls the token may not make (403 with `insufficient_scope`, before the tool is
//! reached). What a tool needs is decided by the server, through [`Access`].

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::get;
use futures::future::BoxFuture;
use serde_json::Value;

use crate::auth::{Auth, Verifier};
use crate::context::Caller;

/// The scopes `caller` lacks to use `target`, as an OAuth `scope` value; `None` when it may,
/// or when no such thing is offered (the request is then answered as usual).
pub(crate) type Access = Arc<dyn Fn(&Caller, ItemRef<'_>) -> Option<String> + Send + Sync>;

/// The scopes `caller` lacks to use the task of this id (those of the tool that made it), as
/// an OAuth `scope` value; `None` when it may, or when it is not the caller's task (the
/// request is then answered as usual: "task not found"). Asynchronous: the task is looked up
/// in its store.
pub(crate) type TaskAccess =
    Arc<dyn Fn(Caller, String) -> BoxFuture<'static, Option<String>> + Send + Sync>;

/// What a request uses, as the edge reads it from the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ItemRef<'a> {
    /// `tools/call`: the tool of this name.
    Tool(&'a str),
    /// `tools/call` of the tool of the first name, whose arguments name the second (search
    /// mode's `call_tool` calls the tool its arguments name: the server decides which counts).
    ToolNaming(&'a str, &'a str),
    /// `resources/read`, `resources/subscribe`: the resource at this URI.
    Resource(&'a str),
    /// `prompts/get`: the prompt of this name.
    Prompt(&'a str),
}

impl ItemRef<'_> {
    /// `calling tool X`, `reading resource X`, `getting prompt X`.
    fn describe(&self) -> String {
        match self {
            ItemRef::Tool(name) => format!("calling tool {name}"),
            ItemRef::ToolNaming(name, named) => format!("calling tool {named} through {name}"),
            ItemRef::Resource(uri) => format!("reading resource {uri}"),
            ItemRef::Prompt(name) => format!("getting prompt {name}"),
        }
    }
}

/// What the server tells the transport about authorization.
#[derive(Clone)]
pub(crate) struct GuardConfig {
    /// The issuer trusted (none when the server signs users in itself).
    pub(crate) auth: Option<Auth>,
    /// The server's own authorization server (feature `signin`).
    #[cfg(feature = "signin")]
    pub(crate) signin: Option<SignInSetup>,
    /// Every scope a token may need, for the metadata.
    pub(crate) scopes_supported: Vec<String>,
    /// The scope a client without a token is told to ask for.
    pub(crate) challenge: String,
    pub(crate) access: Access,
    /// Who may poll and cancel which task (the tasks extension).
    pub(crate) task_access: TaskAccess,
}

/// What the server's own authorization server is made with.
#[cfg(feature = "signin")]
#[derive(Clone)]
pub(crate) struct SignInSetup {
    pub(crate) sign_in: crate::signin::SignIn,
    pub(crate) store: Arc<dyn crate::task::TaskStore>,
    pub(crate) offers: crate::signin::Offers,
    /// Where the server's tools find it, to mint tokens for the servers behind it.
    pub(crate) issuing: crate::signin::Issuing,
}

impl std::fmt::Debug for GuardConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardConfig")
            .field("auth", &self.auth)
            .field("scopes_supported", &self.scopes_supported)
            .finish_non_exhaustive()
    }
}

/// The guard of one server.
pub(crate) struct Guard {
    verifier: Verifier,
    access: Access,
    task_access: TaskAccess,
    challenge: String,
    /// The metadata document, served as is.
    metadata: String,
    /// Where clients find it.
    metadata_url: String,
    /// Where refusals are counted, by reason.
    pub(super) metrics: Option<crate::metrics::Metrics>,
    /// The server's own authorization server, whose revocations are checked.
    #[cfg(feature = "signin")]
    signin: Option<Arc<crate::signin::AuthServer>>,
}

/// The guard of the endpoint at `path` whose public URL is `public`, when `config` turns
/// authorization on (its refusals counted in `metrics`), with the routes of its metadata
/// document added to `router`.
pub(super) async fn install(
    config: Option<GuardConfig>,
    metrics: Option<crate::metrics::Metrics>,
    path: &str,
    public: &str,
    mut router: Router,
) -> Result<(Router, Option<Arc<Guard>>), crate::Error> {
    #[cfg_attr(not(feature = "signin"), allow(unused_mut))]
    let Some(mut guard_config) = config else {
        return Ok((router, None));
    };
    #[cfg(feature = "signin")]
    let signin = match guard_config.signin.take() {
        Some(setup) => {
            let server = crate::signin::AuthServer::start(
                setup.sign_in,
                setup.store,
                public,
                guard_config.scopes_supported.clone(),
                setup.offers,
            )
            .await?;
            setup.issuing.serve(server.clone());
            let keys = server.clone();
            let local = crate::auth::LocalKeys(Arc::new(move || keys.public_keys()));
            guard_config.auth = Some(Auth::issued_by(server.issuer(), local));
            router = router.merge(server.routes());
            Some(server)
        }
        None => None,
    };
    let Some(auth) = guard_config.auth.clone() else {
        return Err(crate::Error::config(
            "authorization",
            "authorization needs an issuer to trust (--auth-issuer) or sign-in (--signin-oidc)",
        ));
    };
    let issuer = auth.issuer.clone();
    let mut guard = Guard::new(guard_config, auth, public).await?;
    guard.metrics = metrics;
    #[cfg(feature = "signin")]
    {
        guard.signin = signin;
    }
    let guard = Arc::new(guard);
    for at in metadata_paths(path, public) {
        let guard = guard.clone();
        router = router.route(&at, get(move || async move { guard.metadata() }));
    }
    tracing::info!("authorization required: bearer tokens from {issuer}");
    Ok((router, Some(guard)))
}

/// The path of the metadata document, before the resource's path.
pub(super) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

impl Guard {
    /// The guard of a server whose public URL is `resource`.
    pub(crate) async fn new(
        config: GuardConfig,
        auth: Auth,
        resource: &str,
    ) -> Result<Guard, crate::Error> {
        let verifier = Verifier::new(&auth, resource).await?;
        let metadata = serde_json::json!({
            "resource": resource,
            "authorization_servers": [auth.issuer],
            "scopes_supported": config.scopes_supported,
            "bearer_methods_supported": ["header"],
        });
        Ok(Guard {
            verifier,
            access: config.access,
            task_access: config.task_access,
            challenge: config.challenge,
            metadata: metadata.to_string(),
            metadata_url: metadata_url(resource),
            metrics: None,
            #[cfg(feature = "signin")]
            signin: None,
        })
    }

    /// The metadata document's response.
    pub(super) fn metadata(&self) -> Response {
        let mut response = Response::new(Body::from(self.metadata.clone()));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response
    }

    /// The caller a request's bearer token stands for, or the 401 that answers it. Only the
    /// `Authorization` header is read (never a query parameter).
    pub(super) async fn authenticate(&self, headers: &HeaderMap) -> Result<Caller, Response> {
        let Some(token) = bearer(headers) else {
            self.count(crate::outcome::AuthRefusal::NoToken);
            let challenge = format!(
                "Bearer resource_metadata=\"{}\", scope=\"{}\"",
                self.metadata_url, self.challenge
            );
            return Err(refusal(
                StatusCode::UNAUTHORIZED,
                &challenge,
                None,
                UNAUTHORIZED,
                "Unauthorized: send an OAuth bearer token in the Authorization header",
            ));
        };
        let verified = self.verifier.verify(token).await;
        #[cfg(feature = "signin")]
        let verified = match (verified, &self.signin) {
            (Ok(caller), Some(signin)) if signin.revoked(&caller).await => Err(
                crate::auth::Rejected(std::borrow::Cow::Borrowed("the token was revoked")),
            ),
            (verified, _) => verified,
        };
        verified.map_err(|why| {
            self.count(crate::outcome::AuthRefusal::InvalidToken);
            let challenge = format!(
                "Bearer error=\"invalid_token\", error_description=\"{}\", resource_metadata=\"{}\", scope=\"{}\"",
                why.0, self.metadata_url, self.challenge
            );
            refusal(
                StatusCode::UNAUTHORIZED,
                &challenge,
                None,
                UNAUTHORIZED,
                &format!("Unauthorized: {}", why.0),
            )
        })
    }

    /// The 403 that answers a request for `target` by `caller`, when its token lacks what
    /// it needs (`None` when it may); `id` is the request's.
    pub(super) fn refusal_of(
        &self,
        caller: &Caller,
        target: ItemRef<'_>,
        id: Option<&Value>,
    ) -> Option<Response> {
        let needed = (self.access)(caller, target)?;
        Some(self.insufficient(caller, &target.describe(), &needed, id))
    }

    /// The 403 that answers `tasks/get`, `tasks/cancel` or `tasks/update` of task `task` by
    /// `caller`, when its token lacks the scope of the tool that made the task (`None` when
    /// it may, or when the task is not the caller's); `id` is the request's.
    pub(super) async fn task_refusal(
        &self,
        caller: &Caller,
        task: &str,
        id: Option<&Value>,
    ) -> Option<Response> {
        let needed = (self.task_access)(caller.clone(), task.to_owned()).await?;
        Some(self.insufficient(caller, &format!("using task {task}"), &needed, id))
    }

    /// The 403 that answers a request for `what` by `caller`, when its token lacks `scope`
    /// (`None` when it has it).
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub(super) fn lacking(
        &self,
        caller: &Caller,
        scope: &str,
        what: &str,
        id: Option<&Value>,
    ) -> Option<Response> {
        (!caller.has_scope(scope)).then(|| self.insufficient(caller, what, scope, id))
    }

    /// The 403 of a request for `what`, whose token lacks the scope `needed`.
    fn insufficient(
        &self,
        caller: &Caller,
        what: &str,
        needed: &str,
        id: Option<&Value>,
    ) -> Response {
        self.count(crate::outcome::AuthRefusal::InsufficientScope);
        tracing::info!(
            what,
            subject = caller.subject().unwrap_or(""),
            needed,
            "request refused: insufficient scope"
        );
        // The description is a quoted string in the header: a name or URI of the client's
        // loses what could end it.
        let description: String = what
            .chars()
            .filter(|c| *c != '"' && *c != '\\' && !c.is_control())
            .collect();
        let challenge = format!(
            "Bearer error=\"insufficient_scope\", scope=\"{needed}\", resource_metadata=\"{}\", error_description=\"{description} needs scope {needed}\"",
            self.metadata_url
        );
        refusal(
            StatusCode::FORBIDDEN,
            &challenge,
            Some(id.cloned().unwrap_or(Value::Null)),
            FORBIDDEN,
            &format!(
                "Forbidden: {what} needs scope \"{needed}\", which the access token does not grant"
            ),
        )
    }
    fn count(&self, why: crate::outcome::AuthRefusal) {
        if let Some(metrics) = &self.metrics {
            metrics.auth_refused(why);
        }
    }
}

/// The JSON-RPC error code of a request refused for want of a valid token.
const UNAUTHORIZED: i64 = -32001;
/// The JSON-RPC error code of a call refused for want of a scope.
const FORBIDDEN: i64 = -32003;

/// The token of an `Authorization: Bearer <token>` header (the scheme in any case).
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// A refusal: the status, its `WWW-Authenticate` challenge, and a JSON-RPC error body
/// (carrying the request's id when known).
fn refusal(
    status: StatusCode,
    challenge: &str,
    id: Option<Value>,
    code: i64,
    message: &str,
) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {"code": code, "message": message},
    });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Ok(value) = HeaderValue::from_str(challenge) {
        headers.insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// The URL of the metadata of `resource` (RFC 9728 §3.1: the well-known path goes between
/// the host and the resource's path).
fn metadata_url(resource: &str) -> String {
    let Some((scheme, rest)) = resource.split_once("://") else {
        return WELL_KNOWN.to_owned();
    };
    let cut = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(cut);
    let path = path.split(['?', '#']).next().unwrap_or("");
    let path = if path == "/" { "" } else { path };
    format!("{scheme}://{authority}{WELL_KNOWN}{path}")
}

/// The local paths the metadata is served at: the bare well-known path, and with the
/// endpoint's path and the public URL's path appended.
pub(super) fn metadata_paths(endpoint: &str, resource: &str) -> Vec<String> {
    let mut paths = vec![WELL_KNOWN.to_owned(), format!("{WELL_KNOWN}{endpoint}")];
    let public = metadata_url(resource);
    if let Some(at) = public.find(WELL_KNOWN) {
        let path = public[at..].to_owned();
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue, header};

    use super::{bearer, metadata_paths, metadata_url};

    #[test]
    fn metadata_sits_between_host_and_path() {
        assert_eq!(
            metadata_url("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("http://127.0.0.1:8000/"),
            "http://127.0.0.1:8000/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            metadata_paths("/mcp", "https://x.example/tools/mcp"),
            [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-protected-resource/tools/mcp"
            ]
        );
    }

    #[test]
    fn only_a_bearer_header_carries_a_token() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer abc.def"),
        );
        assert_eq!(bearer(&headers), Some("abc.def"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&headers), None);
    }
}

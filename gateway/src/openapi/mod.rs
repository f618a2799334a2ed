//! An HTTP API that an OpenAPI 3.0 or 3.1 document describes, as an upstream: each
//! operation a tool (see `operation.rs`), its hints from its HTTP method, a call sent as the
//! HTTP request the operation describes (see `call.rs`), with the credentials the
//! configuration gives, never the client's (and never shown to the model: see `redact.rs`).

mod answer;
mod budget;
mod call;
mod document;
mod hints;
mod operation;
mod origin;
mod redact;
mod schema;

use std::collections::HashMap;
use std::sync::Arc;

pub(crate) use call::{Endpoint, Target};
pub(crate) use operation::{Body, BodyKind, In, Param};

/// The most of an answer's body a call reads, by default: 4 MiB.
pub const DEFAULT_MAX_ANSWER_BYTES: usize = 4 << 20;

/// The most of an OpenAPI document read, by default: 16 MiB.
pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 16 << 20;

/// An HTTP API described by an OpenAPI document, served as tools through
/// [`Upstream::openapi`](crate::Upstream::openapi).
///
/// Each operation is a tool: its name from `operationId` (a character a tool name may not
/// hold written as `_`), its title from `summary`, its input from the path, query and header
/// parameters and the request body (under `body`), its output schema from the 2xx JSON
/// answer when that is an object. Its hints come from the HTTP method: GET, HEAD, OPTIONS
/// read-only and idempotent; PUT and DELETE idempotent and destructive; POST and PATCH
/// destructive and not idempotent; an operation's `x-mcp-annotations` or `x-mcp-hints`
/// object (the latter winning a hint both state), or the gateway's overrides, say
/// otherwise. The API's host is the tools' world: closed-world, unless
/// [`open_world`](OpenApi::open_world).
///
/// ```
/// use toolsmith_gateway::{OpenApi, Upstream};
///
/// let api = OpenApi::new("https://api.example.com/openapi.json")
///     .credential("ApiKeyAuth", "${EXAMPLE_API_KEY}")
///     .only_methods(["GET", "POST"])
///     .only_tags(["notes"]);
/// let notes = Upstream::openapi("notes", api);
/// assert_eq!(notes.tool_prefix(), "notes_");
/// ```
#[derive(Clone)]
pub struct OpenApi {
    pub(crate) document: String,
    pub(crate) base_url: Option<String>,
    pub(crate) credentials: HashMap<String, String>,
    pub(crate) tags: Vec<String>,
    pub(crate) methods: Vec<String>,
    pub(crate) paths: Vec<glob::Pattern>,
    pub(crate) bad_path: Option<String>,
    pub(crate) deprecated: bool,
    pub(crate) open_world: bool,
    pub(crate) max_answer: usize,
    pub(crate) max_document: usize,
    pub(crate) cross_origin_servers: bool,
}

impl OpenApi {
    /// The document at `document`: a file's path, or an `http(s)://` URL (a FastAPI
    /// application's `/openapi.json`); JSON or YAML.
    pub fn new(document: impl Into<String>) -> OpenApi {
        OpenApi {
            document: document.into(),
            base_url: None,
            credentials: HashMap::new(),
            tags: Vec::new(),
            methods: Vec::new(),
            paths: Vec::new(),
            bad_path: None,
            deprecated: false,
            open_world: false,
            max_answer: DEFAULT_MAX_ANSWER_BYTES,
            max_document: DEFAULT_MAX_DOCUMENT_BYTES,
            cross_origin_servers: false,
        }
    }

    /// Where the API answers (default: the document's first `servers` URL, taken relative
    /// to the document's own URL; else the document's origin). A document fetched from one
    /// origin that names a server at another is refused when credentials are configured,
    /// unless [`allow_cross_origin_servers`](OpenApi::allow_cross_origin_servers).
    ///
    /// ```
    /// let api = toolsmith_gateway::OpenApi::new("api.yaml").base_url("http://127.0.0.1:8000");
    /// # let _ = api;
    /// ```
    pub fn base_url(mut self, url: impl Into<String>) -> OpenApi {
        self.base_url = Some(url.into());
        self
    }

    /// The credential for the security scheme `scheme` (its name under
    /// `components.securitySchemes`): an API key's value, a bearer token, or `user:password`
    /// for HTTP basic. `${NAME}` is the environment variable `NAME`, `${file:PATH}` the
    /// file's content, read at connect.
    ///
    /// ```
    /// let api = toolsmith_gateway::OpenApi::new("api.yaml").credential("bearer", "${API_TOKEN}");
    /// # let _ = api;
    /// ```
    pub fn credential(mut self, scheme: impl Into<String>, value: impl Into<String>) -> OpenApi {
        self.credentials.insert(scheme.into(), value.into());
        self
    }

    /// Only the operations with one of these tags.
    ///
    /// ```
    /// let api = toolsmith_gateway::OpenApi::new("api.yaml").only_tags(["notes"]);
    /// # let _ = api;
    /// ```
    pub fn only_tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> OpenApi {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Only the operations of these HTTP methods (any case).
    ///
    /// ```
    /// let api = toolsmith_gateway::OpenApi::new("api.yaml").only_methods(["get"]);
    /// # let _ = api;
    /// ```
    pub fn only_methods<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        methods: I,
    ) -> OpenApi {
        self.methods = methods
            .into_iter()
            .map(|m| m.into().to_ascii_lowercase())
            .collect();
        self
    }

    /// Only the operations whose path matches one of these globs (`/notes/*`); a pattern
    /// that is not a glob is an error at connect.
    ///
    /// ```
    /// let api = toolsmith_gateway::OpenApi::new("api.yaml").only_paths(["/notes*"]);
    /// # let _ = api;
    /// ```
    pub fn only_paths<I: IntoIterator<Item = S>, S: Into<String>>(mut self, paths: I) -> OpenApi {
        for path in paths {
            let path = path.into();
            match glob::Pattern::new(&path) {
                Ok(pattern) => self.paths.push(pattern),
                Err(err) => self.bad_path = Some(format!("the path pattern {path:?}: {err}")),
            }
        }
        self
    }

    /// Serve the operations marked `deprecated` too (left out by default).
    ///
    /// ```
    /// let api = toolsmith_gateway::OpenApi::new("api.yaml").deprecated(true);
    /// # let _ = api;
    /// ```
    pub fn deprecated(mut self, serve: bool) -> OpenApi {
        self.deprecated = serve;
        self
    }

    /// Whether the tools reach an open world (`openWorldHint`): default `false`, the API's
    /// host being the tools' world.
    ///
    /// ```
    /// let api = toolsmith_gateway::OpenApi::new("api.yaml").open_world(true);
    /// # let _ = api;
    /// ```
    pub fn open_world(mut self, open: bool) -> OpenApi {
        self.open_world = open;
        self
    }

    /// The most of an answer's body a call reads (default [`DEFAULT_MAX_ANSWER_BYTES`]); a
    /// longer answer is an error result.
    ///
    /// ```
    /// let api = toolsmith_gateway::OpenApi::new("api.yaml").max_answer_bytes(64 * 1024);
    /// # let _ = api;
    /// ```
    pub fn max_answer_bytes(mut self, bytes: usize) -> OpenApi {
        self.max_answer = bytes;
        self
    }

    /// The most of the document read (default [`DEFAULT_MAX_DOCUMENT_BYTES`]); a longer one
    /// is an error at connect, said as soon as the cap is passed.
    ///
    /// ```
    /// let api = toolsmith_gateway::OpenApi::new("api.yaml").max_document_bytes(64 << 20);
    /// # let _ = api;
    /// ```
    pub fn max_document_bytes(mut self, bytes: usize) -> OpenApi {
        self.max_document = bytes;
        self
    }

    /// Whether the credentials go to the server a fetched document names when it is at
    /// another origin than the document's own (default `false`: such a document is an error
    /// at connect when credentials are configured, as whoever serves the document would
    /// choose where the credentials go). [`base_url`](OpenApi::base_url) is the other way
    /// to say where the API is.
    ///
    /// ```
    /// let api = toolsmith_gateway::OpenApi::new("https://docs.example.com/openapi.json")
    ///     .credential("bearer", "${API_TOKEN}")
    ///     .allow_cross_origin_servers(true);
    /// # let _ = api;
    /// ```
    pub fn allow_cross_origin_servers(mut self, allow: bool) -> OpenApi {
        self.cross_origin_servers = allow;
        self
    }

    /// Whether the selection takes `method` `path`.
    pub(crate) fn selects(
        &self,
        method: &str,
        path: &str,
        operation: &serde_json::Map<String, serde_json::Value>,
    ) -> bool {
        if !self.deprecated && operation.get("deprecated") == Some(&serde_json::Value::Bool(true)) {
            return false;
        }
        if !self.methods.is_empty() && !self.methods.iter().any(|m| m == method) {
            return false;
        }
        if !self.paths.is_empty() && !self.paths.iter().any(|p| p.matches(path)) {
            return false;
        }
        if !self.tags.is_empty() {
            let tagged = operation
                .get("tags")
                .and_then(|t| t.as_array())
                .is_some_and(|tags| {
                    tags.iter()
                        .filter_map(|t| t.as_str())
                        .any(|t| self.tags.iter().any(|want| want == t))
                });
            if !tagged {
                return false;
            }
        }
        true
    }

    /// Reads the document and makes its operations: each tool's description and the
    /// endpoint a call goes to.
    pub(crate) async fn load(
        &self,
        upstream: &str,
        ca_file: Option<&std::path::Path>,
    ) -> Result<Vec<(rmcp::model::Tool, Endpoint)>, String> {
        if let Some(bad) = &self.bad_path {
            return Err(bad.clone());
        }
        let client = call::client(ca_file)?;
        let document = document::load(&self.document, &client, self.max_document).await?;
        let base = self.base(&document)?;
        let schemes = operation::schemes(&document);
        let mut credentials = HashMap::new();
        for (scheme, value) in &self.credentials {
            if !schemes.contains_key(scheme) {
                let declared: Vec<&str> = schemes.keys().map(String::as_str).collect();
                return Err(format!(
                    "a credential is given for the security scheme '{scheme}', which the document does not declare (it declares: {})",
                    if declared.is_empty() {
                        "none".to_owned()
                    } else {
                        declared.join(", ")
                    }
                ));
            }
            let value = crate::secret::expand(value)
                .map_err(|why| format!("the credential for '{scheme}': {why}"))?;
            credentials.insert(scheme.clone(), value);
        }
        if !credentials.is_empty() {
            self.same_origin(&base)?;
        }
        let redactor = redact::Redactor::new(credentials.values().map(String::as_str));
        let target = Arc::new(Target {
            client,
            base,
            schemes,
            credentials,
            max_answer: self.max_answer,
            redactor,
        });
        let operations = operation::operations(self, upstream, &document, &target.schemes)?;
        Ok(operations
            .into_iter()
            .map(|(tool, route)| {
                let endpoint = Endpoint {
                    target: target.clone(),
                    route,
                };
                (tool, endpoint)
            })
            .collect())
    }
}

impl std::fmt::Debug for OpenApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Credentials are never shown.
        let schemes: Vec<&String> = self.credentials.keys().collect();
        f.debug_struct("OpenApi")
            .field("document", &self.document)
            .field("base_url", &self.base_url)
            .field("credentials_for", &schemes)
            .finish_non_exhaustive()
    }
}

/// The route of one operation: its method and path template, where each argument goes,
/// and the security requirements it may meet.
#[derive(Clone, Debug)]
pub(crate) struct Route {
    pub(crate) method: reqwest::Method,
    pub(crate) path: String,
    pub(crate) params: Vec<Param>,
    pub(crate) body: Option<Body>,
    /// Alternatives, each the schemes it needs together.
    pub(crate) security: Vec<Vec<String>>,
    /// Whether its answer has an output schema (a JSON object is its structured content).
    pub(crate) structured: bool,
}

/// A transport error's own words and those of what caused it, never its URL (it may hold an
/// API key in its query).
fn why(err: reqwest::Error) -> String {
    crate::error::said(&err.without_url())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::OpenApi;

    #[test]
    fn operations_are_chosen_by_tag_method_path_and_deprecation() {
        let op = |v: serde_json::Value| v.as_object().cloned().unwrap();
        let tagged = op(json!({"tags": ["notes"]}));
        let old = op(json!({"tags": ["notes"], "deprecated": true}));
        let all = OpenApi::new("x");
        assert!(all.selects("get", "/notes", &tagged));
        assert!(!all.selects("get", "/notes", &old));
        assert!(all.clone().deprecated(true).selects("get", "/notes", &old));
        let by_tag = OpenApi::new("x").only_tags(["ops"]);
        assert!(!by_tag.selects("get", "/notes", &tagged));
        let by_path = OpenApi::new("x").only_paths(["/notes/*"]);
        assert!(by_path.selects("get", "/notes/{id}", &tagged));
        assert!(!by_path.selects("get", "/health", &tagged));
        let by_method = OpenApi::new("x").only_methods(["GET"]);
        assert!(!by_method.selects("post", "/notes", &tagged));
        assert!(OpenApi::new("x").only_paths(["[oops"]).bad_path.is_some());
    }
}

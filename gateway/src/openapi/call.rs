//! A call of an operation: its arguments put where the route says (path, query, headers,
//! body), the credentials the configuration gives for a security requirement it declares,
//! the request sent (redirects followed only within the API's origin), and the answer read
//! as `answer.rs` says.

use std::collections::HashMap;
use std::time::Duration;

use base64::Engine;
use rmcp::model::{CallToolResult, JsonObject};
use serde_json::Value;
use toolsmith::ToolError;

use super::{BodyKind, In, Route, why};

/// How long a call waits for the API without a call timeout of its own.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What every operation of one API shares: the HTTP client, the base URL, the security
/// schemes, the credentials for them and what keeps them out of the answers.
pub(crate) struct Target {
    pub(crate) client: reqwest::Client,
    pub(crate) base: url::Url,
    pub(crate) schemes: HashMap<String, Value>,
    pub(crate) credentials: HashMap<String, String>,
    pub(crate) max_answer: usize,
    pub(crate) redactor: super::redact::Redactor,
}

/// One operation, as a call sends it.
#[derive(Clone)]
pub(crate) struct Endpoint {
    pub(crate) target: std::sync::Arc<Target>,
    pub(crate) route: Route,
}

/// The HTTP client of an API: keep-alive connections, a redirect followed only to the
/// origin it came from (credentials never leave it), at most 5; HTTPS trusting `ca_file`
/// beside the system's authorities.
pub(crate) fn client(ca_file: Option<&std::path::Path>) -> Result<reqwest::Client, String> {
    let same_origin = reqwest::redirect::Policy::custom(|attempt| {
        let from = attempt.previous().last().map(|u| u.origin());
        if attempt.previous().len() > 5 {
            attempt.error("more than 5 redirects")
        } else if from.as_ref() == Some(&attempt.url().origin()) {
            attempt.follow()
        } else {
            attempt.stop()
        }
    });
    crate::tls::builder(ca_file)?
        .redirect(same_origin)
        .tcp_nodelay(true)
        .build()
        .map_err(|err| format!("the HTTP client could not be built: {err}"))
}

impl Endpoint {
    /// Sends the request `arguments` make, within `timeout` (the tool's call timeout, else
    /// 30 s); the answer as the tool's.
    pub(crate) async fn call(
        &self,
        mut arguments: JsonObject,
        timeout: Option<Duration>,
    ) -> Result<CallToolResult, ToolError> {
        let route = &self.route;
        let target = &self.target;
        let mut path = route.path.clone();
        let mut query: Vec<(String, String)> = Vec::new();
        let mut headers: Vec<(String, String)> = Vec::new();
        for param in &route.params {
            let Some(value) = arguments.remove(&param.argument) else {
                if param.at == In::Path {
                    return Err(ToolError::new(format!(
                        "the argument '{}' is required (it is part of the path)",
                        param.argument
                    )));
                }
                continue;
            };
            match param.at {
                In::Path => {
                    let text = plain(&value);
                    // A dot segment would move the request to another path of the server.
                    if text.is_empty() || text == "." || text == ".." {
                        return Err(ToolError::new(format!(
                            "the argument '{}' is {text:?}: give a value that names one thing",
                            param.argument
                        )));
                    }
                    let encoded: String =
                        url::form_urlencoded::byte_serialize(text.as_bytes()).collect();
                    // A path segment: `+` is the form encoding's space.
                    let encoded = encoded.replace('+', "%20");
                    path = path.replace(&format!("{{{}}}", param.name), &encoded);
                }
                In::Query => match &value {
                    Value::Array(items) => {
                        query.extend(items.iter().map(|item| (param.name.clone(), plain(item))));
                    }
                    other => query.push((param.name.clone(), plain(other))),
                },
                In::Header => headers.push((param.name.clone(), plain(&value))),
            }
        }
        let mut url = target.base.clone();
        let joined = format!("{}{}", url.path().trim_end_matches('/'), path);
        url.set_path(&joined);
        // What a result may name: the URL without the credentials `authorize` adds.
        let mut shown_url = url.clone();
        if !query.is_empty() {
            shown_url.query_pairs_mut().extend_pairs(query.iter());
        }
        let requested = shown_url.to_string();
        self.authorize(&mut query, &mut headers)?;
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        let mut request = target
            .client
            .request(route.method.clone(), url)
            // With a call timeout, the server's own ends the call first (a `timed_out` error,
            // the request dropped); this one is the backstop.
            .timeout(timeout.map_or(DEFAULT_TIMEOUT, |t| t + Duration::from_secs(1)));
        for (name, value) in headers {
            request = request.header(name, value);
        }
        if let Some(body) = &route.body
            && let Some(value) = arguments.remove(&body.argument)
        {
            request = match body.kind {
                BodyKind::Json => request
                    .header("content-type", "application/json")
                    .body(value.to_string()),
                BodyKind::Form => {
                    let pairs: Vec<(String, String)> = value
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), plain(v)))
                        .collect();
                    let form = url::form_urlencoded::Serializer::new(String::new())
                        .extend_pairs(pairs)
                        .finish();
                    request
                        .header("content-type", "application/x-www-form-urlencoded")
                        .body(form)
                }
            };
        }
        let shown = format!("{} {}", route.method, route.path);
        let answer = request.send().await.map_err(|err| {
            ToolError::new(format!("{shown}: the API did not answer: {}", why(err)))
        })?;
        super::answer::read(
            answer,
            &shown,
            &requested,
            (target.max_answer, &target.redactor),
            route.structured,
        )
        .await
    }

    /// The credentials of the first security requirement of the route whose every scheme
    /// has one, put in place; none when the route needs none, or lets a caller without
    /// credentials in (`{}` among its requirements) and none is configured; else an error.
    fn authorize(
        &self,
        query: &mut Vec<(String, String)>,
        headers: &mut Vec<(String, String)>,
    ) -> Result<(), ToolError> {
        let target = &self.target;
        let requirements = &self.route.security;
        let met = requirements.iter().find(|schemes| {
            !schemes.is_empty() && schemes.iter().all(|s| target.credentials.contains_key(s))
        });
        let optional = requirements.is_empty() || requirements.iter().any(Vec::is_empty);
        let Some(schemes) = met else {
            if optional {
                return Ok(());
            }
            let named: Vec<String> = requirements.iter().map(|r| r.join(" + ")).collect();
            return Err(ToolError::new(format!(
                "{} {} needs credentials for {}: none is configured",
                self.route.method,
                self.route.path,
                named.join(" or ")
            )));
        };
        for name in schemes {
            let credential = &target.credentials[name];
            let scheme = &target.schemes[name];
            let field = |key: &str| scheme.get(key).and_then(Value::as_str).unwrap_or_default();
            match (
                field("type"),
                field("in"),
                field("scheme").to_ascii_lowercase().as_str(),
            ) {
                ("apiKey", "header", _) => headers.push((field("name").into(), credential.clone())),
                ("apiKey", "query", _) => query.push((field("name").into(), credential.clone())),
                ("apiKey", "cookie", _) => {
                    headers.push(("cookie".into(), format!("{}={credential}", field("name"))))
                }
                ("http", _, "basic") => {
                    let encoded = base64::engine::general_purpose::STANDARD.encode(credential);
                    headers.push(("authorization".into(), format!("Basic {encoded}")));
                }
                ("http", _, "bearer") | ("oauth2" | "openIdConnect", _, _) => {
                    headers.push(("authorization".into(), format!("Bearer {credential}")));
                }
                (kind, _, _) => {
                    return Err(ToolError::new(format!(
                        "the security scheme '{name}' ({kind}) is not one the gateway fills in"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// A value as a parameter's text: a string as it is, anything else as JSON.
fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;

    fn endpoint(schemes: Value, credentials: &[(&str, &str)], security: &[&[&str]]) -> Endpoint {
        let schemes = schemes
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let target = Target {
            client: client(None).unwrap(),
            base: url::Url::parse("http://127.0.0.1:1/").unwrap(),
            schemes,
            credentials: credentials
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            max_answer: 1024,
            redactor: super::super::redact::Redactor::new(credentials.iter().map(|(_, v)| *v)),
        };
        let route = Route {
            method: reqwest::Method::GET,
            path: "/x".into(),
            params: Vec::new(),
            body: None,
            security: security
                .iter()
                .map(|r| r.iter().map(|s| s.to_string()).collect())
                .collect(),
            structured: false,
        };
        Endpoint {
            target: Arc::new(target),
            route,
        }
    }

    #[test]
    fn each_kind_of_scheme_is_filled_from_the_configuration() {
        let schemes = json!({
            "token": {"type": "http", "scheme": "bearer"},
            "login": {"type": "http", "scheme": "basic"},
            "qkey": {"type": "apiKey", "in": "query", "name": "api_key"},
            "hkey": {"type": "apiKey", "in": "header", "name": "X-Key"}
        });
        let filled = |credentials: &[(&str, &str)], security: &[&[&str]]| {
            let (mut query, mut headers) = (Vec::new(), Vec::new());
            endpoint(schemes.clone(), credentials, security)
                .authorize(&mut query, &mut headers)
                .map(|()| (query, headers))
        };
        let (_, headers) = filled(&[("token", "t0k")], &[&["token"]]).unwrap();
        assert_eq!(headers, [("authorization".into(), "Bearer t0k".into())]);
        let (_, headers) = filled(&[("login", "ann:pw")], &[&["login"]]).unwrap();
        assert_eq!(headers, [("authorization".into(), "Basic YW5uOnB3".into())]);
        // The first requirement whose every scheme has a credential.
        let (query, headers) = filled(&[("qkey", "k1")], &[&["hkey"], &["qkey"]]).unwrap();
        assert_eq!(query, [("api_key".into(), "k1".into())]);
        assert!(headers.is_empty());
        let err = filled(&[], &[&["hkey"], &["token"]]).unwrap_err();
        assert!(
            err.message()
                .contains("needs credentials for hkey or token"),
            "{err}"
        );
        // An operation that declares no requirement, or an empty one, needs nothing.
        assert!(filled(&[], &[]).is_ok());
        assert!(filled(&[], &[&["hkey"], &[]]).unwrap().1.is_empty());
        // Optional authentication (`security: [{}, {hkey: []}]`): the credential is sent when
        // it is configured.
        let (_, headers) = filled(&[("hkey", "k2")], &[&[], &["hkey"]]).unwrap();
        assert_eq!(headers, [("X-Key".into(), "k2".into())]);
    }

    #[tokio::test]
    async fn a_dot_segment_is_refused_and_no_error_shows_a_credential() {
        let schemes = json!({"qkey": {"type": "apiKey", "in": "query", "name": "api_key"}});
        let mut at = endpoint(schemes, &[("qkey", "SECRET-KEY")], &[&["qkey"]]);
        at.route.path = "/notes/{id}".into();
        at.route.params = vec![super::super::Param {
            name: "id".into(),
            argument: "id".into(),
            at: In::Path,
        }];
        let args = |id: &str| json!({"id": id}).as_object().cloned().unwrap();
        let climbed = at.call(args(".."), None).await.unwrap_err();
        assert!(climbed.message().contains("\"..\""), "{climbed}");
        // Nothing listens at the base: the error says so without the URL (its query holds
        // the key).
        let refused = at.call(args("1"), None).await.unwrap_err();
        assert!(refused.message().contains("did not answer"), "{refused}");
        assert!(!refused.message().contains("SECRET"), "{refused}");
    }
}

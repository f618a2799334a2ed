//! What the gateway's sign-in tests share (`identity_signin.rs`, `identity_refused.rs`): the
//! notes example signing its users in (its own authorization server in front of
//! `tests/fixtures/fake_idp.py`), `toolsmith gateway` in front of it with
//! `[servers.notes.sign_in]`, listing its tools with a token of its own, and the MCP client's
//! user, who opens each sign-in link in a headless browser (`Browser`: cookies kept, every
//! redirect followed by hand) through the upstream's sign-in and consent back to the
//! gateway's callback.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationCapability, FormElicitationCapability, Implementation,
    UrlElicitationCapability,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient, RunningService, ServiceExt,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use toolsmith_tests::http::HttpServer;

use crate::signin::{ALL, Browser, Signin, form, split_url};

/// The gateway's `token_key` (base64 of 32 bytes).
const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

/// The upstream (signing its users in) and the gateway in front of it.
pub(super) struct Setup {
    pub(super) upstream: Arc<Signin>,
    /// The access token the gateway lists the upstream's tools with (its own).
    pub(super) own: String,
    gateway: HttpServer,
    _config: Config,
}

/// The gateway's configuration file, removed when dropped.
struct Config(PathBuf);

impl Drop for Config {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl Setup {
    /// The gateway serving with `serve_args` (`--sessions`: a 2025-11-25 client is asked on
    /// its session), in front of an upstream whose access tokens live 10 s.
    pub(super) async fn start(name: &str, serve_args: &[&str]) -> Setup {
        let upstream = Signin::start(&["--signin-token-lifetime", "10"]).await;
        Setup::around(name, serve_args, upstream).await
    }

    /// [`start`](Self::start) in front of `upstream`.
    pub(super) async fn around(name: &str, serve_args: &[&str], upstream: Signin) -> Setup {
        let toolsmith = toolsmith_tests::built("toolsmith-cli", "--bin", "toolsmith");
        // The gateway lists the upstream's tools as itself: with a token of its own.
        let own = upstream.tokens(&ALL.split(' ').collect::<Vec<_>>()).await;
        let path = std::env::temp_dir().join(format!(
            "toolsmith-usignin-{name}-{}.toml",
            std::process::id()
        ));
        let config = format!(
            "[servers.notes]\nurl = \"{}\"\nheaders = {{ Authorization = \"Bearer {}\" }}\n\
             [servers.notes.sign_in]\ntoken_key = \"{KEY}\"\nwait_secs = 30\n",
            upstream.resource, own.access
        );
        std::fs::write(&path, config).unwrap();
        let before = ["gateway", "--config", path.to_str().unwrap(), "--"];
        let env = [("TOOLSMITH_LOG", "info")];
        let gateway =
            HttpServer::start_after(toolsmith.to_str().unwrap(), &before, serve_args, &env).await;
        Setup {
            upstream: Arc::new(upstream),
            own: own.access,
            gateway,
            _config: Config(path),
        }
    }

    pub(super) fn origin(&self) -> String {
        format!("http://{}", self.gateway.addr)
    }

    /// An rmcp client of the gateway, its user `user`.
    pub(super) async fn client(&self, user: User) -> RunningService<RoleClient, User> {
        let transport = StreamableHttpClientTransport::from_config(self.transport());
        user.serve(transport).await.expect("the client connects")
    }

    /// An rmcp client of the gateway at 2026-07-28 (`server/discover`; a question is an
    /// `input_required` round, which rmcp's `call_tool` answers and retries itself).
    pub(super) async fn modern_client(&self, user: User) -> RunningService<RoleClient, User> {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let transport = StreamableHttpClientTransport::from_config(self.transport());
        user.serve_with_lifecycle(transport, lifecycle)
            .await
            .expect("the client connects at 2026-07-28")
    }

    /// The gateway's endpoint, for rmcp's HTTP client.
    fn transport(&self) -> StreamableHttpClientTransportConfig {
        toolsmith_gateway::install_crypto_provider();
        StreamableHttpClientTransportConfig::with_uri(format!(
            "{}{}",
            self.origin(),
            self.gateway.path
        ))
    }

    pub(super) fn user(&self, does: Does) -> User {
        User {
            upstream: self.upstream.clone(),
            does,
            links: Arc::default(),
            pages: Arc::default(),
        }
    }
}

/// What the user does with a sign-in link.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Does {
    /// Signs in, in the browser that opened the link.
    SignIn,
    /// Signs in, but comes back to the gateway in another browser (without its cookie).
    Strays,
    Declines,
    /// Cannot be asked: the client declares no URL elicitation.
    CannotOpen,
}

#[derive(Clone)]
pub(super) struct User {
    upstream: Arc<Signin>,
    does: Does,
    /// The links asked to open.
    pub(super) links: Arc<Mutex<Vec<String>>>,
    /// The gateway's answers at the end of each sign-in, and the callback URL it was for.
    pub(super) pages: Arc<Mutex<Vec<(String, u16, String)>>>,
}

impl rmcp::ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        let mut elicitation =
            ElicitationCapability::new().with_form(FormElicitationCapability::default());
        if self.does != Does::CannotOpen {
            elicitation = elicitation.with_url(UrlElicitationCapability::new());
        }
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(elicitation);
        ClientConfig::new(
            capabilities,
            Implementation::new("identity-signin-test", "0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let ElicitRequestParams::UrlElicitationParams { url, .. } = request else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        self.links.lock().unwrap().push(url.clone());
        if self.does == Does::Declines {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        // The user's browser goes on after the client answered (the call waits for it).
        let user = self.clone();
        tokio::spawn(async move {
            let browser = Browser::new();
            let back = to_callback(&user.upstream, &browser, &url).await;
            let answer = match user.does {
                Does::Strays => Browser::new().go("", &back).await,
                _ => browser.go("", &back).await,
            };
            user.pages
                .lock()
                .unwrap()
                .push((back, answer.status, answer.body));
        });
        Ok(ElicitResult::new(ElicitationAction::Accept))
    }
}

/// The browser's way from the gateway's start `link` through the upstream's sign-in and
/// consent: the URL of the gateway's callback the upstream sends it back to.
pub(super) async fn to_callback(upstream: &Signin, browser: &Browser, link: &str) -> String {
    let (gateway, path) = split_url(link, "");
    let start = browser.get(&gateway, &path).await;
    assert_eq!(start.status, 200, "the start page: {}", start.body);
    assert!(
        start.body.contains("Continue to notes"),
        "the start page names the upstream: {}",
        start.body
    );
    let fields = [
        ("s", hidden(&start.body, "s")),
        ("csrf", hidden(&start.body, "csrf")),
    ];
    let fields: Vec<(&str, &str)> = fields.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let action = path.split('?').next().unwrap_or_default();
    let go = browser.post_form(&gateway, action, &form(&fields)).await;
    assert_eq!(go.status, 303, "the start page's form: {}", go.body);
    let authorize = go.header("location").expect("a Location").to_owned();
    assert!(
        authorize.starts_with(&format!("{}/oauth/authorize?", upstream.issuer)),
        "{authorize}"
    );
    let (_, authorize) = split_url(&authorize, upstream.addr());
    let callback = upstream.sign_in(browser, &authorize).await;
    let page = upstream.consent_page(browser, &callback).await;
    assert!(
        page.html.contains("toolsmith gateway"),
        "the consent page names the gateway's client"
    );
    let scopes: Vec<&str> = page.scopes.iter().map(String::as_str).collect();
    let answer = upstream.allow(browser, &page, &scopes, false).await;
    assert_eq!(answer.status, 302, "consent: {}", answer.body);
    let back = answer.header("location").expect("a Location").to_owned();
    assert!(
        back.starts_with(&format!("http://{gateway}/upstream/callback?")),
        "the upstream sends the browser back to the gateway: {back}"
    );
    back
}

/// The value of the hidden form field `name` of the gateway's start page `html`.
fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let rest = &html[html
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} in: {html}"))
        + marker.len()..];
    rest[..rest.find('"').expect("a closing quote")].to_owned()
}

/// Calls `name` with `args`: whether it is an error result, and its text.
pub(super) async fn call(
    client: &RunningService<RoleClient, User>,
    name: &str,
    args: serde_json::Value,
) -> (bool, String) {
    let mut params = CallToolRequestParams::new(name.to_owned());
    if let serde_json::Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    let result = tokio::time::timeout(Duration::from_secs(60), client.call_tool(params))
        .await
        .expect("an answer within 60 s")
        .expect("a result");
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    (result.is_error == Some(true), text)
}

/// Searches the notes: whether it is an error result, and its text.
pub(super) async fn search(client: &RunningService<RoleClient, User>) -> (bool, String) {
    call(
        client,
        "notes_search_notes",
        serde_json::json!({"query": ""}),
    )
    .await
}

/// The call of a user whose client cannot open a link: a tool error naming the upstream,
/// with the sign-in link, which the user opens here. Returns the link.
pub(super) async fn signs_in_by_link(
    setup: &Setup,
    client: &RunningService<RoleClient, User>,
) -> String {
    let (error, text) = search(client).await;
    assert!(error, "{text}");
    assert!(text.starts_with("upstream 'notes': sign in at "), "{text}");
    let link = text
        .split("sign in at ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("a link in: {text}"))
        .to_owned();
    let browser = Browser::new();
    let back = to_callback(&setup.upstream, &browser, &link).await;
    let page = browser.go("", &back).await;
    assert_eq!(page.status, 200, "{}", page.body);
    link
}

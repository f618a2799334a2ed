//! Per-user sign-in at an upstream that has its own authorization server (issue #56, mode
//! 2), end to end on 127.0.0.1: the notes example signs its users in itself (its own
//! authorization server in front of `tests/fixtures/fake_idp.py`: registration, PKCE,
//! `resource`, its consent page); `toolsmith gateway` mounts it with
//! `[servers.notes.sign_in]`, lists its tools with a token of its own and calls them as each
//! user; the MCP client is rmcp's, whose user opens each sign-in link in a headless browser
//! (`Browser`: cookies kept, every redirect followed by hand) through the upstream's sign-in
//! and consent back to the gateway's callback.

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
    async fn start(name: &str, serve_args: &[&str]) -> Setup {
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

    fn origin(&self) -> String {
        format!("http://{}", self.gateway.addr)
    }

    /// An rmcp client of the gateway, its user `user`.
    pub(super) async fn client(&self, user: User) -> RunningService<RoleClient, User> {
        let transport = StreamableHttpClientTransport::from_config(self.transport());
        user.serve(transport).await.expect("the client connects")
    }

    /// An rmcp client of the gateway at 2026-07-28 (`server/discover`; a question is an
    /// `input_required` round, which rmcp's `call_tool` answers and retries itself).
    async fn modern_client(&self, user: User) -> RunningService<RoleClient, User> {
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
async fn to_callback(upstream: &Signin, browser: &Browser, link: &str) -> String {
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
async fn call(
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

#[tokio::test]
async fn a_user_signs_in_at_the_upstream_once_is_refreshed_and_signs_out() {
    let setup = Setup::start("flow", &["--sessions"]).await;
    let user = setup.user(Does::SignIn);
    let client = setup.client(user.clone()).await;

    // The first call asks the user to sign in at the gateway's start page, then goes on.
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    let links = user.links.lock().unwrap().clone();
    assert_eq!(links.len(), 1, "{links:?}");
    assert!(
        links[0].starts_with(&format!("{}/upstream/start?s=", setup.origin())),
        "{links:?}"
    );
    let (back, status, page) = user.pages.lock().unwrap()[0].clone();
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("signed in to &#39;notes&#39;"), "{page}");

    // The second needs no sign-in.
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    assert_eq!(user.links.lock().unwrap().len(), 1);

    // Past the upstream token's 10 s: refreshed (a refresh token rotates), not asked again.
    tokio::time::sleep(Duration::from_secs(11)).await;
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    assert_eq!(user.links.lock().unwrap().len(), 1, "refreshed, not asked");

    // The callback replayed, and a state the gateway never made: error pages.
    let (addr, path) = split_url(&back, "");
    let replayed = Browser::new().get(&addr, &path).await;
    assert_eq!(replayed.status, 400, "{}", replayed.body);
    assert!(replayed.body.contains("already used"), "{}", replayed.body);
    let forged = Browser::new()
        .get(&addr, "/upstream/callback?code=x&state=forged")
        .await;
    assert_eq!(forged.status, 400, "{}", forged.body);

    // Signing out revokes and forgets: the next call asks again.
    let (error, text) = call(&client, "notes_sign_out", serde_json::json!({})).await;
    assert!(!error && text.contains("Signed out of 'notes'"), "{text}");
    let (error, text) = call(&client, "notes_sign_out", serde_json::json!({})).await;
    assert!(
        !error && text.contains("Not signed in"),
        "idempotent: {text}"
    );
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    assert_eq!(user.links.lock().unwrap().len(), 2, "asked again");
    assert_ne!(user.links.lock().unwrap()[1], links[0]);
}

#[tokio::test]
async fn a_declined_a_stray_and_an_unopenable_sign_in_are_tool_errors_keeping_nothing() {
    let setup = Setup::start("refusals", &["--sessions"]).await;

    let declining = setup.user(Does::Declines);
    let client = setup.client(declining.clone()).await;
    let (error, text) = search(&client).await;
    assert!(error, "{text}");
    assert!(
        text.contains("upstream 'notes': the user did not sign in (declined)"),
        "{text}"
    );

    // Back at the gateway in another browser than the one that opened the link: refused,
    // and the waiting call says so.
    let stray = setup.user(Does::Strays);
    let client = setup.client(stray.clone()).await;
    let (error, text) = search(&client).await;
    assert!(error && text.contains("the sign-in failed"), "{text}");
    let (_, status, page) = stray.pages.lock().unwrap()[0].clone();
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("did not start in this browser"), "{page}");

    // A client that cannot open a URL gets the link in the error; opened, it signs in.
    let unopenable = setup.user(Does::CannotOpen);
    let client = setup.client(unopenable.clone()).await;
    let (error, text) = search(&client).await;
    assert!(error, "{text}");
    let link = text
        .split("sign in at ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("a link in: {text}"))
        .to_owned();
    assert!(
        link.starts_with(&format!("{}/upstream/start?s=", setup.origin())),
        "{link}"
    );
    assert!(unopenable.links.lock().unwrap().is_empty());
    let browser = Browser::new();
    let back = to_callback(&setup.upstream, &browser, &link).await;
    let page = browser.go("", &back).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
}

#[tokio::test]
async fn at_2026_07_28_the_sign_in_is_an_input_required_round_of_a_stateless_gateway() {
    let setup = Setup::start("modern", &[]).await;
    let user = setup.user(Does::SignIn);
    let client = setup.modern_client(user.clone()).await;
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    let links = user.links.lock().unwrap().clone();
    assert_eq!(links.len(), 1, "one question, one link: {links:?}");
    assert!(
        links[0].starts_with(&format!("{}/upstream/start?s=", setup.origin())),
        "{links:?}"
    );
    let (_, status, page) = user.pages.lock().unwrap()[0].clone();
    assert_eq!(status, 200, "{page}");
    let (error, text) = search(&client).await;
    assert!(!error, "{text}");
    assert_eq!(user.links.lock().unwrap().len(), 1, "signed in once");
}

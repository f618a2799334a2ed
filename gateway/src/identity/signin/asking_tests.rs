//! `token_for` through a real call: a toolsmith server whose tool asks for the caller's
//! token, an rmcp client that answers the URL elicitation (following the link to the fake
//! authorization server and back to the callback, as a user's browser would), declines it,
//! or cannot take it.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability, Implementation, UrlElicitationCapability,
};
use rmcp::service::{RequestContext, RoleClient, ServiceExt};
use toolsmith::context::{Caller, Elicit, Store};
use toolsmith::rmcp::model::JsonObject;
use toolsmith::task::{MemoryStore, TaskStore};
use toolsmith::tool::{ToolFuture, ToolOutput};
use toolsmith::{CallContext, Hints, Registry, Server, Tool, ToolDescription};

use super::fake::Fake;
use super::{SignInClient, UpstreamSignIn};

const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

/// A tool that answers with the caller's access token at the upstream.
struct Probe(Arc<SignInClient>);

impl Tool for Probe {
    fn describe(&self) -> ToolDescription {
        let schema = serde_json::json!({"type": "object"})
            .as_object()
            .cloned()
            .unwrap();
        let hints = Hints {
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: false,
        };
        ToolDescription::new("files_probe", "The caller's token at files.", schema, hints)
            .with_asks_client(true)
    }
    fn call(&self, _: JsonObject, context: &CallContext) -> ToolFuture {
        let client = self.0.clone();
        let (caller, elicit, store) = (
            context.extract::<Caller>(),
            context.extract::<Elicit>(),
            context.extract::<Store>(),
        );
        Box::pin(async move {
            let store = store?.shared();
            let token = client
                .token_for("files", &caller?, Some(&elicit?), &store)
                .await?;
            Ok(ToolOutput::new().text(token.access))
        })
    }
}

/// A user: opens each link (or declines, or declares no URL elicitation).
#[derive(Clone)]
struct User {
    answer: ElicitationAction,
    url_mode: bool,
    /// Whether its browser follows the link it accepted.
    browses: bool,
    asked: Arc<Mutex<Vec<String>>>,
    fake_challenge: Arc<Mutex<super::fake::Seen>>,
}

impl rmcp::ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        let mut elicitation =
            ElicitationCapability::new().with_form(FormElicitationCapability::default());
        if self.url_mode {
            elicitation = elicitation.with_url(UrlElicitationCapability::new());
        }
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(elicitation);
        ClientConfig::new(capabilities, Implementation::new("user", "0"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::UrlElicitationParams { url, .. } = request {
            self.asked.lock().unwrap().push(url.clone());
            if self.answer == ElicitationAction::Accept && self.browses {
                // The browser goes on after the client answered, as a user's does.
                let seen = self.fake_challenge.clone();
                tokio::spawn(async move { browse(&url, &seen).await });
            }
        }
        Ok(ElicitResult::new(self.answer.clone()))
    }
}

/// The browser: the start page, the authorization server (its code), the callback.
async fn browse(link: &str, seen: &Arc<Mutex<super::fake::Seen>>) {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let (authorize, cookie) = super::fake::open_link(&http, link).await;
    let param = |name: &str| {
        authorize
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
            .unwrap()
    };
    seen.lock().unwrap().challenge = param("code_challenge");
    let mut back = url::Url::parse(&param("redirect_uri")).unwrap();
    back.query_pairs_mut()
        .append_pair("code", "good-code")
        .append_pair("state", &param("state"));
    let page = http
        .get(back)
        .header("Cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
}

/// A gateway whose tool asks for the token, its pages served, and a client playing `user`.
async fn connect(
    fake: &Fake,
    user: User,
    wait: u64,
) -> rmcp::service::RunningService<RoleClient, User> {
    crate::tls::install_crypto_provider();
    let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new());
    let mcp = format!("{}/mcp", fake.base);
    let config = UpstreamSignIn::new(KEY).wait(std::time::Duration::from_secs(wait));
    let client = Arc::new(SignInClient::new("files", &mcp, config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let router = client.routes_at(&origin, store.clone());
    tokio::spawn(async move { toolsmith::axum::serve(listener, router).await });
    let registry = Registry::new().with_tool(Probe(client)).unwrap();
    let server = Server::with_registry(registry).task_store(store);
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(server.serve_io(read, write));
    user.serve(client_end).await.unwrap()
}

async fn probe(client: &rmcp::service::RunningService<RoleClient, User>) -> (bool, String) {
    let result = client
        .call_tool(rmcp::model::CallToolRequestParams::new("files_probe"))
        .await
        .unwrap();
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default();
    (result.is_error == Some(true), text)
}

fn user(fake: &Fake, answer: ElicitationAction, url_mode: bool) -> User {
    User {
        answer,
        url_mode,
        browses: true,
        asked: Arc::default(),
        fake_challenge: fake.seen.clone(),
    }
}

#[tokio::test]
async fn a_call_without_a_token_asks_the_user_to_sign_in_then_goes_on() {
    let fake = Fake::start().await;
    let alice = user(&fake, ElicitationAction::Accept, true);
    let client = connect(&fake, alice.clone(), 20).await;
    assert_eq!(probe(&client).await, (false, "at-1".to_owned()));
    let asked = alice.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("/upstream/start?s="), "{asked:?}");
    // The second call needs no sign-in.
    assert_eq!(probe(&client).await, (false, "at-1".to_owned()));
    assert_eq!(alice.asked.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_declined_sign_in_and_a_client_without_url_elicitation_are_tool_errors() {
    let fake = Fake::start().await;
    let declining = user(&fake, ElicitationAction::Decline, true);
    let client = connect(&fake, declining.clone(), 20).await;
    let (error, text) = probe(&client).await;
    assert!(
        error && text.contains("upstream 'files': the user did not sign in (declined)"),
        "{text}"
    );
    let cancelling = user(&fake, ElicitationAction::Cancel, true);
    let client = connect(&fake, cancelling, 20).await;
    let (error, text) = probe(&client).await;
    assert!(
        error && text.contains("did not sign in (cancelled)"),
        "{text}"
    );

    // A client that cannot open a URL: the link is in the error, and it works.
    let forms_only = user(&fake, ElicitationAction::Accept, false);
    let client = connect(&fake, forms_only.clone(), 20).await;
    let (error, text) = probe(&client).await;
    assert!(error && text.contains("sign in at http://"), "{text}");
    assert!(forms_only.asked.lock().unwrap().is_empty());
    let link = text
        .split("sign in at ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap()
        .to_owned();
    assert!(link.contains("/upstream/start?s="), "{link}");
    browse(&link, &fake.seen).await;
    assert_eq!(probe(&client).await, (false, "at-1".to_owned()));
}

#[tokio::test]
async fn a_sign_in_never_finished_ends_the_wait_with_the_link() {
    let fake = Fake::start().await;
    // Accepts, but its browser never goes: the call waits its 1 s, then says so.
    let idle = User {
        browses: false,
        ..user(&fake, ElicitationAction::Accept, true)
    };
    let client = connect(&fake, idle.clone(), 1).await;
    let (error, text) = probe(&client).await;
    assert!(
        error && text.contains("did not finish within 1 s"),
        "{text}"
    );
    let asked = idle.asked.lock().unwrap().clone();
    assert!(text.contains(&asked[0]), "the link again: {text}");
    // Asked again, the same link (the sign-in under way), which still works.
    let (_, again) = probe(&client).await;
    assert_eq!(idle.asked.lock().unwrap()[1], asked[0], "{again}");
    browse(&asked[0], &fake.seen).await;
    assert_eq!(probe(&client).await, (false, "at-1".to_owned()));
}

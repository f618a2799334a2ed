//! HTTP APIs that attack the gateway, each served in process on loopback: a `$ref` bomb (and
//! a YAML alias bomb), a document that never ends, an API that quotes the request (credentials and all) back, and a
//! document that names a server at another origin than its own.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolsmith::Server;
use toolsmith::testing::Client;
use toolsmith_gateway::{Config, Mounted, OpenApi, Upstream};

/// What a test server answers a request with.
enum Answer {
    /// A status, a content type and a body.
    Full(u16, &'static str, Vec<u8>),
    /// A 200 whose body does not end before the client hangs up (or 64 MiB), without a
    /// length: read until the connection closes.
    Endless,
}

/// The requests a test server heard, each its head (request line and headers) as sent.
type Heard = Arc<Mutex<Vec<String>>>;

/// A server on a free loopback port answering each request (given its head) as `answer`
/// says: its base URL and what it heard.
async fn serve(answer: impl Fn(&str) -> Answer + Send + Sync + 'static) -> (String, Heard) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let heard = Heard::default();
    let answer = Arc::new(answer);
    let log = heard.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let (answer, log) = (answer.clone(), log.clone());
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 64 * 1024 {
                    if stream.read(&mut byte).await.unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                log.lock().unwrap().push(head.clone());
                match answer(&head) {
                    Answer::Full(status, kind, body) => {
                        let start = format!(
                            "HTTP/1.1 {status} X\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                            body.len()
                        );
                        let _ = stream.write_all(start.as_bytes()).await;
                        let _ = stream.write_all(&body).await;
                    }
                    Answer::Endless => {
                        let start = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{\"openapi\": \"3.1.0\", \"x\": \"";
                        let _ = stream.write_all(start.as_bytes()).await;
                        let chunk = vec![b'a'; 64 * 1024];
                        // Until the client hangs up, or past 4 times the default cap.
                        for _ in 0..1024 {
                            if stream.write_all(&chunk).await.is_err() {
                                break;
                            }
                        }
                    }
                }
                let _ = stream.shutdown().await;
            });
        }
    });
    (base, heard)
}

/// A server answering every request with `document` (JSON): its base URL.
async fn serve_document(document: String) -> String {
    let body = document.into_bytes();
    serve(move |_| Answer::Full(200, "application/json", body.clone()))
        .await
        .0
}

/// `upstream` connected, within a minute.
async fn connect(upstream: Upstream) -> Result<Mounted, toolsmith_gateway::Error> {
    tokio::time::timeout(Duration::from_secs(60), upstream.connect())
        .await
        .expect("the gateway did not connect or fail within a minute")
}

/// Why `upstream` does not connect (within a minute); `what` names it when it does.
async fn refused(upstream: Upstream, what: &str) -> String {
    match connect(upstream).await {
        Ok(_) => panic!("{what} was mounted"),
        Err(err) => err.to_string(),
    }
}

#[tokio::test]
async fn the_ref_bomb_is_a_startup_error_naming_the_document_and_the_budget() {
    // 60 operations answering `Mid`, 1,000 properties each a `$ref` to `Big` (4 KB): a
    // 45 KB document that would expand to 240 MB.
    let leaf = json!({"type": "string", "description": "d".repeat(30)});
    let big: Map<String, Value> = (0..68).map(|i| (format!("p{i}"), leaf.clone())).collect();
    let mid: Map<String, Value> = (0..1_000)
        .map(|i| (format!("m{i}"), json!({"$ref": "#/components/schemas/Big"})))
        .collect();
    let paths: Map<String, Value> = (0..60)
        .map(|i| {
            let answer = json!({"content": {"application/json":
                {"schema": {"$ref": "#/components/schemas/Mid"}}}});
            let get =
                json!({"get": {"operationId": format!("op{i}"), "responses": {"200": answer}}});
            (format!("/p{i}"), get)
        })
        .collect();
    let bomb = json!({
        "openapi": "3.1.0",
        "info": {"title": "bomb", "version": "1"},
        "paths": paths,
        "components": {"schemas": {
            "Big": {"type": "object", "properties": big},
            "Mid": {"type": "object", "properties": mid}
        }}
    })
    .to_string();
    assert!(bomb.len() < 64 * 1024, "{}", bomb.len());
    let document = format!("{}/openapi.json", serve_document(bomb).await);
    let said = refused(
        Upstream::openapi("bomb", OpenApi::new(&document)),
        "the bomb",
    )
    .await;
    assert!(
        said.contains(&document) && said.contains("expand it by more than 32 MiB"),
        "{said}"
    );
}

#[tokio::test]
async fn a_yaml_alias_bomb_is_a_startup_error_too() {
    // 1,000 aliases of a 4,000-item list: 46 KB that would read as 44 MB.
    let items: Vec<String> = (0..4_000).map(|i| format!("item{i}")).collect();
    let aliases = vec!["*big"; 1_000].join(", ");
    let laughs = format!(
        "openapi: 3.1.0\ninfo: {{title: laughs, version: '1'}}\npaths: {{}}\nx-big: &big [{}]\nx-many: [{aliases}]\n",
        items.join(", ")
    );
    let path = std::env::temp_dir().join(format!("toolsmith-laughs-{}.yaml", std::process::id()));
    std::fs::write(&path, laughs).unwrap();
    let document = path.display().to_string();
    let api = OpenApi::new(&document).base_url("http://127.0.0.1:1");
    let said = refused(Upstream::openapi("laughs", api), "the alias bomb").await;
    std::fs::remove_file(&path).unwrap();
    assert!(
        said.contains(&document)
            && said.contains("YAML aliases (`*name`) expand it by more than 32 MiB"),
        "{said}"
    );
}

#[tokio::test]
async fn a_document_past_its_cap_is_refused_while_it_is_read() {
    // Over HTTP, without a length: counted as it comes, refused at the default cap.
    let (base, _) = serve(|_| Answer::Endless).await;
    let document = format!("{base}/openapi.json");
    let said = refused(
        Upstream::openapi("endless", OpenApi::new(&document)),
        "an endless document",
    )
    .await;
    assert!(
        said.contains(&document)
            && said.contains(&format!(
                "longer than {} bytes",
                toolsmith_gateway::DEFAULT_MAX_DOCUMENT_BYTES
            ))
            && said.contains("`max_document_bytes`"),
        "{said}"
    );
    // A file, past the cap the configuration sets.
    let path = std::env::temp_dir().join(format!("toolsmith-long-{}.json", std::process::id()));
    let long = format!(r#"{{"openapi": "3.1.0", "x": "{}"}}"#, "a".repeat(2 << 20));
    std::fs::write(&path, long).unwrap();
    let toml = format!(
        "[servers.long]\nopenapi = {:?}\nbase_url = \"http://127.0.0.1:1\"\nmax_document_bytes = 1048576\n",
        path.display().to_string()
    );
    let upstream = Config::from_toml(&toml).unwrap().upstreams().remove(0);
    let said = refused(upstream, "a long file").await;
    std::fs::remove_file(&path).unwrap();
    assert!(said.contains("longer than 1048576 bytes"), "{said}");
}

/// An API whose operations need an API key in a header and one in the query, or HTTP basic:
/// `/echo` answers 400 quoting the request it got, `/fine` 200 with the same.
fn echoing_api() -> String {
    let echo = |id: &str, security: Value| {
        json!({"get": {"operationId": id, "security": security,
            "responses": {"200": {"description": "the request, quoted"}}}})
    };
    json!({
        "openapi": "3.1.0",
        "info": {"title": "echo", "version": "1"},
        "paths": {
            "/echo": echo("echo", json!([{"hkey": [], "qkey": []}])),
            "/fine": echo("fine", json!([{"hkey": [], "qkey": []}])),
            "/basic": echo("basic", json!([{"login": []}]))
        },
        "components": {"securitySchemes": {
            "hkey": {"type": "apiKey", "in": "header", "name": "X-Key"},
            "qkey": {"type": "apiKey", "in": "query", "name": "key"},
            "login": {"type": "http", "scheme": "basic"}
        }}
    })
    .to_string()
}

#[tokio::test]
async fn an_api_quoting_the_request_shows_the_model_no_credential() {
    let document = echoing_api().into_bytes();
    let (base, _) = serve(move |head| {
        if head.starts_with("GET /openapi.json") {
            return Answer::Full(200, "application/json", document.clone());
        }
        // The request quoted as it came (its query percent-encoded), and decoded.
        let decoded = head
            .replace("%2F", "/")
            .replace('+', " ")
            .replace("%2B", "+");
        let quoted = format!("you sent: {head}\ndecoded: {decoded}").into_bytes();
        let status = if head.starts_with("GET /fine") {
            200
        } else {
            400
        };
        Answer::Full(status, "text/plain", quoted)
    })
    .await;
    let api = OpenApi::new(format!("{base}/openapi.json"))
        .credential("hkey", "header-SECRET-1")
        .credential("qkey", "query/SECRET 2+")
        .credential("login", "ann:basic-SECRET-3");
    let mounted = connect(Upstream::openapi("echo", api)).await.unwrap();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap();
    let basic_header = base64::engine::general_purpose::STANDARD.encode("ann:basic-SECRET-3");
    let failed = client.call("echo_echo", json!({})).await.unwrap_err();
    let fine = client.call("echo_fine", json!({})).await.unwrap();
    let basic = client.call("echo_basic", json!({})).await.unwrap_err();
    for said in [failed.message(), fine.text(), basic.message()] {
        // The API did get the request: what it quotes is there, the credentials are not.
        assert!(
            said.contains("you sent: GET /") && said.contains("[redacted]"),
            "{said}"
        );
        for secret in ["SECRET", &basic_header] {
            assert!(!said.contains(secret), "{secret} in {said}");
        }
    }
    assert!(failed.message().contains("HTTP 400"), "{failed:?}");
    assert!(
        basic.message().contains("authorization: Basic [redacted]"),
        "{basic:?}"
    );
}

#[tokio::test]
async fn credentials_go_to_a_server_at_another_origin_only_when_the_configuration_allows() {
    let (api, heard) = serve(|_| Answer::Full(200, "text/plain", b"hello".to_vec())).await;
    let document = json!({
        "openapi": "3.1.0",
        "info": {"title": "elsewhere", "version": "1"},
        "servers": [{"url": api}],
        "paths": {"/hello": {"get": {"operationId": "hello", "security": [{"hkey": []}],
            "responses": {"200": {"description": "hello"}}}}},
        "components": {"securitySchemes": {
            "hkey": {"type": "apiKey", "in": "header", "name": "X-Key"}
        }}
    });
    let document = format!(
        "{}/openapi.json",
        serve_document(document.to_string()).await
    );
    let entry = |allow: &str| {
        let toml = format!(
            "[servers.far]\nopenapi = {document:?}\ncredentials = {{ hkey = \"far-SECRET\" }}\n{allow}"
        );
        Config::from_toml(&toml).unwrap().upstreams().remove(0)
    };
    let said = refused(entry(""), "an API elsewhere").await;
    assert!(
        said.contains(&api)
            && said.contains("another origin")
            && said.contains("`allow_cross_origin_servers = true`"),
        "{said}"
    );
    assert!(heard.lock().unwrap().is_empty(), "the API was called");
    // Without credentials there is nothing to protect: mounted as the document says.
    let bare = Upstream::openapi("bare", OpenApi::new(&document));
    assert!(connect(bare).await.is_ok());

    let allowed = connect(entry("allow_cross_origin_servers = true\n"))
        .await
        .unwrap();
    let client = Client::connect(Server::with_registry(allowed.registry().unwrap()))
        .await
        .unwrap();
    let hello = client.call("far_hello", json!({})).await.unwrap();
    assert_eq!(hello.text(), "hello");
    let heard = heard.lock().unwrap();
    assert!(heard[0].contains("far-SECRET"), "{heard:?}");
}

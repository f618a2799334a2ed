//! Authorization over Streamable HTTP (feature `auth`), on real sockets: the Protected
//! Resource Metadata, 401 for every kind of bad token (each with its `WWW-Authenticate`), 403
//! for a call the token's scopes do not cover (the tool does not run), `tools/list` filtered
//! per caller, the caller reaching the tool, and keys fetched from a JWKS URL at most once
//! per interval. Keys and tokens are made here.

use std::time::Duration;

use serde_json::{Value, json};
use toolsmith_tests::example_binary;
use toolsmith_tests::guarded::{Guarded, ISSUER, KeyFile, VERSION};
use toolsmith_tests::http::{HttpServer, request};
use toolsmith_tests::jwks::JwksServer;
use toolsmith_tests::keys::{self, Key, claims};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
async fn notes_exit(args: &[&str]) -> (Option<i32>, String) {
    let args = [&["serve", "--http", "127.0.0.1:0"][..], args].concat();
    toolsmith_tests::exit_of(&notes(), &args).await
}

/// A directory removed when dropped.
fn list() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

fn names(response: &toolsmith_tests::http::Response) -> Vec<String> {
    let messages = response.messages();
    let tools = messages.last().expect("a message")["result"]["tools"]
        .as_array()
        .expect("a tool list")
        .clone();
    let mut names: Vec<String> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

/// Asserts a 403 whose challenge asks for `scope`, and returns the challenge.
fn forbidden(response: &toolsmith_tests::http::Response, scope: &str) -> String {
    assert_eq!(response.status, 403, "{}", response.body);
    let challenge = response
        .header("www-authenticate")
        .expect("a challenge")
        .to_owned();
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(
        challenge.contains(&format!("scope=\"{scope}\"")),
        "{challenge}"
    );
    challenge
}

fn notes() -> String {
    example_binary("notes").to_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_protected_resource_metadata_is_served_without_a_token() {
    let guarded = Guarded::start(&notes(), &[]).await;
    let addr = &guarded.server.addr;
    for path in [
        "/.well-known/oauth-protected-resource".to_owned(),
        format!(
            "/.well-known/oauth-protected-resource{}",
            guarded.server.path
        ),
    ] {
        let response = request(addr, "GET", &path, &[], "").await;
        assert_eq!(response.status, 200, "{path}: {}", response.body);
        assert!(
            response
                .header("content-type")
                .unwrap()
                .starts_with("application/json")
        );
        let metadata: Value = serde_json::from_str(&response.body).unwrap();
        assert_eq!(metadata["resource"], guarded.resource.as_str());
        assert_eq!(metadata["authorization_servers"], json!([ISSUER]));
        assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
        assert_eq!(
            metadata["scopes_supported"],
            json!(["tools:read", "tools:write", "tools:destructive"])
        );
    }
    // Health stays open too; the endpoint does not.
    assert_eq!(request(addr, "GET", "/healthz", &[], "").await.status, 200);
}

#[tokio::test]
async fn every_bad_token_gets_401_with_its_challenge() {
    let guarded = Guarded::start(&notes(), &[]).await;
    let resource = guarded.resource.as_str();
    let metadata = guarded.metadata_url();
    let now = keys::now();
    let good = claims(ISSUER, resource, "alice", "tools:read");
    let with = |key: &str, value: Value| {
        let mut claims = good.clone();
        claims[key] = value;
        claims
    };
    let stranger = Key::rsa("stranger");
    let impostor = Key::ec("ec-1"); // a known kid, another key
    let mut no_exp = good.clone();
    no_exp.as_object_mut().unwrap().remove("exp");
    let cases: Vec<(&str, String, &str)> = vec![
        (
            // RFC 7519: a StringOrURI. Read as no subject, `1` and `2` were one caller.
            "a subject that is not a string",
            guarded.keys.rsa.sign(&with("sub", json!(1))),
            "subject (sub) is not a string",
        ),
        (
            "wrong audience",
            guarded
                .keys
                .rsa
                .sign(&with("aud", json!("https://other.example/mcp"))),
            "not meant for this server",
        ),
        (
            // Resource indicators compare exactly (RFC 8707): a trailing slash is another
            // resource.
            "audience with a trailing slash",
            guarded
                .keys
                .rsa
                .sign(&with("aud", json!(format!("{resource}/")))),
            "not meant for this server",
        ),
        (
            "wrong issuer",
            guarded
                .keys
                .rsa
                .sign(&with("iss", json!("https://evil.example"))),
            "issued",
        ),
        (
            "expired",
            guarded.keys.ec.sign(&with("exp", json!(now - 600))),
            "expired",
        ),
        (
            "not yet valid",
            guarded.keys.rsa.sign(&with("nbf", json!(now + 600))),
            "not valid yet",
        ),
        (
            "bad signature",
            keys::tampered(&guarded.keys.rsa.sign(&good)),
            "signature",
        ),
        ("alg none", keys::unsigned(&good), "algorithm"),
        (
            "HS256 with the public key's text",
            keys::hs256(&good, keys::jwks(&[&guarded.keys.rsa]).as_bytes()),
            "algorithm",
        ),
        ("unknown kid", stranger.sign(&good), "does not know"),
        ("known kid, other key", impostor.sign(&good), "signature"),
        ("no exp", guarded.keys.rsa.sign(&no_exp), "required claim"),
        ("not a JWT", "not-a-token".to_owned(), "not a signed JWT"),
    ];
    for (what, token, reason) in &cases {
        let response = guarded.post_as(Some(token), &list()).await;
        assert_eq!(response.status, 401, "{what}: {}", response.body);
        let challenge = response
            .header("www-authenticate")
            .unwrap_or_else(|| panic!("{what}: no challenge"));
        assert!(challenge.starts_with("Bearer "), "{what}: {challenge}");
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{what}: {challenge}"
        );
        assert!(
            challenge.contains(&format!("resource_metadata=\"{metadata}\"")),
            "{what}: {challenge}"
        );
        assert!(
            challenge.contains("scope=\"tools:read\""),
            "{what}: {challenge}"
        );
        assert!(
            challenge.contains(reason),
            "{what}: {challenge} should say {reason}"
        );
        assert_eq!(response.messages()[0]["error"]["code"], -32001, "{what}");
    }
    // No token at all: the challenge names no error.
    let missing = guarded.post_as(None, &list()).await;
    assert_eq!(missing.status, 401);
    assert_eq!(
        missing.header("www-authenticate"),
        Some(format!("Bearer resource_metadata=\"{metadata}\", scope=\"tools:read\"").as_str())
    );
    // A token in the query is not read.
    let token = guarded.token("alice", "tools:read");
    let path = format!("{}?access_token={token}", guarded.server.path);
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        VERSION,
    ];
    let query = request(
        &guarded.server.addr,
        "POST",
        &path,
        &headers,
        &list().to_string(),
    )
    .await;
    assert_eq!(query.status, 401);
    assert!(!query.header("www-authenticate").unwrap().contains("error="));
    // Another scheme is no bearer token; neither is a GET without one.
    let basic = guarded
        .server
        .post(
            &list(),
            &[VERSION, ("Authorization", "Basic YWxpY2U6c2VjcmV0")],
        )
        .await;
    assert_eq!(basic.status, 401);
    let get = request(&guarded.server.addr, "GET", &guarded.server.path, &[], "").await;
    assert_eq!(get.status, 401);
    // The good ones pass: RSA and EC, each scope level.
    for (token, what) in [
        (guarded.token("alice", "tools:read"), "RS256 read"),
        (
            guarded
                .keys
                .ec
                .sign(&claims(ISSUER, resource, "bob", "tools:write")),
            "ES256 write",
        ),
        (
            guarded.keys.rsa.sign_as(
                &claims(ISSUER, resource, "carol", "tools:destructive"),
                None,
            ),
            "no kid",
        ),
    ] {
        let response = guarded.post_as(Some(&token), &list()).await;
        assert_eq!(response.status, 200, "{what}: {}", response.body);
        assert_eq!(response.header("www-authenticate"), None, "{what}");
    }
}

#[tokio::test]
async fn with_a_token_type_only_access_tokens_pass() {
    let typed = Guarded::start(&notes(), &["--auth-token-type", "at+jwt"]).await;
    let untyped = Guarded::start(&notes(), &[]).await;
    let token = |guarded: &Guarded, typ: Option<&str>| {
        let claims = claims(ISSUER, &guarded.resource, "alice", "tools:read");
        guarded.keys.rsa.sign_typed(&claims, typ)
    };
    for typ in ["JWT", "jwt"] {
        let refused = typed
            .post_as(Some(&token(&typed, Some(typ))), &list())
            .await;
        assert_eq!(refused.status, 401, "typ {typ}: {}", refused.body);
        let challenge = refused.header("www-authenticate").unwrap();
        assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
        assert!(
            challenge.contains(
                "error_description=\"the token's typ is not at+jwt: only access tokens are accepted, not ID tokens or other JWTs\""
            ),
            "{challenge}"
        );
    }
    let no_typ = typed.post_as(Some(&token(&typed, None)), &list()).await;
    assert_eq!(no_typ.status, 401, "no typ");
    // RFC 9068's type, with or without `application/`, in any case.
    for typ in [
        "at+jwt",
        "application/at+jwt",
        "AT+JWT",
        "Application/At+Jwt",
    ] {
        let passed = typed
            .post_as(Some(&token(&typed, Some(typ))), &list())
            .await;
        assert_eq!(passed.status, 200, "typ {typ}: {}", passed.body);
    }
    // Off by default: a token of any type passes.
    for typ in [Some("JWT"), Some("at+jwt"), None] {
        let passed = untyped.post_as(Some(&token(&untyped, typ)), &list()).await;
        assert_eq!(passed.status, 200, "typ {typ:?}: {}", passed.body);
    }
    // A type that is no media type name stops startup, saying what to give.
    let keys = KeyFile::new();
    let args = ["--auth-issuer", ISSUER, "--auth-jwks", keys.path.as_str()];
    let (code, stderr) = notes_exit(&[&args[..], &["--auth-token-type", "at jwt"]].concat()).await;
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("the token type \"at jwt\" is not a media type name"),
        "{stderr}"
    );
    assert!(stderr.contains("e.g. at+jwt"), "{stderr}");
}

#[tokio::test]
async fn a_read_token_cannot_delete_and_lists_only_reading_tools() {
    let guarded = Guarded::start(&notes(), &[]).await;
    let read = guarded.token("reader", "tools:read");
    let write = guarded
        .keys
        .ec
        .sign(&claims(ISSUER, &guarded.resource, "writer", "tools:write"));
    let admin = guarded.token("admin", "tools:destructive");

    let refused = guarded
        .post_as(Some(&read), &call(7, "delete_note", json!({"note_id": 1})))
        .await;
    let challenge = forbidden(&refused, "tools:destructive");
    assert!(challenge.contains(&format!("resource_metadata=\"{}\"", guarded.metadata_url())));
    let body = &refused.messages()[0];
    assert_eq!(body["id"], 7);
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["error"]["code"], -32003);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("tools:destructive")
    );
    // The write level does not cover destructive tools either.
    let refused = guarded
        .post_as(Some(&write), &call(8, "delete_note", json!({"note_id": 1})))
        .await;
    assert_eq!(refused.status, 403);

    // The note is still there.
    let got = guarded
        .post_as(Some(&admin), &call(9, "get_note", json!({"note_id": 1})))
        .await;
    assert_eq!(got.status, 200);
    assert_eq!(got.messages()[0]["result"]["structuredContent"]["id"], 1);
    assert_eq!(got.messages()[0]["result"]["isError"], json!(false));

    // A write token creates; a read token may not.
    let create = call(10, "create_note", json!({"title": "t", "body": "b"}));
    assert_eq!(guarded.post_as(Some(&read), &create).await.status, 403);
    let created = guarded.post_as(Some(&write), &create).await;
    assert_eq!(created.status, 200, "{}", created.body);
    assert_eq!(created.messages()[0]["result"]["isError"], json!(false));

    // Lists: each caller sees what it may call.
    let read_list = names(&guarded.post_as(Some(&read), &list()).await);
    assert!(
        read_list.contains(&"search_notes".to_owned())
            && read_list.contains(&"get_note".to_owned())
    );
    assert!(
        !read_list
            .iter()
            .any(|n| n == "create_note" || n == "delete_note"),
        "{read_list:?}"
    );
    let write_list = names(&guarded.post_as(Some(&write), &list()).await);
    assert!(
        write_list.contains(&"create_note".to_owned())
            && !write_list.contains(&"delete_note".to_owned())
    );
    let admin_list = names(&guarded.post_as(Some(&admin), &list()).await);
    // Besides the read-only tools: create_note, import_notes and import_url (write),
    // delete_note.
    assert_eq!(admin_list.len(), read_list.len() + 4, "{admin_list:?}");
    // Every tool a read token lists is read-only.
    let schema = std::process::Command::new(notes())
        .args(["tools", "--json"])
        .output()
        .unwrap();
    let rows: Vec<Value> = serde_json::from_slice(&schema.stdout).unwrap();
    let read_only: Vec<String> = rows
        .iter()
        .filter(|r| r["readOnly"] == true)
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    let mut read_only = read_only;
    read_only.sort();
    assert_eq!(read_list, read_only);

    // The destructive token may call delete_note: the scope lets it through, and the user's
    // confirmation is asked next (over stateless HTTP at 2025-11-25 it cannot be, so the
    // call is refused saying how to ask, not for its scope).
    let asked = guarded
        .post_as(
            Some(&admin),
            &call(11, "delete_note", json!({"note_id": 1})),
        )
        .await;
    assert_eq!(asked.status, 200);
    let result = &asked.messages()[0]["result"];
    assert_eq!(result["isError"], json!(true), "{result}");
    assert_eq!(
        result["_meta"]["dev.toolsmith/error"], "refused",
        "{result}"
    );
    assert!(
        result["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("confirmation") && t.contains("2026-07-28")),
        "{result}"
    );
}

#[tokio::test]
async fn the_caller_reaches_the_tool_and_named_scopes_are_all_needed() {
    let guarded = Guarded::start(FIXTURE, &[]).await;
    let mut claims = claims(
        ISSUER,
        &guarded.resource,
        "alice",
        "tools:read billing:admin",
    );
    claims["email"] = json!("alice@example.com");
    let token = guarded.keys.rsa.sign(&claims);
    let me = guarded
        .post_as(Some(&token), &call(1, "whoami", json!({})))
        .await;
    assert_eq!(me.status, 200, "{}", me.body);
    let who = &me.messages()[0]["result"]["structuredContent"]["result"];
    assert_eq!(who["subject"], "alice");
    assert_eq!(who["scopes"], json!(["tools:read", "billing:admin"]));
    assert_eq!(who["email"], "alice@example.com");
    assert_eq!(who["anonymous"], false);

    // `charge` names its scope: the hint levels do not grant it.
    let admin = guarded.token("admin", "tools:destructive");
    let refused = guarded
        .post_as(Some(&admin), &call(2, "charge", json!({"cents": 5})))
        .await;
    forbidden(&refused, "billing:admin");
    let charged = guarded
        .post_as(Some(&token), &call(3, "charge", json!({"cents": 5})))
        .await;
    assert_eq!(charged.status, 200);
    assert_eq!(
        charged.messages()[0]["result"]["content"][0]["text"],
        "charged 5 cents"
    );
    // The metadata lists the named scope.
    let metadata = request(
        &guarded.server.addr,
        "GET",
        "/.well-known/oauth-protected-resource",
        &[],
        "",
    )
    .await;
    let metadata: Value = serde_json::from_str(&metadata.body).unwrap();
    assert!(
        metadata["scopes_supported"]
            .as_array()
            .unwrap()
            .contains(&json!("billing:admin"))
    );
}

#[tokio::test]
async fn scope_names_and_audiences_come_from_flags_and_environment() {
    let keys = KeyFile::new();
    let server = HttpServer::start_with(
        &notes(),
        &["--scope-read", "notes.read", "--auth-audience", "notes-api"],
        &[
            ("TOOLSMITH_AUTH_ISSUER", ISSUER),
            ("TOOLSMITH_AUTH_JWKS", keys.path.as_str()),
            ("TOOLSMITH_SCOPE_DESTRUCTIVE", "notes.admin"),
        ],
    )
    .await;
    let token = keys
        .rsa
        .sign(&claims(ISSUER, "notes-api", "alice", "notes.read"));
    let bearer = format!("Bearer {token}");
    let listed = server
        .post(&list(), &[VERSION, ("Authorization", &bearer)])
        .await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert!(names(&listed).contains(&"get_note".to_owned()));
    let refused = server
        .post(
            &call(2, "delete_note", json!({"note_id": 1})),
            &[VERSION, ("Authorization", &bearer)],
        )
        .await;
    forbidden(&refused, "notes.admin");
    let missing = server.post(&list(), &[VERSION]).await;
    assert!(
        missing
            .header("www-authenticate")
            .unwrap()
            .contains("scope=\"notes.read\"")
    );
}

#[tokio::test]
async fn keys_from_a_url_are_fetched_again_on_an_unknown_kid_at_most_once_a_minute() {
    let (first, rotated) = (Key::ec("first"), Key::ec("rotated"));
    let jwks_server = JwksServer::start(&[&first]).await;
    let server = HttpServer::start(
        &notes(),
        &["--auth-issuer", ISSUER, "--auth-jwks", &jwks_server.url],
    )
    .await;
    let resource = format!("http://{}{}", server.addr, server.path);
    assert_eq!(jwks_server.hits(), 1, "fetched at startup");
    let post = |token: String| {
        let server = &server;
        async move {
            let bearer = format!("Bearer {token}");
            server
                .post(&list(), &[VERSION, ("Authorization", &bearer)])
                .await
                .status
        }
    };
    assert_eq!(
        post(first.sign(&claims(ISSUER, &resource, "a", "tools:read"))).await,
        200
    );
    // The issuer rotates its keys; within the minute, the set is not fetched again.
    jwks_server.publish(&[&first, &rotated]);
    for _ in 0..5 {
        assert_eq!(
            post(rotated.sign(&claims(ISSUER, &resource, "a", "tools:read"))).await,
            401
        );
    }
    assert_eq!(jwks_server.hits(), 1, "no refetch within the minute");
}

#[tokio::test]
async fn a_rotated_key_is_fetched_once_the_interval_is_over() {
    let (first, rotated) = (Key::ec("first"), Key::rsa("rotated"));
    let jwks_server = JwksServer::start(&[&first]).await;
    let port = toolsmith_tests::free_port();
    let addr = format!("127.0.0.1:{port}");
    let resource = format!("http://{addr}/mcp");
    let auth = toolsmith::__private::refetch_interval(
        toolsmith::auth::Auth::new(ISSUER, jwks_server.url.clone()),
        Duration::from_millis(300),
    );
    tokio::spawn(
        toolsmith_tests::server_of(module_path!())
            .auth(auth)
            .sessions(false)
            .serve_http(addr.clone()),
    );
    let bearer = |token: String| format!("Bearer {token}");
    let status = |token: String| {
        let (addr, bearer) = (addr.clone(), bearer(token));
        async move {
            let headers = [
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
                VERSION,
                ("Authorization", bearer.as_str()),
            ];
            for _ in 0..100 {
                if tokio::net::TcpStream::connect(&addr).await.is_ok() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            request(&addr, "POST", "/mcp", &headers, &list().to_string())
                .await
                .status
        }
    };
    assert_eq!(
        status(first.sign(&claims(ISSUER, &resource, "a", "tools:read"))).await,
        200
    );
    jwks_server.publish(&[&first, &rotated]);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let before = jwks_server.hits();
    assert_eq!(
        status(rotated.sign(&claims(ISSUER, &resource, "a", "tools:read"))).await,
        200
    );
    assert_eq!(jwks_server.hits(), before + 1, "one fetch for the new kid");
    // Unknown kids in a burst cause at most one more fetch.
    let stranger = Key::ec("stranger");
    tokio::time::sleep(Duration::from_millis(400)).await;
    let before = jwks_server.hits();
    for _ in 0..5 {
        assert_eq!(
            status(stranger.sign(&claims(ISSUER, &resource, "a", "tools:read"))).await,
            401
        );
    }
    assert_eq!(jwks_server.hits(), before + 1);
}

#[tokio::test]
async fn a_plain_http_jwks_url_off_loopback_stops_startup() {
    let jwks_url = "http://login.example.com/jwks.json";
    let (code, stderr) = notes_exit(&["--auth-issuer", ISSUER, "--auth-jwks", jwks_url]).await;
    assert_eq!(code, Some(1));
    assert!(stderr.contains("invalid JWKS: "), "{stderr}");
    assert!(stderr.contains("plain http: use https"), "{stderr}");
    assert!(!stderr.contains("transport I/O"), "{stderr}");
    let (code, _) = notes_exit(&["--auth-issuer", ISSUER]).await;
    assert_eq!(code, Some(2), "--auth-issuer needs --auth-jwks");
}

/// Who is calling, as the tool sees it.
#[toolsmith::tool(read_only, closed_world)]
fn caller_here(caller: toolsmith::context::Caller) -> String {
    format!(
        "{}:{}:{}",
        caller.subject().unwrap_or("-"),
        caller.scopes().join(","),
        caller.is_anonymous()
    )
}

#[tokio::test]
async fn over_stdio_the_caller_is_the_anonymous_local_user() {
    let client = toolsmith_tests::connect(toolsmith_tests::server_of(module_path!())).await;
    let result = toolsmith_tests::call(&client, "caller_here", json!({}))
        .await
        .expect("an answer");
    assert_eq!(toolsmith_tests::text(&result), "-::true");
    // Still an ordinary function.
    assert_eq!(
        caller_here(toolsmith::context::Caller::new("alice", ["tools:read"])),
        "alice:tools:read:false"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_scope_name_with_a_space_stops_startup() {
    let (code, stderr) = notes_exit(&[
        "--auth-issuer",
        ISSUER,
        "--auth-jwks",
        "/nonexistent/jwks.json",
        "--scope-write",
        "tools write",
    ])
    .await;
    assert_eq!(code, Some(1));
    // A configuration error, named as one (it once read "transport I/O failed").
    assert!(
        stderr.contains(
            r#"invalid scope names: the scope name "tools write" is not one OAuth scope token"#
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("transport I/O"), "{stderr}");
}

#[tokio::test]
async fn a_missing_jwks_file_stops_startup() {
    let (code, stderr) = notes_exit(&[
        "--auth-issuer",
        ISSUER,
        "--auth-jwks",
        "/nonexistent/jwks.json",
    ])
    .await;
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("invalid JWKS: the JWKS file /nonexistent/jwks.json cannot be used"),
        "{stderr}"
    );
    assert!(!stderr.contains("transport I/O"), "{stderr}");
}

#[tokio::test]
async fn with_authorization_the_short_way_answers_as_rmcp_does() {
    let keys = KeyFile::new();
    let args = [
        "--auth-issuer",
        ISSUER,
        "--auth-jwks",
        keys.path.as_str(),
        "--auth-audience",
        "fixture",
    ];
    let short = HttpServer::start(FIXTURE, &args).await;
    let rmcp =
        HttpServer::start_with(FIXTURE, &args, &[("TOOLSMITH_TEST_NO_FAST_PATH", "1")]).await;
    for scope in [
        "tools:read",
        "tools:write billing:admin",
        "tools:destructive",
    ] {
        let token = keys.ec.sign(&claims(ISSUER, "fixture", "alice", scope));
        let bearer = format!("Bearer {token}");
        for request in [
            list(),
            call(2, "whoami", json!({})),
            call(3, "charge", json!({"cents": 1})),
            call(4, "count", json!({})),
            call(5, "add", json!({"a": 1, "b": 2})),
        ] {
            let headers = [VERSION, ("Authorization", bearer.as_str())];
            let (a, b) = (
                short.post(&request, &headers).await,
                rmcp.post(&request, &headers).await,
            );
            assert_eq!(a.status, b.status, "{scope}: {request}");
            let challenge = |r: &toolsmith_tests::http::Response, addr: &str| {
                r.header("www-authenticate")
                    .map(|c| c.replace(addr, "ADDR"))
            };
            assert_eq!(challenge(&a, &short.addr), challenge(&b, &rmcp.addr));
            assert_eq!(a.messages(), b.messages(), "{scope}: {request}");
        }
    }
}

/// At 2026-07-28 a confirmation's request state is bound to the caller: another subject's
/// retry with the same state and arguments is refused, the holder's own is confirmed.
#[tokio::test]
async fn a_confirmation_state_belongs_to_its_caller() {
    let guarded = Guarded::start(&notes(), &[]).await;
    let alice = guarded.token("alice", "tools:destructive");
    let bob = guarded.token("bob", "tools:destructive");
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let delete = |id: u64, retry: Option<&str>| {
        let mut params = json!({"name": "delete_note", "arguments": {"note_id": 2}, "_meta": meta});
        if let Some(state) = retry {
            params["requestState"] = state.into();
            params["inputResponses"] = json!({"confirm": {"action": "accept"}});
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    let post = |token: String, body: Value| {
        let server = &guarded.server;
        async move {
            let bearer = format!("Bearer {token}");
            let headers = [
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "delete_note"),
                ("Authorization", bearer.as_str()),
            ];
            let response = server.post(&body, &headers).await;
            assert_eq!(response.status, 200, "{}", response.body);
            response.messages().pop().unwrap()
        }
    };
    let first = post(alice.clone(), delete(1, None)).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let stolen = post(bob, delete(2, Some(&state))).await;
    assert_eq!(stolen["result"]["isError"], true, "{stolen}");
    assert!(
        stolen["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("invalid")),
        "{stolen}"
    );
    let own = post(alice, delete(3, Some(&state))).await;
    assert_eq!(
        own["result"]["structuredContent"],
        json!({"note_id": 2, "deleted": true}),
        "{own}"
    );
}

#[tokio::test]
async fn a_completion_refused_for_its_scope_gets_403_as_a_read_does() {
    let guarded = Guarded::start(&notes(), &[]).await;
    let profile = guarded.token("alice", "profile");
    let prompt = json!({"jsonrpc": "2.0", "id": 3, "method": "completion/complete", "params": {
        "ref": {"type": "ref/prompt", "name": "summarize_notes"},
        "argument": {"name": "tag", "value": ""}}});
    let template = json!({"jsonrpc": "2.0", "id": 4, "method": "completion/complete", "params": {
        "ref": {"type": "ref/resource", "uri": "notes://{note_id}"},
        "argument": {"name": "note_id", "value": ""}}});
    for body in [&prompt, &template] {
        let refused = guarded.post_as(Some(&profile), body).await;
        forbidden(&refused, "tools:read");
        assert!(refused.body.contains("-32003"), "{}", refused.body);
    }
    let reader = guarded.token("alice", "tools:read");
    let answered = guarded.post_as(Some(&reader), &prompt).await;
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert!(answered.body.contains("completion"), "{}", answered.body);
}

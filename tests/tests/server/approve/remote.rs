//! Approvers that decide elsewhere: a webhook (an approval service over HTTP, played by the
//! test approval service or by a hand-made one that misbehaves) and the approvals page.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;
use toolsmith::approve::Decision;
use toolsmith::server::Confirm;
use toolsmith::testing::{Answer, Client};

use super::{TOOLS, client, refusal};

/// An approval service on loopback: it checks each request's signature, keeps the request,
/// and answers with what `answer` makes of it (its body, and whether to sign it): the
/// service's URL and the requests it got.
async fn service(
    secret: [u8; 32],
    answer: impl Fn(&serde_json::Value) -> (serde_json::Value, bool) + Send + Sync + 'static,
) -> (String, Arc<std::sync::Mutex<Vec<serde_json::Value>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/approve", listener.local_addr().unwrap());
    let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = heard.clone();
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut read = Vec::new();
            let mut buf = [0u8; 8192];
            let (head, body) = loop {
                let n = stream.read(&mut buf).await.unwrap();
                read.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&read).into_owned();
                if let Some(end) = text.find("\r\n\r\n") {
                    let length: usize = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse().unwrap())
                        })
                        .unwrap_or(0);
                    if read.len() >= end + 4 + length {
                        break (
                            text[..end].to_owned(),
                            read[end + 4..end + 4 + length].to_vec(),
                        );
                    }
                }
            };
            let header = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("x-toolsmith-signature:")
                        .map(|v| v.trim().to_owned())
                })
                .expect("the request is signed");
            let (t, v1) = header.split_once(',').unwrap();
            let t: u64 = t.strip_prefix("t=").unwrap().parse().unwrap();
            assert_eq!(
                v1.strip_prefix("v1=").unwrap(),
                toolsmith::approve::signature(&secret, t, &body),
                "the request's signature"
            );
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap();
            kept.lock().unwrap().push(request.clone());
            let (reply, sign) = answer(&request);
            let reply = reply.to_string();
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs();
            let key = if sign { secret } else { [0u8; 32] };
            let signed = toolsmith::approve::signature(&key, now, reply.as_bytes());
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Toolsmith-Signature: t={now},v1={signed}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
            stream.write_all(response.as_bytes()).await.unwrap();
        }
    });
    (url, heard)
}

#[tokio::test]
async fn a_webhook_decides_with_a_signed_answer_and_anything_else_denies() {
    use toolsmith::approve::Webhook;
    let secret = [9u8; 32];
    let (url, heard) = service(secret, |request| {
        let id = request["id"].clone();
        match request["arguments"]["draft"].as_str() {
            Some("tmp-1") => (json!({"id": id, "decision": "approve"}), true),
            Some("thesis") => (
                json!({"id": id, "decision": "deny", "reason": "the thesis stays"}),
                true,
            ),
            Some("forged") => (json!({"id": id, "decision": "approve"}), false),
            _ => (json!({"id": "another", "decision": "approve"}), true),
        }
    })
    .await;
    let server = toolsmith_tests::server_of(TOOLS).approver(Webhook::new(url, secret).unwrap());
    let (client, asked) = client(server, Answer::Accept).await;

    let ran = client
        .call("delete_draft", json!({"draft": "tmp-1"}))
        .await
        .unwrap();
    assert_eq!(ran.text(), "deleted tmp-1");
    let request = heard.lock().unwrap()[0].clone();
    assert_eq!(request["tool"], "delete_draft");
    assert_eq!(request["hints"]["destructive"], true);
    assert_eq!(request["tags"], json!(["drafts"]));
    assert_eq!(
        request["question"],
        "Allow \"delete_draft\" to run with draft = tmp-1?"
    );
    assert_eq!(request["caller"]["identity"], "anonymous");
    assert!(request["expires_at"].as_u64().unwrap() > 1_700_000_000);

    for (draft, said) in [
        ("thesis", "the thesis stays"),
        ("forged", "not signed with the shared secret"),
        ("other", "another approval"),
    ] {
        let err = client
            .call("delete_draft", json!({"draft": draft}))
            .await
            .unwrap_err();
        assert!(refusal(&err).contains(said), "{draft}: {err}");
    }
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "the webhook decided every call"
    );

    // A service that does not answer denies the call.
    let gone = Webhook::new("http://127.0.0.1:9/approve", secret).unwrap();
    let server = toolsmith_tests::server_of(TOOLS).approver(gone);
    let (unanswered, _) = self::client(server, Answer::Accept).await;
    let err = unanswered.call("empty_bin", json!({})).await.unwrap_err();
    assert!(refusal(&err).contains("did not answer"), "{err}");
}

#[tokio::test]
async fn an_operator_decides_on_the_approvals_page() {
    use toolsmith::approve::Page;
    use toolsmith_tests::http::{form_value, request};

    const TOKEN: &str = "operator-token-0123456789";
    let page = Page::new(TOKEN).unwrap();
    let addr = format!("127.0.0.1:{}", toolsmith_tests::free_port());
    tokio::spawn(page.clone().serve(addr.clone()));
    let server = toolsmith_tests::server_of(TOOLS).approver(page.clone());
    let (client, asked) = client(server, Answer::Accept).await;
    let client = Arc::new(client);
    let bearer = format!("Bearer {TOKEN}");
    let auth = [("Authorization", bearer.as_str())];

    // Without the token, nothing is shown; `?token=` keeps it in a strict cookie.
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(&addr).await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(request(&addr, "GET", "/", &[], "").await.status, 401);
    let login = request(&addr, "GET", &format!("/?token={TOKEN}"), &[], "").await;
    assert_eq!(login.status, 303);
    let cookie = login.header("set-cookie").unwrap().to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );

    for (draft, decision, said) in [
        ("<b>tmp</b>", "approve", None),
        ("thesis", "deny", Some("an operator denied it")),
    ] {
        let calling = client.clone();
        let call =
            tokio::spawn(
                async move { calling.call("delete_draft", json!({"draft": draft})).await },
            );
        let mut html = String::new();
        for _ in 0..200 {
            let cookie = cookie.split(';').next().unwrap().to_owned();
            html = request(&addr, "GET", "/", &[("Cookie", &cookie)], "")
                .await
                .body;
            if html.contains("delete_draft") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            html.contains("<b>delete_draft</b> (destructive, idempotent)"),
            "{html}"
        );
        assert!(
            !html.contains("<b>tmp</b>"),
            "the arguments are escaped: {html}"
        );
        let id = form_value(&html, "id");
        let csrf = form_value(&html, "csrf");
        let form = [
            ("Authorization", bearer.as_str()),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ];
        let forged = format!("id={id}&decision=approve&remember=0&csrf=not-from-the-page");
        assert_eq!(
            request(&addr, "POST", "/decide", &form, &forged)
                .await
                .status,
            403
        );
        let chosen = format!("id={id}&decision={decision}&remember=0&csrf={csrf}");
        assert_eq!(
            request(&addr, "POST", "/decide", &form, &chosen)
                .await
                .status,
            303
        );
        let outcome = call.await.unwrap();
        match said {
            None => assert_eq!(outcome.unwrap().text(), "deleted <b>tmp</b>"),
            Some(said) => assert!(refusal(&outcome.unwrap_err()).contains(said)),
        }
    }
    assert_eq!(page.waiting(), 0);
    assert!(
        request(&addr, "GET", "/", &auth, "")
            .await
            .body
            .contains("Nothing is waiting")
    );
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "the page decided every call"
    );

    // Undecided, a call is denied when the page's wait ends.
    let hurried = Page::new(TOKEN)
        .unwrap()
        .timeout(Duration::from_millis(100));
    let server = toolsmith_tests::server_of(TOOLS).approver(hurried);
    let (alone, _) = self::client(server, Answer::Accept).await;
    let err = alone.call("empty_bin", json!({})).await.unwrap_err();
    assert!(refusal(&err).contains("no one decided"), "{err}");
}

/// An unattended agent (a client without elicitation) calls a confirmed tool: the webhook
/// played by the test approval service approves it, denies it, or never answers (the
/// webhook's timeout denies it); the user is never asked, and the service heard each call.
#[tokio::test]
async fn an_unattended_agent_is_decided_by_a_webhook_that_approves_denies_or_is_silent() {
    use toolsmith::approve::Webhook;
    use toolsmith::testing::ApprovalService;
    let secret = [5u8; 32];
    let service = ApprovalService::start(&secret, |request| {
        match request["arguments"]["draft"].as_str() {
            Some("tmp-2") => Some(Decision::approve()),
            Some("silent") => None,
            _ => Some(Decision::deny("drafts are kept")),
        }
    })
    .await
    .unwrap();
    let hook = Webhook::new(service.url(), secret)
        .unwrap()
        .timeout(Duration::from_millis(500));
    let server = toolsmith_tests::server_of(TOOLS)
        .confirm(Confirm::Destructive)
        .approver_instead_of_client(hook);
    let agent = Client::connect_unattended(server).await.unwrap();

    let ran = agent
        .call("delete_draft", json!({"draft": "tmp-2"}))
        .await
        .unwrap();
    assert_eq!(ran.text(), "deleted tmp-2");
    let err = agent
        .call("delete_draft", json!({"draft": "thesis"}))
        .await
        .unwrap_err();
    assert!(refusal(&err).contains("drafts are kept"), "{err}");
    let err = agent
        .call("delete_draft", json!({"draft": "silent"}))
        .await
        .unwrap_err();
    assert!(refusal(&err).contains("did not answer"), "{err}");
    let heard: Vec<_> = service
        .heard()
        .iter()
        .map(|request| request["arguments"]["draft"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(heard, ["tmp-2", "thesis", "silent"]);

    // Without the webhook, the same agent is refused: nobody can ask its user.
    let alone = toolsmith_tests::server_of(TOOLS).confirm(Confirm::Destructive);
    let agent = Client::connect_unattended(alone).await.unwrap();
    let err = agent
        .call("delete_draft", json!({"draft": "tmp-2"}))
        .await
        .unwrap_err();
    assert!(refusal(&err).contains("cannot ask the user"), "{err}");
}

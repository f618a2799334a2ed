//! A JWKS served over loopback HTTP by the test: its keys can be changed, it can be made to
//! fail, and it can send a `Cache-Control` header; it counts its fetches.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::keys::{Key, jwks};

/// What the JWKS server answers.
struct Answer {
    /// The status; 200 sends `body`.
    status: u16,
    body: String,
    cache_control: Option<String>,
}

/// A JWKS on `127.0.0.1`, served until the test ends.
pub struct JwksServer {
    /// `http://127.0.0.1:PORT/jwks.json`.
    pub url: String,
    hits: Arc<AtomicUsize>,
    answer: Arc<Mutex<Answer>>,
}

impl JwksServer {
    /// Serves the JWKS of `keys`.
    pub async fn start(keys: &[&Key]) -> JwksServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
        let hits = Arc::new(AtomicUsize::new(0));
        let answer = Arc::new(Mutex::new(Answer {
            status: 200,
            body: jwks(keys),
            cache_control: None,
        }));
        let (counted, served) = (hits.clone(), answer.clone());
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let mut buffer = [0u8; 4096];
                let _ = stream.read(&mut buffer).await;
                counted.fetch_add(1, Ordering::SeqCst);
                let response = {
                    let answer = served.lock().unwrap();
                    let body = if answer.status == 200 {
                        &answer.body[..]
                    } else {
                        ""
                    };
                    let cache_control = answer
                        .cache_control
                        .as_ref()
                        .map(|value| format!("Cache-Control: {value}\r\n"))
                        .unwrap_or_default();
                    format!(
                        "HTTP/1.1 {} X\r\nContent-Type: application/json\r\n{cache_control}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        answer.status,
                        body.len()
                    )
                };
                let _ = stream.write_all(response.as_bytes()).await;
            }
        });
        JwksServer { url, hits, answer }
    }

    /// How many times the JWKS was fetched.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// Serves the JWKS of `keys` from now on.
    pub fn publish(&self, keys: &[&Key]) {
        self.answer.lock().unwrap().body = jwks(keys);
    }

    /// Answers with `status` from now on (200: the JWKS again).
    pub fn answer_with(&self, status: u16) {
        self.answer.lock().unwrap().status = status;
    }

    /// Sends `Cache-Control: value` from now on.
    pub fn cache_control(&self, value: &str) {
        self.answer.lock().unwrap().cache_control = Some(value.to_owned());
    }

    /// Waits until the JWKS was fetched `count` times in all, at most `within`; panics
    /// otherwise.
    pub async fn fetched(&self, count: usize, within: Duration) {
        let deadline = tokio::time::Instant::now() + within;
        while self.hits() < count {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the JWKS was fetched {} times in {within:?}, not {count}",
                self.hits()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

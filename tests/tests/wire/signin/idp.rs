//! The fake OpenID provider of the sign-in tests (`tests/fixtures/fake_idp.py`) as a child
//! process on 127.0.0.1.

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use toolsmith_tests::http::request;

use super::split_url;

const FAKE_IDP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/fake_idp.py");
/// The operator's client at the provider (the fake provider's defaults).
pub const IDP_CLIENT: &str = "toolsmith";
pub const IDP_SECRET: &str = "idp-secret";

/// The fake OpenID provider, killed when dropped.
pub struct FakeIdp {
    _child: tokio::process::Child,
    /// `http://127.0.0.1:PORT`: its issuer.
    pub url: String,
}

impl FakeIdp {
    /// Starts the provider; `user` signs in unless the authorize request names another.
    pub async fn start(user: &str) -> FakeIdp {
        let mut child = tokio::process::Command::new("python3")
            .args([FAKE_IDP, "--user", user])
            .args(["--client-id", IDP_CLIENT, "--client-secret", IDP_SECRET])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("python3 runs the fake provider");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the fake provider listens within 20 s")
            .unwrap()
            .expect("the fake provider's listening line");
        let url = line.trim_start_matches("listening on ").trim().to_owned();
        FakeIdp { _child: child, url }
    }

    /// From now on, `user` signs in.
    pub async fn switch_to(&self, user: &str) {
        let (addr, _) = split_url(&self.url, "");
        let response = request(&addr, "GET", &format!("/_user?name={user}"), &[], "").await;
        assert_eq!(response.status, 200, "{}", response.body);
    }

    /// From now on the provider forges its id_token as `what` says (`nonce`, `aud`, `iss`,
    /// `exp`, `userinfo_other`; empty: honest again).
    pub async fn tamper(&self, what: &str) {
        let (addr, _) = split_url(&self.url, "");
        let response = request(&addr, "GET", &format!("/_tamper?what={what}"), &[], "").await;
        assert_eq!(response.status, 200, "{}", response.body);
    }

    /// The requests the provider received (method, path, query).
    pub async fn log(&self) -> Vec<Value> {
        let (addr, _) = split_url(&self.url, "");
        let response = request(&addr, "GET", "/_log", &[], "").await;
        serde_json::from_str(&response.body).expect("the provider's log")
    }
}

//! A server behind authorization for tests: an HTTP server started with a JWKS file of
//! keys made here, and tokens signed for it.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::http::HttpServer;
use crate::keys::{Key, claims, jwks};

pub const ISSUER: &str = "https://issuer.test/realms/notes";
pub const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");

/// A server with authorization, its keys, and what tokens need.
pub struct Guarded {
    pub server: HttpServer,
    pub keys: KeyFile,
    /// The public URL: the audience of good tokens.
    pub resource: String,
}

impl Guarded {
    pub async fn start(program: &str, extra: &[&str]) -> Guarded {
        Guarded::start_after(program, &[], extra).await
    }

    /// [`start`](Self::start), with `before` ahead of `serve` (`toolsmith gateway --config
    /// FILE --`, whose listening line is logged at `info`).
    pub async fn start_after(program: &str, before: &[&str], extra: &[&str]) -> Guarded {
        let keys = KeyFile::new();
        let mut args = vec!["--auth-issuer", ISSUER, "--auth-jwks", keys.path.as_str()];
        args.extend_from_slice(extra);
        let env: &[(&str, &str)] = match before.is_empty() {
            true => &[],
            false => &[("TOOLSMITH_LOG", "info")],
        };
        let server = HttpServer::start_after(program, before, &args, env).await;
        let resource = format!("http://{}{}", server.addr, server.path);
        Guarded {
            server,
            keys,
            resource,
        }
    }

    pub fn token(&self, subject: &str, scope: &str) -> String {
        self.keys
            .rsa
            .sign(&claims(ISSUER, &self.resource, subject, scope))
    }

    /// A token of `subject` with `scope` and the claims of `extra` (an object) besides.
    pub fn token_with(&self, subject: &str, scope: &str, extra: Value) -> String {
        let mut claims = claims(ISSUER, &self.resource, subject, scope);
        if let (Some(claims), Value::Object(extra)) = (claims.as_object_mut(), extra) {
            claims.extend(extra);
        }
        self.keys.rsa.sign(&claims)
    }

    pub async fn post_as(&self, token: Option<&str>, body: &Value) -> crate::http::Response {
        let bearer = token.map(|t| format!("Bearer {t}"));
        let mut headers = vec![VERSION];
        if let Some(bearer) = &bearer {
            headers.push(("Authorization", bearer.as_str()));
        }
        self.server.post(body, &headers).await
    }

    pub fn metadata_url(&self) -> String {
        format!(
            "http://{}/.well-known/oauth-protected-resource{}",
            self.server.addr, self.server.path
        )
    }
}

/// An RSA and an EC key, published as a JWKS file in a directory removed when dropped.
pub struct KeyFile {
    pub rsa: Key,
    pub ec: Key,
    pub path: String,
    _dir: TempDir,
}

impl Default for KeyFile {
    fn default() -> Self {
        KeyFile::new()
    }
}

impl KeyFile {
    pub fn new() -> KeyFile {
        let (rsa, ec) = (Key::rsa("rsa-1"), Key::ec("ec-1"));
        let dir = TempDir::new();
        let path = dir.0.join("jwks.json");
        std::fs::write(&path, jwks(&[&rsa, &ec])).unwrap();
        KeyFile {
            rsa,
            ec,
            path: path.to_str().unwrap().to_owned(),
            _dir: dir,
        }
    }
}

/// Runs `notes serve --http 127.0.0.1:0 ARGS` to its end (a server that starts is killed
/// after 20 s): its exit code and stderr.
pub struct TempDir(pub std::path::PathBuf);

impl Default for TempDir {
    fn default() -> Self {
        TempDir::new()
    }
}

impl TempDir {
    pub fn new() -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolsmith-auth-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

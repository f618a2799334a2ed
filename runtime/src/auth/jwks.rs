//! The issuer's signing keys: read from a JWKS file or fetched from a URL, and kept. They
//! are read again in the background (see [`refresh`](super::refresh)), and when a token
//! names a key id not among them, at most once per interval.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::Jwk;
use tokio::sync::{Mutex, RwLock};

use crate::Error;

/// How long fetching the key set may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the keys are.
#[derive(Debug)]
enum Source {
    File(PathBuf),
    Url {
        url: String,
        client: reqwest::Client,
    },
    /// This process's own keys (the sign-in's authorization server).
    #[cfg(feature = "signin")]
    Local(super::LocalKeys),
}

/// The cached key set.
pub(super) struct KeySet {
    source: Source,
    keys: RwLock<Vec<Jwk>>,
    /// When the keys were last read; held while reading, so that concurrent misses wait for
    /// one read instead of each starting one.
    last: Mutex<Option<Instant>>,
    interval: Duration,
    /// Counts the reads that dropped a key: what was verified with an older count may have
    /// been verified with a key no longer trusted.
    generation: AtomicU64,
    /// The `Cache-Control: max-age` of the last response, in seconds (0: none).
    max_age: AtomicU64,
}

/// Keys as read, and how long their source says they may be kept.
struct Read {
    keys: Vec<Jwk>,
    max_age: Option<Duration>,
}

impl KeySet {
    /// Keys from `location`: a URL (`https`, or `http` to a loopback host) or a file path. A
    /// file must be readable now; a URL that cannot be fetched now is tried again on the
    /// first token.
    pub(super) async fn load(location: &str, interval: Duration) -> Result<KeySet, Error> {
        KeySet::from_source(source(location)?, location, interval).await
    }

    /// The keys `keys` gives (this process's own), read again every `interval`.
    #[cfg(feature = "signin")]
    pub(super) async fn local(keys: super::LocalKeys, interval: Duration) -> Result<KeySet, Error> {
        KeySet::from_source(Source::Local(keys), "the sign-in's own keys", interval).await
    }

    async fn from_source(
        source: Source,
        location: &str,
        interval: Duration,
    ) -> Result<KeySet, Error> {
        let set = KeySet {
            source,
            keys: RwLock::new(Vec::new()),
            last: Mutex::new(None),
            interval,
            generation: AtomicU64::new(0),
            max_age: AtomicU64::new(0),
        };
        let mut last = set.last.lock().await;
        match set.read().await {
            Ok(read) => {
                tracing::info!(keys = read.keys.len(), source = %location, "authorization keys loaded");
                set.store(read).await;
            }
            Err(why) if matches!(set.source, Source::File(_)) => {
                return Err(config(format!(
                    "the JWKS file {location} cannot be used: {why}"
                )));
            }
            Err(why) => {
                tracing::warn!(source = %location, "authorization keys not fetched yet: {why}");
            }
        }
        *last = Some(Instant::now());
        drop(last);
        Ok(set)
    }

    /// The keys that may have signed a token with key id `kid` (every key when it names
    /// none), reading the set again when `kid` is unknown and the last read is older than
    /// the interval.
    pub(super) async fn candidates(&self, kid: Option<&str>) -> Vec<Jwk> {
        let found = self.matching(kid).await;
        if !found.is_empty() {
            return found;
        }
        let mut last = self.last.lock().await;
        // Another request may have read the set while this one waited.
        let found = self.matching(kid).await;
        if !found.is_empty() {
            return found;
        }
        if last.is_some_and(|at| at.elapsed() < self.interval) {
            return found;
        }
        *last = Some(Instant::now());
        match self.read().await {
            Ok(read) => {
                tracing::info!(
                    keys = read.keys.len(),
                    "authorization keys read again for an unknown key id"
                );
                self.store(read).await;
            }
            Err(why) => tracing::warn!("authorization keys could not be read again: {why}"),
        }
        drop(last);
        self.matching(kid).await
    }

    /// Reads the key set again (the background refresh). When that fails, the keys read
    /// before are kept, and a warning says why.
    pub(super) async fn refresh(&self) {
        let mut last = self.last.lock().await;
        *last = Some(Instant::now());
        match self.read().await {
            Ok(read) => {
                tracing::debug!(keys = read.keys.len(), "authorization keys refreshed");
                self.store(read).await;
            }
            Err(why) => tracing::warn!(
                "authorization keys could not be refreshed, the keys read before are kept: {why}"
            ),
        }
    }

    /// How long until the next refresh: `every`, or the last response's `max-age` when
    /// shorter.
    pub(super) fn next_refresh(&self, every: Duration) -> Duration {
        match self.max_age.load(Ordering::Relaxed) {
            0 => every,
            secs => every.min(Duration::from_secs(secs)),
        }
    }

    /// Changes whenever a read drops a key: a token verified before may then have been
    /// signed by a key no longer trusted.
    pub(super) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Keeps `read`'s keys instead of the ones before.
    async fn store(&self, read: Read) {
        let mut keys = self.keys.write().await;
        let dropped = keys.iter().filter(|k| !read.keys.contains(k)).count();
        if dropped > 0 {
            tracing::info!(
                dropped,
                keys = read.keys.len(),
                "authorization keys dropped by the issuer are no longer trusted"
            );
            self.generation.fetch_add(1, Ordering::AcqRel);
        }
        *keys = read.keys;
        let max_age = read.max_age.map_or(0, |age| age.as_secs());
        self.max_age.store(max_age, Ordering::Relaxed);
    }

    async fn matching(&self, kid: Option<&str>) -> Vec<Jwk> {
        let keys = self.keys.read().await;
        keys.iter()
            .filter(|k| kid.is_none() || k.common.key_id.as_deref() == kid)
            .cloned()
            .collect()
    }

    /// Reads the key set from its source; keys of kinds this server cannot use are skipped.
    async fn read(&self) -> Result<Read, String> {
        let (bytes, max_age) = match &self.source {
            Source::File(path) => {
                let bytes = tokio::fs::read(path).await.map_err(|e| e.to_string())?;
                (bytes, None)
            }
            Source::Url { url, client } => {
                let response = client
                    .get(url)
                    .send()
                    .await
                    .map_err(|e| e.to_string())?
                    .error_for_status()
                    .map_err(|e| e.to_string())?;
                let max_age = response
                    .headers()
                    .get_all(reqwest::header::CACHE_CONTROL)
                    .iter()
                    .filter_map(|value| value.to_str().ok())
                    .find_map(max_age);
                let bytes = response.bytes().await.map_err(|e| e.to_string())?;
                (bytes.to_vec(), max_age)
            }
            #[cfg(feature = "signin")]
            Source::Local(keys) => {
                return Ok(Read {
                    keys: (keys.0)(),
                    max_age: None,
                });
            }
        };
        Ok(Read {
            keys: parse(&bytes)?,
            max_age,
        })
    }
}

/// The `max-age` of a `Cache-Control` value (RFC 9111 §5.2.2.1), when above zero: `max-age=0`
/// (or `no-cache` beside it) asks to revalidate every time, which for a key set would mean
/// fetching it for every token; the refresh interval stands then.
fn max_age(cache_control: &str) -> Option<Duration> {
    let directives = || cache_control.split(',').map(str::trim);
    if directives()
        .any(|d| d.eq_ignore_ascii_case("no-cache") || d.eq_ignore_ascii_case("no-store"))
    {
        return None;
    }
    directives().find_map(|directive| {
        let (name, value) = directive.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("max-age") {
            return None;
        }
        let seconds: u64 = value.trim().trim_matches('"').parse().ok()?;
        (seconds > 0).then(|| Duration::from_secs(seconds))
    })
}

/// The usable keys of a JWKS document.
fn parse(bytes: &[u8]) -> Result<Vec<Jwk>, String> {
    #[derive(serde::Deserialize)]
    struct Document {
        keys: Vec<serde_json::Value>,
    }
    let document: Document =
        serde_json::from_slice(bytes).map_err(|e| format!("not a JWKS document ({e})"))?;
    let mut keys = Vec::with_capacity(document.keys.len());
    for key in document.keys {
        match serde_json::from_value::<Jwk>(key) {
            Ok(jwk) if usable(&jwk) => keys.push(jwk),
            Ok(_) => tracing::debug!("a key that is not an RSA or EC signing key was skipped"),
            Err(why) => tracing::debug!("a key that cannot be read was skipped: {why}"),
        }
    }
    Ok(keys)
}

/// Whether a key can verify an accepted signature: an RSA or EC public key, for signing,
/// whose algorithm (when it names one) is known. Symmetric keys never are: a token signed
/// with a shared secret (HS*) is refused.
fn usable(jwk: &Jwk) -> bool {
    use jsonwebtoken::jwk::{AlgorithmParameters, PublicKeyUse};
    let kind = matches!(
        jwk.algorithm,
        AlgorithmParameters::RSA(_) | AlgorithmParameters::EllipticCurve(_)
    );
    let for_signing = !matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption));
    let algorithm = jwk
        .common
        .key_algorithm
        .is_none_or(|alg| jsonwebtoken::Algorithm::try_from(alg).is_ok());
    kind && for_signing && algorithm
}

/// Where `location` points: a URL when it has an http(s) scheme, else a file.
fn source(location: &str) -> Result<Source, Error> {
    let lower = location.to_ascii_lowercase();
    if !(lower.starts_with("https://") || lower.starts_with("http://")) {
        return Ok(Source::File(PathBuf::from(location)));
    }
    // Parsed once, by the parser that fetches it: what it calls the host is where the keys
    // come from (`http://evil.example\@127.0.0.1/` is evil.example to it).
    let url = reqwest::Url::parse(location).map_err(|e| {
        Error::config_from(
            "JWKS",
            format!("the JWKS URL {location} is not a URL: {e}"),
            e,
        )
    })?;
    if url.scheme() == "http" && !loopback(&url) {
        return Err(config(format!(
            "the JWKS URL {location} is plain http: use https (http is accepted for a loopback host only)"
        )));
    }
    crate::tls::install_crypto_provider();
    let client = reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .https_only(lower.starts_with("https://"))
        .build()
        .map_err(|e| {
            Error::config_from("JWKS", format!("no HTTP client for the JWKS URL: {e}"), e)
        })?;
    Ok(Source::Url {
        url: location.to_owned(),
        client,
    })
}

/// Whether `url`'s host, as the URL parser reads it, is a loopback host.
pub(crate) fn loopback(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn config(message: String) -> Error {
    Error::config("JWKS", message)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{loopback, max_age, parse, source};

    #[test]
    fn max_age_comes_from_cache_control() {
        let secs = |v: &str| max_age(v).map(|d| d.as_secs());
        assert_eq!(secs("max-age=60"), Some(60));
        assert_eq!(secs("public, Max-Age=\"120\", must-revalidate"), Some(120));
        assert_eq!(secs("public"), None);
        assert_eq!(secs("max-age=0"), None);
        assert_eq!(secs("no-cache, max-age=60"), None);
        assert_eq!(secs("max-age=soon"), None);
        assert_eq!(
            max_age("s-maxage=5, max-age=7"),
            Some(Duration::from_secs(7))
        );
    }

    #[test]
    fn plain_http_is_for_loopback_only() {
        let host_is_loopback = |url: &str| loopback(&reqwest::Url::parse(url).unwrap());
        assert!(host_is_loopback("http://127.0.0.1:8080/jwks"));
        assert!(host_is_loopback("http://localhost/jwks"));
        assert!(host_is_loopback("http://[::1]:9/x"));
        assert!(!host_is_loopback("http://login.example.com/jwks"));
        assert!(!host_is_loopback("http://127.0.0.1.evil.com/jwks"));
        assert!(!host_is_loopback("http://localhost@evil.com/jwks"));
        // What only looks loopback: the parser that fetches reads evil.example as the host.
        assert!(source(r"http://evil.example\@127.0.0.1/jwks").is_err());
        assert!(source("http://evil.example%5C@127.0.0.1/jwks").is_ok());
        assert!(source("http://login.example.com/jwks").is_err());
        assert!(source("http://127.0.0.1:9/jwks").is_ok());
        assert!(source("https://login.example.com/jwks").is_ok());
        assert!(source("/etc/jwks.json").is_ok());
    }

    #[test]
    fn unusable_keys_are_skipped() {
        let doc = br#"{"keys": [
            {"kty": "EC", "crv": "P-256", "kid": "a",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "oct", "k": "c2VjcmV0", "kid": "shared"},
            {"kty": "weird"}
        ]}"#;
        let keys = parse(doc).unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].common.key_id.as_deref(), Some("a"));
        assert!(parse(b"[]").unwrap_err().contains("not a JWKS"));
    }
}

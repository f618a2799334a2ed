//! Reading the key set again in the background, so that a key the issuer drops stops being
//! trusted (and one it adds is there before a token names it). The task lives as long as the
//! [`Refreshing`] it returns: the verifier keeps it, and dropping the verifier (the server
//! stopping) ends the task at once.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::{CancellationToken, DropGuard};

use super::jwks::KeySet;

/// The shortest refresh interval: a shorter setting is taken as this.
pub(super) const SHORTEST: Duration = Duration::from_secs(1);

/// The background refresh of one key set; dropping it stops the refresh.
pub(super) struct Refreshing {
    _stop: DropGuard,
}

/// Reads `keys` again every `every` (or sooner, when the last response's `max-age` says so),
/// until the returned [`Refreshing`] is dropped.
pub(super) fn spawn(keys: Arc<KeySet>, every: Duration) -> Refreshing {
    let every = every.max(SHORTEST);
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    tokio::spawn(async move {
        stopped
            .run_until_cancelled(async move {
                loop {
                    tokio::time::sleep(keys.next_refresh(every).max(SHORTEST)).await;
                    keys.refresh().await;
                }
            })
            .await;
        tracing::debug!("authorization keys: background refresh stopped");
    });
    Refreshing {
        _stop: stop.drop_guard(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::spawn;
    use crate::auth::jwks::KeySet;

    /// An empty JWKS served over loopback HTTP, counting its fetches.
    async fn counted_jwks() -> (String, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/jwks", listener.local_addr().unwrap());
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = hits.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let _ = stream.read(&mut [0u8; 4096]).await;
                counted.fetch_add(1, Ordering::SeqCst);
                let body = r#"{"keys": []}"#;
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
            }
        });
        (url, hits)
    }

    #[tokio::test]
    async fn the_refresh_stops_when_dropped() {
        let (url, hits) = counted_jwks().await;
        let keys = Arc::new(KeySet::load(&url, Duration::from_secs(60)).await.unwrap());
        assert_eq!(hits.load(Ordering::SeqCst), 1, "read once at startup");
        let refreshing = spawn(keys.clone(), Duration::from_secs(1));
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while hits.load(Ordering::SeqCst) < 2 {
            assert!(tokio::time::Instant::now() < deadline, "no refresh in 10 s");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        drop(refreshing);
        let after = hits.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert_eq!(
            hits.load(Ordering::SeqCst),
            after,
            "refreshed after the drop"
        );
        // The task let go of the key set.
        assert_eq!(Arc::strong_count(&keys), 1);
    }
}

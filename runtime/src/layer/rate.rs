//! [`RateLimit`]: at most so many calls per second per caller (the token's subject, or one
//! bucket for the local user), at a rate for each kind of tool its hints make it: read-only,
//! writing, destructive. A call past its rate is refused, not queued: a client told to slow
//! down can, and a burst cannot pile up in the server.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use futures::future::{BoxFuture, Either, Ready};

use super::{Call, CallOutcome};

/// Calls per second for each kind of tool; `None`: no limit for that kind.
///
/// ```
/// let rates: toolsmith::layer::Rates = "read=100/s,write=10/s,destructive=1/s".parse().unwrap();
/// assert_eq!(rates.destructive, Some(1.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rates {
    /// Read-only tools.
    pub read: Option<f64>,
    /// Tools that write but do not destroy.
    pub write: Option<f64>,
    /// Destructive tools.
    pub destructive: Option<f64>,
}

/// Why a rate specification does not parse.
///
/// ```
/// let err = "read=fast".parse::<toolsmith::layer::Rates>().unwrap_err();
/// assert!(err.to_string().contains("read=fast"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRates(String);

impl fmt::Display for UnknownRates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a rate: write KIND=N/s or KIND=N/m, KIND one of read, write, destructive (e.g. read=100/s,write=10/s,destructive=1/s)",
            self.0
        )
    }
}

impl std::error::Error for UnknownRates {}

impl FromStr for Rates {
    type Err = UnknownRates;

    fn from_str(text: &str) -> Result<Rates, UnknownRates> {
        let mut rates = Rates::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let bad = || UnknownRates(part.to_owned());
            let (kind, rate) = part.split_once('=').ok_or_else(bad)?;
            let (count, per) = rate.split_once('/').ok_or_else(bad)?;
            let count: f64 = count.trim().parse().map_err(|_| bad())?;
            let seconds = match per.trim() {
                "s" => 1.0,
                "m" => 60.0,
                "h" => 3600.0,
                _ => return Err(bad()),
            };
            if !(count.is_finite() && count > 0.0) {
                return Err(bad());
            }
            let slot = match kind.trim() {
                "read" => &mut rates.read,
                "write" => &mut rates.write,
                "destructive" => &mut rates.destructive,
                _ => return Err(bad()),
            };
            *slot = Some(count / seconds);
        }
        Ok(rates)
    }
}

/// A token bucket: up to one second's worth of calls at once, refilled at the rate.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The most callers' buckets kept; past it, full buckets (idle callers) are dropped.
const MAX_BUCKETS: usize = 10_000;

/// The layer: [`Server::layer`](crate::Server::layer)`(RateLimit::new(rates))`, or
/// `serve --rate-limit read=100/s,write=10/s,destructive=1/s`.
///
/// ```
/// use toolsmith::layer::{RateLimit, Rates};
/// use toolsmith::{Registry, Server, testing::Client};
///
/// /// Reads a note.
/// #[toolsmith::tool(read_only, closed_world)]
/// fn read_rated_note() -> String {
///     "a note".into()
/// }
///
/// /// Deletes a note.
/// #[toolsmith::tool(destructive, idempotent, closed_world)]
/// fn delete_rated_note() -> String {
///     "deleted".into()
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let rates: Rates = "read=100/s,destructive=1/m".parse().unwrap();
/// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
///     .layer(RateLimit::new(rates));
/// let client = Client::connect(server).await.unwrap();
/// let none = serde_json::json!({});
/// assert!(client.call("delete_rated_note", none.clone()).await.is_ok());
/// let refused = client.call("delete_rated_note", none.clone()).await.unwrap_err();
/// assert!(refused.message().contains("destructive calls per second"), "{refused}");
/// for _ in 0..3 {
///     assert!(client.call("read_rated_note", none.clone()).await.is_ok(), "reads have their own rate");
/// }
/// # }
/// ```
#[derive(Clone)]
pub struct RateLimit {
    rates: Rates,
    buckets: Arc<Mutex<HashMap<(String, usize), Bucket>>>,
}

impl RateLimit {
    /// At most `rates` per caller.
    ///
    /// ```
    /// use toolsmith::{Registry, Server, layer::RateLimit, testing::Client};
    ///
    /// /// Tags a note.
    /// #[toolsmith::tool(destructive = false, closed_world)]
    /// fn tag_rated_note(tag: String) -> String {
    ///     tag
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let limit = RateLimit::new("write=1/m".parse().unwrap());
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap()).layer(limit);
    /// let client = Client::connect(server).await.unwrap();
    /// let tag = serde_json::json!({"tag": "ideas"});
    /// assert!(client.call("tag_rated_note", tag.clone()).await.is_ok());
    /// let refused = client.call("tag_rated_note", tag).await.unwrap_err();
    /// assert!(refused.message().contains("try 'tag_rated_note' again in"), "{refused}");
    /// # }
    /// ```
    pub fn new(rates: Rates) -> Self {
        RateLimit {
            rates,
            buckets: Arc::default(),
        }
    }

    /// Takes one call of `kind` (0 read, 1 write, 2 destructive) for `caller` at `rate`; on
    /// refusal, how long until the next may pass.
    fn take(&self, caller: &str, kind: usize, rate: f64, now: Instant) -> Result<(), f64> {
        let capacity = rate.max(1.0);
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= MAX_BUCKETS {
            buckets.retain(|(_, kind), bucket| {
                let rate = self.rate_of(*kind).unwrap_or(1.0);
                bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * rate < rate.max(1.0)
            });
        }
        let bucket = buckets.entry((caller.to_owned(), kind)).or_insert(Bucket {
            tokens: capacity,
            at: now,
        });
        let elapsed = now.duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate).min(capacity);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err((1.0 - bucket.tokens) / rate)
        }
    }

    fn rate_of(&self, kind: usize) -> Option<f64> {
        [self.rates.read, self.rates.write, self.rates.destructive][kind]
    }
}

impl<S> tower::Layer<S> for RateLimit {
    type Service = Limited<S>;

    fn layer(&self, inner: S) -> Limited<S> {
        Limited {
            limit: self.clone(),
            inner,
        }
    }
}

/// A service behind a [`RateLimit`].
#[derive(Clone)]
pub struct Limited<S> {
    limit: RateLimit,
    inner: S,
}

impl<S> tower::Service<Call> for Limited<S>
where
    S: tower::Service<Call, Response = CallOutcome, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = CallOutcome;
    type Error = Infallible;
    type Future = Either<
        Ready<Result<CallOutcome, Infallible>>,
        BoxFuture<'static, Result<CallOutcome, Infallible>>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Self::Future {
        // A read or a prompt reads.
        let hints = call
            .tool()
            .map_or(crate::Hints::READ_ONLY, |tool| tool.hints());
        let (kind, word) = if hints.read_only {
            (0, "read-only")
        } else if hints.destructive {
            (2, "destructive")
        } else {
            (1, "writing")
        };
        if let Some(rate) = self.limit.rate_of(kind) {
            let caller = call.caller().identity();
            if let Err(wait) = self.limit.take(caller, kind, rate, Instant::now()) {
                let message = format!(
                    "Rate limit: at most {} {word} calls per second for this caller; try '{}' again in {:.1}s.",
                    trim(rate),
                    call.header().name(),
                    wait.max(0.1)
                );
                return Either::Left(futures::future::ready(Ok(CallOutcome::refused(message))));
            }
        }
        Either::Right(Box::pin(self.inner.call(call)))
    }
}

/// `100`, `0.5`: a rate as people write it.
fn trim(rate: f64) -> String {
    let text = format!("{rate:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn rates_parse_and_mistakes_are_named() {
        let rates: Rates = "read=100/s, write=600/m,destructive=1/s".parse().unwrap();
        assert_eq!(
            rates,
            Rates {
                read: Some(100.0),
                write: Some(10.0),
                destructive: Some(1.0)
            }
        );
        for bad in [
            "read",
            "read=1",
            "read=x/s",
            "read=1/day",
            "reads=1/s",
            "read=0/s",
            "read=-1/s",
        ] {
            assert!(bad.parse::<Rates>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bucket_lets_a_second_through_then_refills_at_the_rate() {
        let limit = RateLimit::new(Rates::default());
        let start = Instant::now();
        assert!(limit.take("a", 2, 1.0, start).is_ok());
        let wait = limit.take("a", 2, 1.0, start).unwrap_err();
        assert!((wait - 1.0).abs() < 1e-9, "{wait}");
        assert!(
            limit.take("b", 2, 1.0, start).is_ok(),
            "another caller has its own"
        );
        assert!(
            limit
                .take("a", 2, 1.0, start + Duration::from_millis(1000))
                .is_ok()
        );
        for _ in 0..100 {
            assert!(limit.take("r", 0, 100.0, start).is_ok());
        }
        assert!(
            limit.take("r", 0, 100.0, start).is_err(),
            "the 101st in one instant"
        );
    }
}

//! A guarded GET: each hop checked, redirects followed by hand, the body read as a stream
//! up to its cap, the whole bounded by one timeout.

use reqwest::Url;
use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderMap, HeaderName, LOCATION};

use super::error::{reason, refused_host};
use super::{FetchError, Fetched, Outbound, address};

impl Outbound {
    /// Fetches `url` (`http` or `https`) with every guard of [the module](super): its
    /// body, its final URL and the headers a caller needs, or what was wrong.
    /// `on_chunk(bytes so far, total)` is called as the body comes in (`total` when the
    /// answer said it). Dropping the future stops the download.
    ///
    /// ```
    /// use toolsmith::net::{FetchError, Outbound};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let outbound = Outbound::builder().build().unwrap();
    /// let err = outbound.get("file:///etc/passwd", |_, _| {}).await.unwrap_err();
    /// assert_eq!(err, FetchError::Scheme { scheme: "file".into() });
    /// let err = outbound.get("http://169.254.169.254/latest/meta-data/", |_, _| {}).await.unwrap_err();
    /// assert!(matches!(err, FetchError::NotPublic { ref host, .. } if host == "169.254.169.254"), "{err}");
    /// # }
    /// ```
    pub async fn get(
        &self,
        url: &str,
        on_chunk: impl FnMut(usize, Option<u64>),
    ) -> Result<Fetched, FetchError> {
        match tokio::time::timeout(self.timeout, self.hops(url, on_chunk)).await {
            Ok(fetched) => fetched,
            Err(_) => Err(FetchError::TimedOut {
                after: self.timeout,
            }),
        }
    }

    /// Each hop of [`get`](Outbound::get).
    async fn hops(
        &self,
        url: &str,
        on_chunk: impl FnMut(usize, Option<u64>),
    ) -> Result<Fetched, FetchError> {
        let mut url = Url::parse(url).map_err(|err| FetchError::BadUrl {
            url: url.to_owned(),
            reason: err.to_string(),
        })?;
        for _ in 0..=self.max_redirects {
            self.check(&url)?;
            let response = self
                .client
                .get(url.clone())
                .send()
                .await
                .map_err(|err| self.transport(&url, &err))?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .ok_or_else(|| FetchError::RedirectNowhere {
                        url: url.to_string(),
                    })?;
                url = url.join(location).map_err(|err| FetchError::BadRedirect {
                    url: url.to_string(),
                    reason: err.to_string(),
                })?;
                continue;
            }
            if !status.is_success() {
                return Err(FetchError::Status {
                    url: url.to_string(),
                    status: status.as_u16(),
                });
            }
            let header = |headers: &HeaderMap, name: HeaderName| {
                headers
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            let content_type = header(response.headers(), CONTENT_TYPE);
            let cache_control = header(response.headers(), CACHE_CONTROL);
            let body = self.read_capped(&url, response, on_chunk).await?;
            return Ok(Fetched {
                url: url.to_string(),
                status: status.as_u16(),
                content_type,
                cache_control,
                body,
            });
        }
        Err(FetchError::TooManyRedirects {
            max: self.max_redirects,
        })
    }

    /// Refuses a URL that is not `http`/`https`, or names a non-public IP address that is
    /// not allowed (a name is checked when it is resolved, see `address::PublicOnly`).
    fn check(&self, url: &Url) -> Result<(), FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::Scheme {
                scheme: url.scheme().to_owned(),
            });
        }
        let host = url.host_str().ok_or_else(|| FetchError::NoHost {
            url: url.to_string(),
        })?;
        if address::refused_literal(&self.allow, host) {
            return Err(self.not_public(host));
        }
        Ok(())
    }

    fn not_public(&self, host: &str) -> FetchError {
        FetchError::NotPublic {
            host: host.to_owned(),
            hint: self.hint.clone(),
        }
    }

    /// A failed request as its error: a name the resolver refused is
    /// [`FetchError::NotPublic`].
    fn transport(&self, url: &Url, err: &reqwest::Error) -> FetchError {
        // The client's own bound on the whole download is the same as `get`'s.
        if err.is_timeout() {
            return FetchError::TimedOut {
                after: self.timeout,
            };
        }
        match refused_host(err) {
            Some(host) => self.not_public(&host),
            None => FetchError::Transport {
                url: url.to_string(),
                reason: reason(err),
            },
        }
    }

    /// The body, read chunk by chunk and stopped at the cap.
    async fn read_capped(
        &self,
        url: &Url,
        mut response: reqwest::Response,
        mut on_chunk: impl FnMut(usize, Option<u64>),
    ) -> Result<Vec<u8>, FetchError> {
        let too_large = FetchError::TooLarge {
            max: self.max_bytes,
        };
        let total = response.content_length();
        if total.is_some_and(|n| n > self.max_bytes as u64) {
            return Err(too_large);
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|err| match err.is_timeout() {
                true => FetchError::TimedOut {
                    after: self.timeout,
                },
                false => FetchError::Download {
                    url: url.to_string(),
                    reason: reason(&err),
                },
            })?
        {
            if body.len() + chunk.len() > self.max_bytes {
                return Err(too_large);
            }
            body.extend_from_slice(&chunk);
            on_chunk(body.len(), total);
        }
        Ok(body)
    }
}

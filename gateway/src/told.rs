//! What an upstream's failure says, to the model (a call's error) and to the operator (the
//! gateway's log, its start's error): the transport's own words and their causes, never the
//! transport's Rust type, and never an HTTP upstream's URL (its query or user part may hold
//! its credentials: `?key=…`, `user:password@`). The upstream is named by the message that
//! quotes this.

use rmcp::ServiceError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

/// What stands in a message for a URL taken out of it.
const URL_SHOWN: &str = "<its URL>";

/// The error a request to `upstream` that failed with `err` answers (`what`: "call",
/// "read"): it names the upstream, and says what went wrong without the transport's type
/// name (rmcp's `Transport [...] error`) or the upstream's URL.
pub(crate) fn failed(upstream: &str, what: &str, err: &ServiceError) -> String {
    match err {
        ServiceError::McpError(answered) => without_urls(&format!(
            "upstream '{upstream}' answered the {what} with an error: {} (code {})",
            answered.message, answered.code.0
        )),
        _ => format!(
            "upstream '{upstream}' did not answer the {what}: {}",
            service(err)
        ),
    }
}

/// What `err`, a request to an upstream that failed, says (see [`failed`]).
pub(crate) fn service(err: &ServiceError) -> String {
    match err {
        ServiceError::TransportSend(sent) => transport(&*sent.error),
        other => without_urls(&other.to_string()),
    }
}

/// What a transport's error says, with its causes: the HTTP client's own error (which rmcp
/// keeps without naming it its source) with its causes (a refused connection, an untrusted
/// certificate), the URL it names taken out.
pub(crate) fn transport(err: &(dyn std::error::Error + Send + Sync + 'static)) -> String {
    match err.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
        Some(StreamableHttpError::Client(client)) => {
            let said = crate::error::said(client);
            let said = match client.url() {
                // reqwest says "… for url (URL)": that part goes, and the URL wherever else.
                Some(url) => said
                    .replace(&format!(" for url ({url})"), "")
                    .replace(url.as_str(), URL_SHOWN),
                None => said,
            };
            without_urls(&said)
        }
        _ => without_urls(&crate::error::said(err)),
    }
}

/// `text` with every `http://` or `https://` URL in it replaced by [`URL_SHOWN`].
pub(crate) fn without_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = url_start(rest) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`'))
            .unwrap_or(tail.len());
        // A closing parenthesis ends it, when the URL was written in parentheses.
        let end = match out.ends_with('(') {
            true => tail[..end].rfind(')').unwrap_or(end),
            false => end,
        };
        out.push_str(URL_SHOWN);
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Where the first `http://` or `https://` in `text` starts (any case).
fn url_start(text: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    [lower.find("http://"), lower.find("https://")]
        .into_iter()
        .flatten()
        .min()
}

/// `url` as the operator's log shows it: its scheme, host, port and path, without its user
/// part, query or fragment.
pub(crate) fn shown_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => URL_SHOWN.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_never_reaches_a_message() {
        let said = "error sending request for url (http://u:pw@127.0.0.1:9/mcp?key=s3cret): \
                    client error (Connect): tcp connect error";
        let shown = without_urls(said);
        assert_eq!(
            shown,
            "error sending request for url (<its URL>): client error (Connect): tcp connect error"
        );
        let bare = without_urls("at HTTPS://h/x?token=t, then http://h/y");
        assert_eq!(bare, "at <its URL> then <its URL>");
        assert!(!without_urls("see 'http://h/?k=v' now").contains("k=v"));
        assert_eq!(without_urls("no URL here"), "no URL here");
    }

    #[test]
    fn the_operator_sees_a_url_without_its_credentials() {
        assert_eq!(
            shown_url("https://user:pw@mcp.example:8443/mcp?key=s3cret#x"),
            "https://mcp.example:8443/mcp"
        );
        assert_eq!(shown_url("not a url ?key=s3cret"), URL_SHOWN);
    }

    #[test]
    fn an_errors_text_names_no_rust_type() {
        let err = ServiceError::TransportSend(rmcp::transport::DynamicTransportError::from_parts(
            "toolsmith_gateway::relaying_transport::RelayingTransport<rmcp::transport::StreamableHttpClientTransport>",
            std::any::TypeId::of::<()>(),
            Box::new(std::io::Error::other("connection reset")),
        ));
        let told = service(&err);
        assert_eq!(told, "connection reset");
        assert!(
            err.to_string().contains("RelayingTransport<"),
            "rmcp's own text names it"
        );
    }
}

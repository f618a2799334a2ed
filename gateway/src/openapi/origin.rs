//! Where an API's calls go: the configured base URL, else the server its document names;
//! and where its credentials may not go (a fetched document's server at another origin than
//! the document's own, unless allowed).

use super::OpenApi;

impl OpenApi {
    /// An error when `base` is a server the fetched document names at another origin than
    /// its own, and that is not allowed: the credentials would go where the document says.
    pub(super) fn same_origin(&self, base: &url::Url) -> Result<(), String> {
        if self.cross_origin_servers || self.base_url.is_some() {
            return Ok(());
        }
        let Ok(fetched) = url::Url::parse(&self.document) else {
            // A file: where it says the API is, the configuration says.
            return Ok(());
        };
        if fetched.origin() == base.origin() {
            return Ok(());
        }
        Err(format!(
            "the document names the server {base} (`servers`), at another origin than the document's own ({}): the credentials would be sent there. Give the API's URL as `base_url`, or set `allow_cross_origin_servers = true` if the document's servers are to be trusted",
            fetched.origin().ascii_serialization()
        ))
    }

    /// The base URL: the configured one, else the document's first server (relative to the
    /// document's URL), else the document's origin.
    pub(super) fn base(&self, document: &serde_json::Value) -> Result<url::Url, String> {
        let bad = |url: &str, err: url::ParseError| format!("the base URL {url:?}: {err}");
        if let Some(url) = &self.base_url {
            return url::Url::parse(url).map_err(|err| bad(url, err));
        }
        let fetched = url::Url::parse(&self.document).ok();
        let server = document.pointer("/servers/0/url").and_then(|u| u.as_str());
        match (server, fetched) {
            (Some(server), Some(fetched)) => fetched.join(server).map_err(|err| bad(server, err)),
            (Some(server), None) => url::Url::parse(server).map_err(|err| {
                format!("{}: give the API's base URL (`base_url`)", bad(server, err))
            }),
            (None, Some(fetched)) => fetched.join("/").map_err(|err| bad(fetched.as_str(), err)),
            (None, None) => {
                Err("the document names no server: give the API's base URL (`base_url`)".into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::OpenApi;

    #[test]
    fn credentials_go_to_another_origin_only_when_allowed() {
        let url = |u: &str| url::Url::parse(u).unwrap();
        let fetched = OpenApi::new("http://127.0.0.1:8000/openapi.json");
        assert!(
            fetched
                .same_origin(&url("http://127.0.0.1:8000/v1/"))
                .is_ok()
        );
        for elsewhere in [
            "http://127.0.0.1:9000/",
            "https://127.0.0.1:8000/",
            "http://a/",
        ] {
            let err = fetched.same_origin(&url(elsewhere)).unwrap_err();
            assert!(
                err.contains(elsewhere)
                    && err.contains("http://127.0.0.1:8000")
                    && err.contains("`allow_cross_origin_servers = true`"),
                "{err}"
            );
        }
        // A server the document names relative to itself, or protocol-relative.
        let named = |server: &str| json!({"servers": [{"url": server}]});
        let near = fetched.base(&named("/v1")).unwrap();
        assert!(fetched.same_origin(&near).is_ok(), "{near}");
        let far = fetched.base(&named("//elsewhere.example/v1")).unwrap();
        assert!(fetched.same_origin(&far).is_err(), "{far}");
        let allowed = fetched.clone().allow_cross_origin_servers(true);
        assert!(allowed.same_origin(&url("http://a/")).is_ok());
        // The configuration says where the API is: a base URL, or a document of its own.
        let based = fetched.base_url("http://a/");
        assert!(based.same_origin(&url("http://a/")).is_ok());
        assert!(
            OpenApi::new("api.yaml")
                .same_origin(&url("http://a/"))
                .is_ok()
        );
    }
}

//! HTTPS to upstreams and APIs: rustls, with the system's certificate authorities (through
//! rustls-platform-verifier; on Linux `SSL_CERT_FILE` and `SSL_CERT_DIR` name others) and
//! those of an upstream's own `ca_file`, beside them.

use std::path::Path;

/// An HTTP client's builder that speaks HTTPS, trusting the certificates in `ca_file` (PEM)
/// beside the system's. An error says why the file cannot be used.
pub(crate) fn builder(ca_file: Option<&Path>) -> Result<reqwest::ClientBuilder, String> {
    install_crypto_provider();
    let mut builder = reqwest::Client::builder();
    if let Some(path) = ca_file {
        let pem = std::fs::read(path)
            .map_err(|err| format!("the CA file {} cannot be read: {err}", path.display()))?;
        let certificates = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|err| format!("the CA file {} is not PEM: {err}", path.display()))?;
        if certificates.is_empty() {
            return Err(format!(
                "the CA file {} holds no certificate: give PEM (-----BEGIN CERTIFICATE-----)",
                path.display()
            ));
        }
        builder = builder.tls_certs_merge(certificates);
    }
    Ok(builder)
}

/// Installs ring as rustls's cryptography for this process, unless a provider is installed
/// already (the program's own choice stands).
///
/// The gateway calls it before it builds an HTTP client. A program that builds reqwest 0.13
/// clients of its own (rmcp's Streamable HTTP client among them) calls it first: linking
/// this crate turns on reqwest's rustls without a built-in provider (ring is the one the
/// workspace's other crates already build), and such a client panics without one.
///
/// ```
/// toolsmith_gateway::install_crypto_provider();
/// assert!(rustls::crypto::CryptoProvider::get_default().is_some());
/// // Now any reqwest client builds.
/// assert!(reqwest::Client::builder().build().is_ok());
/// ```
pub fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Err only when another thread installed one meanwhile: that one is used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_that_is_missing_or_holds_no_certificate_is_refused() {
        let missing = builder(Some(Path::new("/nonexistent/ca.pem"))).unwrap_err();
        assert!(
            missing.contains("/nonexistent/ca.pem cannot be read"),
            "{missing}"
        );

        let dir = std::env::temp_dir().join(format!("toolsmith-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "no certificate here\n").unwrap();
        let why = builder(Some(&empty)).unwrap_err();
        assert!(why.contains("holds no certificate"), "{why}");
        std::fs::remove_dir_all(&dir).unwrap();

        assert!(builder(None).unwrap().build().is_ok());
    }
}

//! HTTPS for the clients the runtime makes (the JWKS, the webhook, the OTLP exporter):
//! reqwest's rustls, which has no cryptography of its own, with ring's installed for the
//! process unless the program installed another first.

/// Installs ring as rustls's cryptography for this process, unless a provider is installed
/// already (the program's own choice stands). Called before any client is built: a reqwest
/// client panics without one.
pub(crate) fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Err only when another thread installed one meanwhile: that one is used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

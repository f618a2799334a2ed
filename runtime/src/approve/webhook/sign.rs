//! The signatures of a webhook's requests and answers: HMAC-SHA256 with the shared secret
//! over `TIMESTAMP.BODY`, within five minutes of the receiver's clock.

use std::time::{SystemTime, UNIX_EPOCH};

use hmac::{KeyInit, Mac};

use super::SKEW;

/// The signature of `body` sent at `timestamp` (Unix seconds) with `secret`: the lowercase
/// hex of HMAC-SHA256 over `TIMESTAMP.BODY`. What an approval service computes to check a
/// request, and to sign its answer (`X-Toolsmith-Signature: t=TIMESTAMP,v1=SIGNATURE`).
///
/// ```
/// let signed = toolsmith::approve::signature(&[7u8; 32], 1_700_000_000, br#"{"id":"x"}"#);
/// assert_eq!(signed.len(), 64);
/// assert_ne!(signed, toolsmith::approve::signature(&[8u8; 32], 1_700_000_000, br#"{"id":"x"}"#));
/// ```
pub fn signature(secret: &[u8], timestamp: u64, body: &[u8]) -> String {
    let mut mac =
        hmac::Hmac::<sha2::Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    hex(&mac.finalize().into_bytes())
}

/// Whether `header` signs `body` with `secret` at a time within [`SKEW`] of `now`.
pub(crate) fn verified(secret: &[u8], header: Option<&str>, body: &[u8], now: u64) -> bool {
    let Some(header) = header else {
        return false;
    };
    let mut timestamp = None;
    let mut signed = None;
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse::<u64>().ok(),
            Some(("v1", v)) => signed = Some(v),
            _ => {}
        }
    }
    let (Some(timestamp), Some(signed)) = (timestamp, signed) else {
        return false;
    };
    if timestamp.abs_diff(now) > SKEW {
        return false;
    }
    let mut mac =
        hmac::Hmac::<sha2::Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let Some(bytes) = unhex(signed) else {
        return false;
    };
    // Compared in constant time.
    mac.verify_slice(&bytes).is_ok()
}

pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_only_with_its_secret_body_and_time() {
        let secret = [3u8; 32];
        let body = br#"{"id":"a","decision":"approve"}"#;
        let header = |t: u64, secret: &[u8]| format!("t={t},v1={}", signature(secret, t, body));
        let now = 1_800_000_000;
        assert!(verified(&secret, Some(&header(now, &secret)), body, now));
        assert!(verified(
            &secret,
            Some(&header(now - 299, &secret)),
            body,
            now
        ));
        assert!(!verified(
            &secret,
            Some(&header(now - 301, &secret)),
            body,
            now
        ));
        assert!(!verified(
            &secret,
            Some(&header(now, &[4u8; 32])),
            body,
            now
        ));
        assert!(!verified(&secret, Some(&header(now, &secret)), b"{}", now));
        assert!(!verified(&secret, None, body, now));
        assert!(!verified(&secret, Some("t=x,v1=zz"), body, now));
    }
}

//! The request-state flags of `serve`: `--state-key BASE64` (at least 32 bytes, never
//! printed) and `--state-ttl SECS`.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE_NO_PAD};

/// A `--state-key`.
#[derive(Clone)]
pub(super) struct StateKey(Vec<u8>);

impl StateKey {
    pub(super) fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(<redacted>)")
    }
}

/// `--state-key`: base64 (standard or URL-safe, padded or not) of at least 32 bytes.
pub(super) fn key(value: &str) -> Result<StateKey, String> {
    let value = value.trim();
    let bytes = STANDARD
        .decode(value)
        .or_else(|_| URL_SAFE_NO_PAD.decode(value))
        .or_else(|_| STANDARD_NO_PAD.decode(value))
        .map_err(|_| "expected base64, e.g. the output of `openssl rand -base64 32`".to_owned())?;
    if bytes.len() < 32 {
        return Err(format!(
            "the key is {} bytes: give at least 32 random bytes (`openssl rand -base64 32`)",
            bytes.len()
        ));
    }
    Ok(StateKey(bytes))
}

/// `--state-ttl`: a whole number of seconds above zero.
pub(super) fn ttl(value: &str) -> Result<Duration, String> {
    match value.trim().parse::<u64>() {
        Ok(secs) if secs > 0 => Ok(Duration::from_secs(secs)),
        _ => Err("expected a whole number of seconds above zero, e.g. 60".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;

    #[test]
    fn a_state_key_is_base64_of_32_bytes_at_least() {
        let good = STANDARD.encode([1u8; 32]);
        assert_eq!(super::key(&good).unwrap().bytes(), [1u8; 32]);
        let short = STANDARD.encode([1u8; 16]);
        assert!(super::key(&short).unwrap_err().contains("16 bytes"));
        assert!(super::key("not base64!").unwrap_err().contains("base64"));
        assert!(!format!("{:?}", super::key(&good).unwrap()).contains(&good));
    }

    #[test]
    fn a_ttl_is_seconds_above_zero() {
        assert_eq!(super::ttl("60"), Ok(std::time::Duration::from_secs(60)));
        for bad in ["0", "-1", "1.5", "soon"] {
            assert!(super::ttl(bad).is_err(), "{bad}");
        }
    }
}

//! The sealed `requestState` of a call that asks on the 2026-07-28 revision: what the client
//! answered so far and which questions it was just asked, signed with HMAC-SHA256 (rmcp's
//! `RequestStateCodec`) and bound to the call it was made for (the tool, a hash of its
//! canonical arguments, the caller) with an expiry. The client echoes it back untouched; a
//! state that was altered, made for another call or caller, or is past its expiry does not
//! open. Replicas that share the key open each other's states; without one, each process
//! makes a random key of its own.

use std::collections::BTreeMap;
use std::time::Duration;

use rmcp::model::{JsonObject, RequestStateCodec, RequestStateError, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::context::Caller;
use crate::context::inquiry::Answered;
use crate::tool::canonical;

pub(crate) const DEFAULT_STATE_TTL: Duration = Duration::from_secs(5 * 60);

/// What a state holds.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Sealed {
    /// The answers so far, by question key.
    #[serde(rename = "a")]
    pub(crate) answers: BTreeMap<String, Answered>,
    /// The questions of the round this state was sent with: key and fingerprint.
    #[serde(rename = "q")]
    pub(crate) asked: Vec<(String, u64)>,
}

/// Why a state did not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unsealed {
    /// Altered, malformed, sealed with another key, or made for another call or caller.
    Invalid,
    /// Past its expiry.
    Expired,
}

/// The key states are sealed with, and how long they last.
pub(crate) struct Seal {
    codec: RequestStateCodec,
    ttl: Duration,
}

impl std::fmt::Debug for Seal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seal")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl Seal {
    /// A key of this process alone, from the system's randomness; without it, no key (a
    /// guessable one would let a client forge a confirmation).
    pub(crate) fn random(ttl: Duration) -> Result<Seal, String> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key)
            .map_err(|err| format!("no system randomness for a key: {err}"))?;
        Ok(Seal {
            codec: RequestStateCodec::new_unchecked(key.to_vec()),
            ttl,
        })
    }

    /// A key shared by replicas: at least 32 bytes.
    pub(crate) fn with_key(key: &[u8], ttl: Duration) -> Result<Seal, String> {
        RequestStateCodec::try_new(key.to_vec())
            .map(|codec| Seal { codec, ttl })
            .map_err(|err| err.to_string())
    }

    /// How long a state may be echoed back.
    pub(crate) fn ttl(&self) -> Duration {
        self.ttl
    }

    pub(crate) fn seal(&self, binding: &[u8], sealed: &Sealed) -> String {
        let payload = serde_json::to_vec(sealed).unwrap_or_default();
        let options = SealOptions::new().associated_data(binding).ttl(self.ttl);
        self.codec.seal_with(&payload, &options)
    }

    pub(crate) fn open(&self, state: &str, binding: &[u8]) -> Result<Sealed, Unsealed> {
        match self.codec.open_with(state, binding) {
            Ok(payload) => serde_json::from_slice(&payload).map_err(|_| Unsealed::Invalid),
            Err(RequestStateError::Expired) => Err(Unsealed::Expired),
            Err(_) => Err(Unsealed::Invalid),
        }
    }
}

/// What a state is bound to: the tool, a SHA-256 of its canonical arguments (keys sorted, no
/// spaces), and the caller: its [identity](Caller::identity) (anonymous; a token's issuer
/// and subject, else its client, else the token itself) and its token's client (`azp`, else
/// `client_id`): a yes given through one client is not redeemed through another. Every
/// field is length-prefixed, so that no field can run into the next.
pub(crate) fn binding(tool: &str, arguments: Option<&JsonObject>, caller: &Caller) -> Vec<u8> {
    fn field(binding: &mut Vec<u8>, bytes: &[u8]) {
        binding.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        binding.extend_from_slice(bytes);
    }
    let mut canonical_args = Vec::new();
    match arguments {
        Some(arguments) => canonical::write_object(arguments, &mut canonical_args),
        None => canonical_args.extend_from_slice(b"{}"),
    }
    let mut binding = Vec::with_capacity(160);
    field(&mut binding, b"toolsmith/tools-call/v3");
    field(&mut binding, tool.as_bytes());
    field(&mut binding, &Sha256::digest(&canonical_args));
    field(&mut binding, caller.identity().as_bytes());
    let claim = |name| caller.claim(name).and_then(Value::as_str);
    let client = claim("azp").or_else(|| claim("client_id")).unwrap_or("");
    field(&mut binding, client.as_bytes());
    binding
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{DEFAULT_STATE_TTL, Seal, Sealed, Unsealed, binding};
    use crate::context::Caller;

    fn args(value: serde_json::Value) -> rmcp::model::JsonObject {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn a_state_opens_only_for_the_call_and_caller_it_was_made_for() {
        let seal = Seal::random(DEFAULT_STATE_TTL).unwrap();
        let alice = Caller::new("alice", ["tools:destructive"]);
        let made_for = binding("delete_note", Some(&args(json!({"note_id": 1}))), &alice);
        let mut sealed = Sealed::default();
        sealed.asked.push(("confirm".into(), 0));
        let state = seal.seal(&made_for, &sealed);
        let opened = seal.open(&state, &made_for).unwrap();
        assert_eq!(opened.asked, [("confirm".to_owned(), 0)]);
        let same_reordered = binding(
            "delete_note",
            Some(&args(json!({"note_id": 1}))),
            &alice.clone(),
        );
        assert!(seal.open(&state, &same_reordered).is_ok());
        for other in [
            binding("delete_note", Some(&args(json!({"note_id": 2}))), &alice),
            binding("create_note", Some(&args(json!({"note_id": 1}))), &alice),
            binding(
                "delete_note",
                Some(&args(json!({"note_id": 1}))),
                &Caller::new("bob", ["tools:destructive"]),
            ),
            binding(
                "delete_note",
                Some(&args(json!({"note_id": 1}))),
                &Caller::anonymous(),
            ),
        ] {
            assert_eq!(seal.open(&state, &other).unwrap_err(), Unsealed::Invalid);
        }
        let mut tampered = state.clone().into_bytes();
        let last = tampered.len() - 1;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(
            seal.open(&tampered, &made_for).unwrap_err(),
            Unsealed::Invalid
        );
        let other_key = Seal::random(DEFAULT_STATE_TTL).unwrap();
        assert_eq!(
            other_key.open(&state, &made_for).unwrap_err(),
            Unsealed::Invalid
        );
    }

    #[test]
    fn the_binding_tells_apart_issuers_clients_and_field_boundaries() {
        let token = |claims: serde_json::Value| {
            let claims = claims.as_object().unwrap().clone();
            Caller::new("alice", ["tools:destructive"]).with_claims(claims)
        };
        let of = |caller: &Caller| binding("t", None, caller);
        let base = of(&token(json!({"iss": "https://a.example", "azp": "app-1"})));
        for other in [
            token(json!({"iss": "https://b.example", "azp": "app-1"})),
            token(json!({"iss": "https://a.example", "azp": "app-2"})),
            token(json!({"iss": "https://a.example", "client_id": "app-2"})),
            token(json!({"iss": "https://a.example"})),
        ] {
            assert_ne!(base, of(&other), "{other:?}");
        }
        // `client_id` stands for a missing `azp`.
        assert_eq!(
            of(&token(json!({"iss": "i", "client_id": "c"}))),
            of(&token(json!({"iss": "i", "azp": "c"})))
        );
        // A field cannot run into the next: issuer "ab" + subject "c" is not "a" + "bc".
        let split = |iss: &str, sub: &str| {
            let claims = json!({"iss": iss}).as_object().unwrap().clone();
            of(&Caller::new(sub, ["s"]).with_claims(claims))
        };
        assert_ne!(split("ab", "c"), split("a", "bc"));
        // A subject named "anonymous" is not the anonymous caller.
        assert_ne!(
            of(&Caller::new("anonymous", ["s"])),
            of(&Caller::anonymous())
        );
    }

    #[test]
    fn argument_order_does_not_change_the_binding() {
        let a = binding(
            "t",
            Some(&args(
                json!({"a": 1, "b": {"y": 2, "x": [1, {"q": 1, "p": 2}]}}),
            )),
            &Caller::anonymous(),
        );
        let b = binding(
            "t",
            Some(&args(
                json!({"b": {"x": [1, {"p": 2, "q": 1}], "y": 2}, "a": 1}),
            )),
            &Caller::anonymous(),
        );
        assert_eq!(a, b);
        let none = binding("t", None, &Caller::anonymous());
        let empty = binding("t", Some(&args(json!({}))), &Caller::anonymous());
        assert_eq!(none, empty);
    }

    #[test]
    fn an_expired_state_says_so_and_a_short_key_is_refused() {
        let seal = Seal::with_key(&[7u8; 32], std::time::Duration::from_millis(1)).unwrap();
        let made_for = binding("t", None, &Caller::anonymous());
        let state = seal.seal(&made_for, &Sealed::default());
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(seal.open(&state, &made_for).unwrap_err(), Unsealed::Expired);
        assert!(Seal::with_key(&[7u8; 16], DEFAULT_STATE_TTL).is_err());
        let replica = Seal::with_key(&[7u8; 32], DEFAULT_STATE_TTL).unwrap();
        let state = replica.seal(&made_for, &Sealed::default());
        let other = Seal::with_key(&[7u8; 32], DEFAULT_STATE_TTL).unwrap();
        assert!(
            other.open(&state, &made_for).is_ok(),
            "replicas share the key"
        );
    }
}

//! Makes keys and tokens for the interop tests: `mint DIR ISSUER AUDIENCE` writes
//! `DIR/jwks.json` (an RSA and an EC key) and `DIR/tokens.json` (a read, a write and a
//! destructive token for AUDIENCE, plus one for another audience, and two destructive ones
//! told apart by their groups and email).

use serde_json::json;
use toolsmith_tests::keys::{Key, claims, jwks};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, issuer, audience] = args.as_slice() else {
        eprintln!("usage: mint DIR ISSUER AUDIENCE");
        std::process::exit(2);
    };
    let (rsa, ec) = (Key::rsa("rsa-1"), Key::ec("ec-1"));
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("jwks.json"), jwks(&[&rsa, &ec])).unwrap();
    let tokens = json!({
        "read": rsa.sign(&claims(issuer, audience, "reader", "tools:read")),
        "write": ec.sign(&claims(issuer, audience, "writer", "tools:write")),
        "destructive": rsa.sign(&claims(issuer, audience, "admin", "tools:destructive")),
        "other_audience": rsa.sign(&claims(issuer, "https://other.example", "reader", "tools:read")),
        // Two callers of the same scope, told apart by what their tokens say of them (the
        // gateway's per-caller views).
        "admin_group": rsa.sign(&with(claims(issuer, audience, "ada", "tools:destructive"),
            json!({"groups": ["admins"], "email": "ada@example.com"}))),
        "staff": rsa.sign(&with(claims(issuer, audience, "eve", "tools:destructive"),
            json!({"groups": ["staff"], "email": "eve@elsewhere.test"}))),
    });
    std::fs::write(dir.join("tokens.json"), tokens.to_string()).unwrap();
}

/// `claims` with the fields of `extra` besides.
fn with(mut claims: serde_json::Value, extra: serde_json::Value) -> serde_json::Value {
    if let (Some(claims), Some(extra)) = (claims.as_object_mut(), extra.as_object()) {
        claims.extend(extra.clone());
    }
    claims
}

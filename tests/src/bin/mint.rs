//! Makes keys and tokens for the interop tests: `mint DIR ISSUER AUDIENCE` writes
//! `DIR/jwks.json` (an RSA and an EC key) and `DIR/tokens.json` (a read, a write and a
//! destructive token for AUDIENCE, plus one for another audience).

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
    });
    std::fs::write(dir.join("tokens.json"), tokens.to_string()).unwrap();
}

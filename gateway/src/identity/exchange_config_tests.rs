//! The `exchange` table of a server entry, read and checked.

use super::ExchangeEntry;
use crate::Config;

const REMOTE: &str = "[servers.tickets]\nurl = \"https://tickets.example/mcp\"\n";
const EXCHANGE: &str = "[servers.tickets.exchange]\ntoken_endpoint = \"https://idp.example/token\"\nclient_id = \"gateway\"\n";

fn read(extra: &str) -> Result<Config, String> {
    Config::from_toml(&format!("{REMOTE}{EXCHANGE}{extra}"))
}

#[test]
fn an_exchange_table_is_read_and_checked() {
    let entry: ExchangeEntry = toml::from_str("token_endpoint = \"https://idp.example/token\"\nclient_id = \"gateway\"\naudience = \"https://tickets.example/mcp\"\nscopes = [\"tickets:read\"]\nclient_secret = \"s3cret\"\n").unwrap();
    let exchange = entry.to_exchange();
    assert_eq!(exchange.scopes, ["tickets:read"]);
    assert_eq!(
        exchange.sent_resource(),
        Some("https://tickets.example/mcp")
    );
    assert_eq!(exchange.client_secret.as_deref(), Some("s3cret"));
    let keyed: ExchangeEntry = toml::from_str("token_endpoint = \"https://idp.example/token\"\nclient_id = \"gateway\"\nprivate_key = \"${file:/k.pem}\"\nkey_id = \"k1\"\nresource = \"https://r.example\"\nsubject_token_type = \"urn:ietf:params:oauth:token-type:jwt\"\n").unwrap();
    let exchange = keyed.to_exchange();
    assert_eq!(exchange.key_id.as_deref(), Some("k1"));
    assert_eq!(exchange.private_key.as_deref(), Some("${file:/k.pem}"));
    assert_eq!(exchange.sent_resource(), Some("https://r.example"));
    assert!(exchange.subject_token_type.ends_with(":jwt"));

    let config =
        read("audience = \"https://tickets.example/mcp\"\nclient_secret = \"s3cret\"\n").unwrap();
    let upstreams = config.upstreams();
    assert!(upstreams[0].is_per_caller(), "it acts as each caller");
    // Neither the configuration's nor the upstream's Debug shows the secret.
    assert!(!format!("{config:?}{:?}", upstreams[0]).contains("s3cret"));

    for (extra, expected) in [
        ("", "no client credentials"),
        (
            "client_secret = \"a\"\nprivate_key = \"b\"\n",
            "both `client_secret` and `private_key`",
        ),
        (
            "client_secret = \"a\"\ntoken_url = \"x\"\n",
            "unknown field `token_url`",
        ),
        (
            "client_secret = \"a\"\nkey_id = \"k\"\n",
            "`key_id` names a `private_key`",
        ),
    ] {
        let err = read(extra).unwrap_err();
        assert!(err.contains(expected), "{extra}: {err}");
    }
    let ftp = "[servers.t]\nurl = \"https://t/mcp\"\n[servers.t.exchange]\ntoken_endpoint = \"ftp://idp/token\"\nclient_id = \"g\"\nclient_secret = \"s\"\n";
    let err = Config::from_toml(ftp).unwrap_err();
    assert!(
        err.contains(
            "upstream 't': `exchange`: `token_endpoint` \"ftp://idp/token\" is not an http(s) URL"
        ),
        "{err}"
    );
    let plain = ftp.replace("ftp://idp", "http://idp.example");
    let err = Config::from_toml(&plain).unwrap_err();
    assert!(
        err.contains("`token_endpoint` \"http://idp.example/token\" is plain http: use https"),
        "{err}"
    );
    let local = ftp.replace("ftp://idp", "http://127.0.0.1:8080");
    assert!(Config::from_toml(&local).is_ok());
    let stdio = "[servers.t]\ncommand = \"a\"\n[servers.t.exchange]\ntoken_endpoint = \"https://idp/token\"\nclient_id = \"g\"\nclient_secret = \"s\"\n";
    let err = Config::from_toml(stdio).unwrap_err();
    assert!(
        err.contains("`exchange` needs a remote MCP server (`url`), or one started per caller"),
        "{err}"
    );
    let per_caller = stdio.replace("command = \"a\"", "command = \"a\"\nper_caller = true");
    assert!(Config::from_toml(&per_caller).is_ok());
    let api = stdio.replace("command = \"a\"", "openapi = \"a.yaml\"");
    let err = Config::from_toml(&api).unwrap_err();
    assert!(
        err.contains("`exchange` needs a remote MCP server"),
        "{err}"
    );
    let with_header = format!(
        "{REMOTE}headers = {{ authorization = \"Bearer x\" }}\n{EXCHANGE}client_secret = \"s\"\n"
    );
    let err = Config::from_toml(&with_header).unwrap_err();
    assert!(err.contains("leave it out of `headers`"), "{err}");
    let both = format!(
        "{REMOTE}{EXCHANGE}client_secret = \"s\"\n[servers.tickets.mint]\naudience = \"a\"\n"
    );
    let err = Config::from_toml(&both).unwrap_err();
    assert!(err.contains("both `exchange` and `mint`"), "{err}");
}

#[tokio::test]
async fn the_entrys_ca_file_is_trusted_for_its_token_endpoint() {
    let toml = "[servers.t]\nurl = \"https://t.example/mcp\"\nca_file = \"/no/such/ca.pem\"\n[servers.t.exchange]\ntoken_endpoint = \"https://idp.example/token\"\nclient_id = \"g\"\nclient_secret = \"s\"\n";
    let upstream = Config::from_toml(toml).unwrap().upstreams().remove(0);
    // The gateway's own token, at connect: the CA file is read first, and named.
    let Err(err) = upstream.connect().await else {
        panic!("connected with a CA file that is not there");
    };
    let err = err.to_string();
    assert!(
        err.starts_with("upstream 't': the gateway's own token request (client_credentials) at https://idp.example/token: the CA file /no/such/ca.pem cannot be read"),
        "{err}"
    );
}

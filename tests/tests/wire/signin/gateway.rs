//! `toolsmith gateway ... -- serve --http ... --signin-*`: the gateway signs users in as any
//! toolsmith server does, and its tokens open the upstream's tools by their hints.

use super::Signin;

#[tokio::test]
async fn the_gateway_signs_users_in_and_scopes_the_upstream_tools() {
    let config = std::env::temp_dir().join(format!(
        "toolsmith-signin-gateway-{}.json",
        std::process::id()
    ));
    let upstream = serde_json::json!({"mcpServers": {"notes": {"command": super::notes()}}});
    std::fs::write(&config, upstream.to_string()).unwrap();
    let toolsmith = toolsmith_tests::built("toolsmith-cli", "--bin", "toolsmith");
    let config = config.to_str().unwrap();
    let before = ["gateway", "--config", config, "--"];
    let signin = Signin::launch(toolsmith.to_str().unwrap(), &before, "alice", &[]).await;
    let metadata = signin.json("/.well-known/oauth-authorization-server").await;
    assert_eq!(metadata["issuer"], signin.issuer.as_str());
    let tokens = signin.tokens(&["tools:read"]).await;
    let names = signin.tool_names(&tokens.access).await;
    assert!(
        names.contains(&"notes_search_notes".to_owned()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"notes_delete_note".to_owned()),
        "a read-only grant: {names:?}"
    );
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "notes_delete_note", "arguments": {"note_id": 1}}});
    let response = signin.mcp(&tokens.access, &call).await;
    assert_eq!(response.status, 403, "{}", response.body);
    let challenge = response.header("www-authenticate").unwrap_or_default();
    assert!(
        challenge.contains("scope=\"tools:destructive\""),
        "{challenge}"
    );
}

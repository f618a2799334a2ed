//! The configuration file: what it reads, and each mistake it names.

use super::*;
use crate::upstream::Way;

#[test]
fn a_wrong_file_says_what_is_wrong() {
    let err = Config::from_json(r#"{"mcpServers": {}}"#).unwrap_err();
    assert!(err.contains("no upstream"), "{err}");
    let sse = r#"{"mcpServers": {"x": {"type": "sse", "url": "https://a/sse"}}}"#;
    assert!(Config::from_json(sse).unwrap_err().contains("old HTTP+SSE"));
    let ftp = r#"{"mcpServers": {"x": {"url": "ftp://a/mcp"}}}"#;
    assert!(
        Config::from_json(ftp)
            .unwrap_err()
            .contains("not an http(s) URL")
    );
    let both = r#"{"mcpServers": {"x": {"url": "https://a/mcp", "command": "b"}}}"#;
    assert!(Config::from_json(both).unwrap_err().contains("both"));
    let env = r#"{"mcpServers": {"x": {"url": "https://a/mcp", "env": {"K": "v"}}}}"#;
    assert!(Config::from_json(env).unwrap_err().contains("is remote"));
    let headers = r#"{"mcpServers": {"x": {"command": "a", "headers": {"K": "v"}}}}"#;
    assert!(
        Config::from_json(headers)
            .unwrap_err()
            .contains("started here")
    );
    let remote = r#"{"mcpServers": {"t": {"type": "http", "url": "https://a/mcp",
        "headers": {"Authorization": "Bearer x"}}}}"#;
    let upstreams = Config::from_json(remote).unwrap().upstreams();
    let shown = format!("{:?}", upstreams[0]);
    assert!(
        shown.contains("https://a/mcp") && !shown.contains("Bearer"),
        "{shown}"
    );
    let err = Config::from_json(r#"{"mcpServers": {"x": {"args": []}}}"#).unwrap_err();
    assert!(err.contains("no `command`"), "{err}");
    let err = Config::from_toml("[servers.x]\ncommand = \"a\"\ncomand = \"b\"\n").unwrap_err();
    assert!(err.contains("comand"), "{err}");
    let err =
        Config::from_toml("[servers.x]\ncommand = \"a\"\ncall_timeout_secs = 0\n").unwrap_err();
    assert!(err.contains("call_timeout_secs"), "{err}");
    let err = Config::from_toml("[servers.x]\ncommand = \"a\"\nrevision = \"2024\"\n").unwrap_err();
    assert!(
        err.contains("`revision` \"2024\"") && err.contains("2026-07-28"),
        "{err}"
    );
    let err =
        Config::from_toml("[servers.x]\ncommand = \"a\"\nlist_timeout_secs = 0\n").unwrap_err();
    assert!(err.contains("`list_timeout_secs` is 0"), "{err}");
    let listed = Config::from_toml("[servers.x]\ncommand = \"a\"\nlist_timeout_secs = 5\n");
    assert_eq!(listed.unwrap().upstreams()[0].list_timeout.as_secs(), 5);
    let config = Config::from_toml("[servers.x]\ncommand = \"a\"\nrevision = \"2026-07-28\"\n");
    assert!(config.unwrap().upstreams()[0].discover);
    let err =
        Config::from_toml("[servers.x]\ncommand = \"a\"\nca_file = \"ca.pem\"\n").unwrap_err();
    assert!(err.contains("`ca_file` is a remote server's"), "{err}");
    let remote = "[servers.x]\nurl = \"https://a/mcp\"\nca_file = \"/etc/ca.pem\"\n";
    let upstreams = Config::from_toml(remote).unwrap().upstreams();
    assert_eq!(
        upstreams[0].ca_file.as_deref(),
        Some(Path::new("/etc/ca.pem"))
    );
}

#[test]
fn a_per_caller_entry_is_checked() {
    let entry = "[servers.b]\ncommand = \"b\"\nper_caller = true\nmax_callers = 2\nidle_secs = 9\nenv = { HOME = \"/home/${caller.subject}\" }\n";
    let upstreams = Config::from_toml(entry).unwrap().upstreams();
    let limits = upstreams[0].per_caller_limits().unwrap();
    assert_eq!(
        (limits.max_sessions(), limits.idle_after().as_secs()),
        (2, 9)
    );
    let stray = "[servers.b]\ncommand = \"b\"\nmax_callers = 2\n";
    let err = Config::from_toml(stray).unwrap_err();
    assert!(err.contains("add `per_caller = true`"), "{err}");
    let shared = "[servers.b]\ncommand = \"b\"\nenv = { U = \"${caller.subject}\" }\n";
    let err = Config::from_toml(shared).unwrap_err();
    assert!(err.contains("names the caller"), "{err}");
    let zero = "[servers.b]\ncommand = \"b\"\nper_caller = true\nmax_callers = 0\n";
    assert!(
        Config::from_toml(zero)
            .unwrap_err()
            .contains("`max_callers` is 0")
    );
    let tokenless =
        "[servers.b]\ncommand = \"b\"\nper_caller = true\nenv = { T = \"${caller.token}\" }\n";
    let err = Config::from_toml(tokenless).unwrap_err();
    assert!(err.contains("add `exchange` or `mint`"), "{err}");
    let api = "[servers.b]\nopenapi = \"a.yaml\"\nper_caller = true\n";
    assert!(
        Config::from_toml(api)
            .unwrap_err()
            .contains("no session to keep")
    );
}

#[test]
fn an_http_api_entry_is_checked() {
    let api = "[servers.pets]\nopenapi = \"pets.yaml\"\nbase_url = \"http://127.0.0.1:1\"\ncredentials = { key = \"${PETS_KEY}\" }\nmethods = [\"GET\"]\n";
    let upstreams = Config::from_toml(api).unwrap().upstreams();
    let shown = format!("{:?}", upstreams[0]);
    assert!(
        shown.contains("pets.yaml") && !shown.contains("PETS_KEY"),
        "{shown}"
    );
    let both = "[servers.x]\nopenapi = \"a.yaml\"\ncommand = \"b\"\n";
    assert!(
        Config::from_toml(both)
            .unwrap_err()
            .contains("`openapi` and `command`")
    );
    let headers = "[servers.x]\nopenapi = \"a.yaml\"\nheaders = { K = \"v\" }\n";
    assert!(
        Config::from_toml(headers)
            .unwrap_err()
            .contains("`credentials`")
    );
    let zero = "[servers.x]\nopenapi = \"a.yaml\"\nmax_document_bytes = 0\n";
    assert!(
        Config::from_toml(zero)
            .unwrap_err()
            .contains("`max_document_bytes` is 0")
    );
    let api = "[servers.x]\nopenapi = \"https://d/o.json\"\nmax_document_bytes = 9\nallow_cross_origin_servers = true\n";
    let server = &Config::from_toml(api).unwrap().servers["x"];
    let api = server.api("https://d/o.json");
    assert!(api.max_document == 9 && api.cross_origin_servers);
    let stray = "[servers.x]\ncommand = \"a\"\nallow_cross_origin_servers = true\n";
    assert!(
        Config::from_toml(stray)
            .unwrap_err()
            .contains("`allow_cross_origin_servers` is an HTTP API's")
    );
    let stray = "[servers.x]\ncommand = \"a\"\nbase_url = \"http://h\"\n";
    assert!(
        Config::from_toml(stray)
            .unwrap_err()
            .contains("`base_url` is an HTTP API's")
    );
}

#[test]
fn a_claude_desktop_file_is_taken_as_it_is() {
    let desktop = r#"{
        "globalShortcut": "Ctrl+Space",
        "preferences": {"quickEntryShortcut": "off"},
        "mcpServers": {"memory": {"command": "npx", "args": ["-y", "m"],
                                  "disabled": false, "autoApprove": []}}
    }"#;
    let upstreams = Config::from_json(desktop).unwrap().upstreams();
    assert_eq!(upstreams[0].name(), "memory");
}

#[test]
fn an_unknown_key_in_toml_is_an_error_naming_it_and_the_known_ones() {
    let typo = "[servers.shell]\ncommand = \"a\"\nper_calller = true\n";
    let err = Config::from_toml(typo).unwrap_err();
    assert!(
        err.starts_with(
            "upstream 'shell': unknown key `per_calller`: the keys of an entry are `command`, "
        ) && err.contains("`per_caller`"),
        "{err}"
    );
    let top = "globalShortcut = \"x\"\n[servers.a]\ncommand = \"a\"\n";
    let err = Config::from_toml(top).unwrap_err();
    assert!(err.contains("unknown key `globalShortcut`"), "{err}");
    // A mistake inside a table of the gateway's own stays an error in either format.
    let mint = r#"{"mcpServers": {"a": {"url": "https://a/mcp", "mint": {"audiense": "x"}}}}"#;
    assert!(Config::from_json(mint).unwrap_err().contains("audiense"));
}

#[test]
fn a_files_relative_paths_are_taken_from_its_folder() {
    let dir = std::env::temp_dir().join(format!("toolsmith-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("gateway.toml");
    let toml = r#"
        [servers.api]
        openapi = "api.yaml"
        ca_file = "certs/ca.pem"
        credentials = { key = "${file:keys/api}", other = "${file:/abs/key}" }

        [servers.remote]
        url = "https://a/mcp"
        headers = { Authorization = "Bearer ${file:token} ${HOME}" }

        [servers.fetched]
        openapi = "https://api.example/openapi.json"
    "#;
    std::fs::write(&path, toml).unwrap();
    let read = Config::from_path(&path).unwrap().upstreams();
    let Way::OpenApi(api) = &read[0].way else {
        panic!("{:?}", read[0])
    };
    assert_eq!(api.document, dir.join("api.yaml").display().to_string());
    assert_eq!(read[0].ca_file.as_deref(), Some(&*dir.join("certs/ca.pem")));
    let key = format!("${{file:{}}}", dir.join("keys/api").display());
    assert_eq!(api.credentials["key"], key);
    assert_eq!(api.credentials["other"], "${file:/abs/key}");
    let Way::OpenApi(fetched) = &read[1].way else {
        panic!("{:?}", read[1])
    };
    assert_eq!(fetched.document, "https://api.example/openapi.json");
    let Way::Http { headers, .. } = &read[2].way else {
        panic!("{:?}", read[2])
    };
    let token = format!("Bearer ${{file:{}}} ${{HOME}}", dir.join("token").display());
    assert_eq!(headers[0].1, token);
    // Read from a text, a relative path is the working directory's.
    let api = Config::from_toml(toml).unwrap().upstreams();
    let Way::OpenApi(api) = &api[0].way else {
        panic!("{:?}", api[0])
    };
    assert_eq!(api.document, "api.yaml");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn include_and_exclude_choose_an_upstreams_tools_by_name() {
    let toml = r#"
        [servers.notes]
        command = "notes-mcp"
        include = ["search_*", "get_note"]
        exclude = ["*_all"]
    "#;
    let upstreams = Config::from_toml(toml).unwrap().upstreams();
    let (include, exclude) = upstreams[0].chosen_tools();
    assert_eq!(include, ["search_*", "get_note"]);
    assert_eq!(exclude, ["*_all"]);
    let json = r#"{"mcpServers": {"notes": {"command": "n", "exclude": ["delete_*"]}}}"#;
    let upstreams = Config::from_json(json).unwrap().upstreams();
    assert_eq!(upstreams[0].chosen_tools().1, ["delete_*"]);
}

//! Resources, templates, prompts and completions answer alike on every path: the fast paths
//! leave these methods to rmcp's loop, which runs them through the pipeline, so the four
//! transcripts must agree (between revisions, once 2026-07-28's additions are taken out).

use serde_json::{Value, json};

use crate::harness::{Await, Path, Send, Step, normalise_2026, request, run};

fn script(path: Path) -> Vec<Step> {
    let steps = [
        (1, "resources/list", json!({})),
        (2, "resources/templates/list", json!({})),
        (3, "prompts/list", json!({})),
        (4, "resources/read", json!({"uri": "fixture://motd"})),
        (5, "resources/read", json!({"uri": "fixture://numbers/12"})),
        (6, "resources/read", json!({"uri": "fixture://numbers/13"})),
        (7, "resources/read", json!({"uri": "fixture://numbers/666"})),
        (
            8,
            "resources/read",
            json!({"uri": "fixture://numbers/5000"}),
        ),
        (9, "resources/read", json!({"uri": "fixture://numbers/x"})),
        (10, "resources/read", json!({"uri": "fixture://nothing"})),
        (11, "resources/read", json!({"uri": "fixture://bytes/3"})),
        (12, "resources/read", json!({"uri": "fixture://slow"})),
        (
            13,
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        ),
        (14, "prompts/get", json!({"name": "greet"})),
        (15, "prompts/get", json!({"name": "broken"})),
        (16, "prompts/get", json!({"name": "nope"})),
        (
            17,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "spell"}, "argument": {"name": "word", "value": "a"}}),
        ),
        (
            18,
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "fixture://numbers/{n}"}, "argument": {"name": "n", "value": "4"}}),
        ),
        (
            19,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "style", "value": "w"}, "context": {"arguments": {"name": "Ada"}}}),
        ),
        (20, "resources/read", json!({"uri": "fixture://pixel"})),
        (21, "resources/read", json!({"uri": "fixture://release"})),
        (
            22,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "fragile"}, "argument": {"name": "x", "value": ""}}),
        ),
        (
            23,
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "fixture://numbers/7"}, "argument": {"name": "n", "value": "7"}}),
        ),
    ];
    let mut script = Vec::new();
    for (id, method, params) in steps {
        script.push(Send(request(path, id, method, params)));
        script.push(Await(id));
    }
    script
}

#[tokio::test]
async fn resources_prompts_and_completions_answer_alike_on_every_path() {
    let (fast, rmcp, stateless, stateless_rmcp) = tokio::join!(
        run(Path::Fast, &[], script(Path::Fast)),
        run(Path::Rmcp, &[], script(Path::Rmcp)),
        run(Path::Stateless, &[], script(Path::Stateless)),
        run(Path::StatelessRmcp, &[], script(Path::StatelessRmcp)),
    );
    let r = fast.responses();
    let result = |id: &str| &r[id]["result"];
    let error = |id: &str| &r[id]["error"];
    // Anchors, so that the paths cannot agree on something broken.
    let uris: Vec<&str> = result("1")["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert!(
        uris.contains(&"fixture://motd") && uris.contains(&"fixture://ledger"),
        "{uris:?}"
    );
    let templates = &result("2")["resourceTemplates"];
    assert!(
        templates
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["uriTemplate"] == "fixture://numbers/{n}")
    );
    assert_eq!(
        result("4")["contents"],
        json!([{"uri": "fixture://motd", "mimeType": "text/plain", "text": "Be kind."}])
    );
    assert_eq!(
        result("5")["contents"][0]["text"],
        "{\"n\":12,\"square\":144}"
    );
    assert_eq!(error("6")["message"], "13 is unlucky.");
    assert_eq!(error("6")["data"]["dev.toolsmith/error"], "tool");
    assert_eq!(
        error("7")["message"],
        "Error in resource 'number'",
        "masked"
    );
    assert_eq!(error("8")["code"], -32002);
    assert_eq!(error("9")["code"], -32602);
    assert_eq!(error("10")["code"], -32002);
    assert_eq!(result("11")["contents"][0]["blob"], "AAEC");
    assert_eq!(
        error("12")["message"],
        "resource 'slow_resource' timed out after 100ms"
    );
    assert_eq!(
        result("13")["messages"][0]["content"]["text"],
        "Greet Ada, warmly."
    );
    assert_eq!(result("13")["messages"][1]["role"], "assistant");
    assert_eq!(error("14")["code"], -32602);
    let missing = error("14")["message"].as_str().unwrap();
    assert!(
        missing.contains("missing required argument `name`"),
        "{missing}"
    );
    assert_eq!(error("15")["message"], "This prompt is broken.");
    assert_eq!(error("16")["code"], -32602);
    let capped = &result("17")["completion"];
    assert_eq!(capped["values"].as_array().unwrap().len(), 100);
    assert_eq!(
        (capped["total"].clone(), capped["hasMore"].clone()),
        (json!(150), json!(true))
    );
    assert_eq!(result("18")["completion"]["values"][0], "40");
    assert_eq!(result("19")["completion"]["values"], json!(["formal"]));
    assert_eq!(result("20")["contents"][0]["mimeType"], "image/png");
    assert_eq!(
        result("21")["contents"],
        json!([{"uri": "fixture://release", "mimeType": "text/markdown", "text": "# 1.0",
                "_meta": {"lastModified": "2023-11-14T22:13:20Z"}}])
    );

    assert_eq!(
        error("22")["message"],
        "Error completing 'x'",
        "a panic is masked"
    );
    assert_eq!(error("22")["data"]["dev.toolsmith/error"], "failed");
    assert_eq!(
        result("23")["completion"]["values"][0],
        "70",
        "a URI the template matches"
    );
    assert_eq!(r, rmcp.responses(), "fast path and rmcp's loop");
    let r_codes: Vec<(String, Value)> = r
        .iter()
        .map(|(id, response)| (id.clone(), response["error"]["code"].clone()))
        .collect();
    let modern = stateless.responses();
    assert_eq!(
        modern,
        stateless_rmcp.responses(),
        "2026-07-28: fast path and rmcp's loop"
    );
    let mut modern: std::collections::BTreeMap<String, Value> = modern;
    for (id, response) in modern.iter_mut() {
        // 2026-07-28 answers a resource that is not found with -32602 (its `Resource not
        // found` code is the standard one); earlier revisions with -32002.
        if response["error"]["code"] == -32602 && legacy_code(&r_codes, id) == Some(-32002) {
            response["error"]["code"] = json!(-32002);
        }
        // A read is cacheable on 2026-07-28: the caching hints say not to keep it (a
        // resource may change at any time), for this caller only.
        if let Some(result) = response.get_mut("result").and_then(Value::as_object_mut)
            && result.contains_key("contents")
        {
            assert_eq!(result.remove("ttlMs"), Some(json!(0)), "{id}");
            assert_eq!(result.remove("cacheScope"), Some(json!("private")), "{id}");
        }
    }
    normalise_2026(&mut modern, &["1", "2", "3"]);
    let mut legacy = r;
    legacy.remove("0");
    assert_eq!(legacy, modern, "2025-11-25 and 2026-07-28");
}

fn legacy_code(codes: &[(String, Value)], id: &str) -> Option<i64> {
    codes.iter().find(|(i, _)| i == id)?.1.as_i64()
}

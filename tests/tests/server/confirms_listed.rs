//! `tools/list` says which tools the user is asked to confirm (`_meta`
//! `dev.toolsmith/confirms`), so that a gateway in front of the server does not ask again:
//! those that declare it, those the `--confirm` policy covers, and those whose calls go on to
//! a server that confirms them itself; the policy does not ask before the last.

use serde_json::json;
use toolsmith::rmcp::model::JsonObject;
use toolsmith::server::Confirm;
use toolsmith::testing::{Answer, Client};
use toolsmith::tool::{META_CONFIRMS, ToolFuture, ToolOutput};
use toolsmith::{CallContext, Hints, Registry, Server, Tool, ToolDescription};

/// A tool made at run time: its hints, whether it confirms, whether its upstream does.
struct Made(&'static str, Hints, bool, bool);

impl Tool for Made {
    fn describe(&self) -> ToolDescription {
        let schema = json!({"type": "object"}).as_object().cloned().unwrap();
        ToolDescription::new(self.0, "A tool made at run time.", schema, self.1)
            .with_confirms(self.2)
            .with_upstream_confirms(self.3)
    }
    fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
        Box::pin(async { Ok(ToolOutput::new().text("done")) })
    }
}

fn registry() -> Registry {
    let destructive = Hints::DESTRUCTIVE.closed_world();
    Registry::new()
        .with_tool(Made("read", Hints::READ_ONLY, false, false))
        .and_then(|r| r.with_tool(Made("wipe", destructive, false, false)))
        .and_then(|r| r.with_tool(Made("reveal", Hints::READ_ONLY, true, false)))
        .and_then(|r| r.with_tool(Made("forward", destructive, false, true)))
        .unwrap()
}

/// The names of the tools `server` lists as confirmed, and the questions a call of each
/// tool makes the client answer.
async fn confirmed(server: Server) -> (Vec<String>, Vec<(String, usize)>) {
    let asked = std::sync::Arc::new(std::sync::Mutex::new(0));
    let seen = asked.clone();
    let client = Client::connect(server).await.unwrap().on_confirm(move |_| {
        *seen.lock().unwrap() += 1;
        Answer::Accept
    });
    let mut listed: Vec<String> = Vec::new();
    let mut questions = Vec::new();
    for tool in client.list_tools().await.unwrap() {
        let says = tool.meta.as_ref().and_then(|meta| meta.get(META_CONFIRMS));
        if says == Some(&json!(true)) {
            listed.push(tool.name.to_string());
        }
        let before = *asked.lock().unwrap();
        client.call(&tool.name, json!({})).await.unwrap();
        questions.push((tool.name.to_string(), *asked.lock().unwrap() - before));
    }
    listed.sort();
    questions.sort();
    (listed, questions)
}

#[tokio::test]
async fn the_listing_says_which_tools_are_confirmed_and_the_policy_asks_once() {
    let (listed, questions) = confirmed(Server::with_registry(registry())).await;
    assert_eq!(listed, ["forward", "reveal"]);
    let asked = |pairs: &[(&str, usize)]| -> Vec<(String, usize)> {
        pairs.iter().map(|(n, c)| (n.to_string(), *c)).collect()
    };
    assert_eq!(
        questions,
        asked(&[("forward", 0), ("read", 0), ("reveal", 1), ("wipe", 0)])
    );
    // Under `--confirm destructive` the destructive tool is confirmed too, but not the one
    // whose upstream asks itself: its user answers the upstream's question only.
    let server = Server::with_registry(registry()).confirm(Confirm::Destructive);
    let (listed, questions) = confirmed(server).await;
    assert_eq!(listed, ["forward", "reveal", "wipe"]);
    assert_eq!(
        questions,
        asked(&[("forward", 0), ("read", 0), ("reveal", 1), ("wipe", 1)])
    );
}

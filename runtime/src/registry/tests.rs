//! A registry changed one tool at a time is the registry built at once.

use rmcp::model::JsonObject;

use crate::context::CallContext;
use crate::tool::{ToolFuture, ToolOutput};
use crate::{Hints, Registry, Tool};

struct Numbered(String);

impl Tool for Numbered {
    fn name(&self) -> &str {
        &self.0
    }
    fn description(&self) -> &str {
        "A numbered tool."
    }
    fn input_schema(&self) -> JsonObject {
        JsonObject::from_iter([("type".to_owned(), "object".into())])
    }
    fn hints(&self) -> Hints {
        Hints::READ_ONLY
    }
    fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
        Box::pin(async { Ok(ToolOutput::new().text("ok")) })
    }
}

#[test]
fn tools_added_and_removed_one_by_one_keep_order_index_and_fingerprint() {
    let names: Vec<String> = [7, 2, 10, 1, 30, 3]
        .iter()
        .map(|n| format!("tool_{n}"))
        .collect();
    let mut one_by_one = Registry::new();
    for name in &names {
        one_by_one.add_tool(Numbered(name.clone())).unwrap();
    }
    let listed: Vec<&str> = one_by_one.tools().iter().map(|t| t.name()).collect();
    assert_eq!(
        listed,
        ["tool_1", "tool_10", "tool_2", "tool_3", "tool_30", "tool_7"]
    );
    assert!(
        names
            .iter()
            .all(|n| one_by_one.get(n).is_some_and(|t| t.name() == n))
    );
    // The same set, indexed at once: the same fingerprint (list cursors stay valid).
    let at_once = one_by_one.clone().retain_tools(|_| true);
    assert_eq!(one_by_one.fingerprint(), at_once.fingerprint());

    let before = one_by_one.fingerprint();
    assert_eq!(one_by_one.remove_tool("tool_2").unwrap().name(), "tool_2");
    assert!(one_by_one.get("tool_2").is_none() && one_by_one.remove_tool("tool_2").is_none());
    assert_ne!(
        one_by_one.fingerprint(),
        before,
        "a cursor of the set before is refused"
    );
    let listed: Vec<&str> = one_by_one.tools().iter().map(|t| t.name()).collect();
    assert_eq!(listed, ["tool_1", "tool_10", "tool_3", "tool_30", "tool_7"]);
    assert_eq!(one_by_one.get("tool_30").unwrap().name(), "tool_30");
    one_by_one.add_tool(Numbered("tool_2".into())).unwrap();
    assert_eq!(one_by_one.fingerprint(), before, "the same set again");
    assert!(one_by_one.add_tool(Numbered("tool_2".into())).is_err());
    assert_eq!(one_by_one.len(), names.len());
}

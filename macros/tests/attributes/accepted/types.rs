use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolsmith::{ToolError, tool};

#[derive(Deserialize, Serialize, JsonSchema)]
pub(crate) enum Colour {
    Red,
    Green,
}

#[derive(Deserialize, JsonSchema)]
struct Filter {
    colour: Colour,
    limit: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
struct Page {
    items: Vec<String>,
}

/// Every kind of parameter.
#[tool(read_only)]
fn params(
    filter: Filter,
    labels: Vec<String>,
    weights: BTreeMap<String, f64>,
    note: Option<String>,
    mut counter: u8,
    r#type: Option<Colour>,
) -> Page {
    counter += 1;
    let _ = (
        filter.colour,
        filter.limit,
        labels,
        weights,
        note,
        counter,
        r#type,
    );
    Page { items: vec![] }
}

/// An io::Result alias.
#[tool(read_only)]
fn alias() -> std::io::Result<String> {
    Ok(String::new())
}

/// A unit result with a ToolError.
#[tool(destructive = false)]
async fn unit_result() -> Result<(), ToolError> {
    Ok(())
}

/// A boxed error.
#[tool(read_only)]
async fn boxed() -> Result<Vec<Colour>, Box<dyn std::error::Error + Send + Sync>> {
    Ok(vec![Colour::Red, Colour::Green])
}

/// A plain enum result.
#[tool(read_only)]
pub(crate) fn colour() -> Colour {
    Colour::Green
}

#[test]
fn compiles_and_works() {
    let schema = toolsmith::Registry::global()
        .get("params")
        .unwrap()
        .input_schema();
    assert_eq!(
        schema["required"],
        serde_json::json!(["filter", "labels", "weights", "counter"])
    );
    assert!(schema["properties"].get("type").is_some());
    let _ = alias();
    let _ = colour();
    drop(unit_result());
    drop(boxed());
}

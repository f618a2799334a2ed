//! Tools made at run time, as many as asked for: each with its own name, description, a
//! three-parameter schema and hints that vary with its number (so a search by hint keeps some
//! and drops others).

use rmcp::model::JsonObject;
use toolsmith::tool::{ToolFuture, ToolOutput};
use toolsmith::{CallContext, Hints, Registry, Tool, ToolDescription, ToolError};

/// Tool `n` of a generated set.
pub struct Generated {
    name: String,
    description: String,
    n: usize,
}

impl Generated {
    pub fn new(n: usize) -> Generated {
        Generated {
            name: format!("tool_{n}"),
            description: format!(
                "Adds `a` and `b` (generated tool {n}); echoes `label`. Category {}.",
                n % 10
            ),
            n,
        }
    }
}

impl Tool for Generated {
    fn describe(&self) -> ToolDescription {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "The first number."},
                "b": {"type": "integer", "description": "The second number."},
                "label": {"type": "string", "description": "An optional label to echo."}
            },
            "required": ["a", "b"],
        });
        let hints = Hints {
            read_only: self.n.is_multiple_of(2),
            destructive: self.n % 4 == 1,
            idempotent: self.n.is_multiple_of(3),
            open_world: self.n.is_multiple_of(5),
        };
        let schema = schema.as_object().cloned().unwrap_or_default();
        ToolDescription::new(&self.name, &self.description, schema, hints)
    }

    fn call(&self, arguments: JsonObject, _context: &CallContext) -> ToolFuture {
        let n = self.n;
        Box::pin(async move {
            let number = |key: &str| arguments.get(key).and_then(|v| v.as_i64());
            let (Some(a), Some(b)) = (number("a"), number("b")) else {
                return Err(ToolError::new("give `a` and `b`, integers"));
            };
            Ok(ToolOutput::new().text(format!("{{\"tool\":{n},\"sum\":{}}}", a.wrapping_add(b))))
        })
    }
}

/// A registry of `tools` generated tools, `tool_0` to `tool_{tools-1}`.
pub fn registry(tools: usize) -> Registry {
    let mut registry = Registry::new();
    for n in 0..tools {
        registry
            .add_tool(Generated::new(n))
            .expect("generated names are unique and valid");
    }
    registry
}

//! Every rule of the audit, with its source, and the audit itself.

use serde_json::Value;

use crate::finding::{Finding, Rule, Severity};

mod hints;
mod icons;
mod names;
mod portable;
mod schema;
mod text;

const SPEC_ANNOTATIONS: &str = "MCP specification 2025-11-25, schema: ToolAnnotations \
    (https://modelcontextprotocol.io/specification/2025-11-25/schema#toolannotations)";
const DIRECTORIES: &str = "Anthropic's Connectors Directory review (missing or wrong annotations \
    are its most frequent rejection) and OpenAI's Apps SDK submission (readOnlyHint, \
    destructiveHint and openWorldHint on every tool, https://developers.openai.com/apps-sdk/reference)";
const SEP_986: &str = "SEP-986, MCP specification 2025-11-25, Tools: tool names \
    (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names)";
const INSPECTOR: &str = "MCP Inspector 2.12.0 `--strict` (core/json/schemaLint.ts)";

/// Every rule, in the order reports list them.
///
/// ```
/// let codes: Vec<&str> = toolsmith_audit::RULES.iter().map(|r| r.code).collect();
/// assert!(codes.contains(&"verb-destructive"));
/// ```
pub const RULES: &[Rule] = &[
    Rule {
        code: "hints-missing",
        severity: Severity::Error,
        summary: "Neither readOnlyHint nor destructiveHint is stated.",
        source: DIRECTORIES,
    },
    Rule {
        code: "hints-incomplete",
        severity: Severity::Error,
        summary: "readOnlyHint or destructiveHint is not stated explicitly.",
        source: DIRECTORIES,
    },
    Rule {
        code: "hints-contradictory",
        severity: Severity::Error,
        summary: "The tool is declared both read-only and destructive.",
        source: SPEC_ANNOTATIONS,
    },
    Rule {
        code: "verb-destructive",
        severity: Severity::Error,
        summary: "The name has a destructive verb (delete, remove, drop, ...) but the hints say read-only or not destructive.",
        source: "toolsmith-infer's verb rules (the #[tool] name lint), on the hints of MCP's ToolAnnotations",
    },
    Rule {
        code: "verb-read",
        severity: Severity::Warning,
        summary: "The name has a read verb (get, list, search, ...) but the tool is not declared read-only.",
        source: "toolsmith-infer's verb rules (the #[tool] name lint), on the hints of MCP's ToolAnnotations",
    },
    Rule {
        code: "verb-write",
        severity: Severity::Error,
        summary: "The name has an updating verb (update, set, create, send, ...) but the tool is declared read-only.",
        source: "toolsmith-infer's tokens of the name, on the hints of MCP's ToolAnnotations",
    },
    Rule {
        code: "hints-stamped",
        severity: Severity::Warning,
        summary: "Tools carry one identical hint block although their names both read and write.",
        source: "stamped default annotations, as reported in codebase-memory-mcp#2118; MCP's ToolAnnotations are per tool",
    },
    Rule {
        code: "open-world-unstated",
        severity: Severity::Note,
        summary: "openWorldHint is not stated (it defaults to true).",
        source: "OpenAI's Apps SDK submission asks for openWorldHint on every tool; MCP ToolAnnotations default",
    },
    Rule {
        code: "title-missing",
        severity: Severity::Warning,
        summary: "The tool has no human-readable title.",
        source: "MCP specification 2025-11-25, Tool.title and ToolAnnotations.title; directory listings show titles",
    },
    Rule {
        code: "description-missing",
        severity: Severity::Error,
        summary: "The tool has no description.",
        source: "MCP specification 2025-11-25, Tool.description; every directory review asks what a tool does",
    },
    Rule {
        code: "description-short",
        severity: Severity::Warning,
        summary: "The description is too short to tell a model what the tool does.",
        source: "MCP specification 2025-11-25, Tool.description (\"a hint to the model\")",
    },
    Rule {
        code: "name-length",
        severity: Severity::Error,
        summary: "The name is empty or longer than 128 characters.",
        source: SEP_986,
    },
    Rule {
        code: "name-characters",
        severity: Severity::Error,
        summary: "The name has characters other than A-Z a-z 0-9 _ - .",
        source: SEP_986,
    },
    Rule {
        code: "name-duplicate",
        severity: Severity::Error,
        summary: "Two tools of the listing (on any page) have the same name.",
        source: SEP_986,
    },
    Rule {
        code: "name-model-api",
        severity: Severity::Note,
        summary: "The name is valid MCP but does not fit model APIs' function names (^[a-zA-Z0-9_-]{1,64}$).",
        source: "OpenAI function calling, function.name (a-z, A-Z, 0-9, _ and -, at most 64 characters)",
    },
    Rule {
        code: "input-schema-not-object",
        severity: Severity::Error,
        summary: "The input schema is not a JSON Schema with `type: object`.",
        source: "MCP specification 2025-11-25, Tool.inputSchema (type: \"object\")",
    },
    Rule {
        code: "output-schema-not-object",
        severity: Severity::Error,
        summary: "The output schema is not a JSON Schema with `type: object`.",
        source: "MCP specification 2025-11-25, Tool.outputSchema (type: \"object\")",
    },
    Rule {
        code: "schema-draft",
        severity: Severity::Warning,
        summary: "The schema names a `$schema` dialect other than JSON Schema 2020-12.",
        source: "SEP-1613, MCP specification 2025-11-25, JSON Schema usage (2020-12 is the default dialect)",
    },
    Rule {
        code: "schema-boolean",
        severity: Severity::Error,
        summary: "A bare `true`/`false` stands where a schema object is expected.",
        source: INSPECTOR,
    },
    Rule {
        code: "schema-type-union",
        severity: Severity::Warning,
        summary: "`type` is an array of types.",
        source: INSPECTOR,
    },
    Rule {
        code: "schema-null-union",
        severity: Severity::Warning,
        summary: "A value may be `null` (`type: [..., \"null\"]` or an `anyOf`/`oneOf` null branch).",
        source: "MCP Inspector 2.12.0 `--strict` (type-union; single-type dialects such as Gemini's OpenAPI subset have no `null`)",
    },
    Rule {
        code: "schema-remote-ref",
        severity: Severity::Warning,
        summary: "A `$ref` points outside the schema.",
        source: INSPECTOR,
    },
    Rule {
        code: "schema-untyped",
        severity: Severity::Warning,
        summary: "A subschema has no validation keyword at all.",
        source: INSPECTOR,
    },
    Rule {
        code: "icon-scheme",
        severity: Severity::Warning,
        summary: "An icon's URI is neither https: nor data:.",
        source: "SEP-973, MCP specification 2025-11-25, Icons: security (consumers should accept only https: and data: URIs)",
    },
    Rule {
        code: "listing-cut",
        severity: Severity::Warning,
        summary: "The server listed more tools than the audit reads (--max-tools): the rest were not audited.",
        source: "toolsmith audit's own bound on what it reads from a server",
    },
];

/// The rule with this code.
///
/// ```
/// assert!(toolsmith_audit::rule("schema-null-union").is_some());
/// assert!(toolsmith_audit::rule("no-such-rule").is_none());
/// ```
pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code == code)
}

impl Finding {
    /// A finding of the rule with this code (one of [`RULES`]).
    pub(crate) fn new(
        code: &str,
        tool: Option<&str>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Finding {
            rule: rule(code).unwrap_or_else(|| panic!("no rule {code}")),
            tool: tool.map(str::to_owned),
            path: None,
            message: message.into(),
            fix: fix.into(),
            accepted: false,
        }
    }
}

/// Audits a listing: `tools` are the `tools` of every `tools/list` page, in order, as JSON.
/// Nothing is called; only what the listing says is judged.
///
/// ```
/// use serde_json::json;
/// let tools = [json!({
///     "name": "delete_note",
///     "title": "Delete note",
///     "description": "Delete a note by its id; it cannot be restored.",
///     "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}},
///     "annotations": {"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false},
/// })];
/// let findings = toolsmith_audit::audit(&tools);
/// let codes: Vec<&str> = findings.iter().map(|f| f.rule.code).collect();
/// assert_eq!(codes, ["verb-destructive"]);
/// ```
pub fn audit(tools: &[Value]) -> Vec<Finding> {
    let mut findings = Vec::new();
    // Where each name was first seen: the duplicate check is one look-up, not a rescan.
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (index, tool) in tools.iter().enumerate() {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
        let first = *seen.entry(name).or_insert(index);
        names::check(
            name,
            index,
            (first != index).then_some(first),
            &mut findings,
        );
        hints::check(name, tool, &mut findings);
        text::check(name, tool, &mut findings);
        schema::check(name, tool, &mut findings);
        icons::check(name, tool, &mut findings);
    }
    hints::stamped(tools, &mut findings);
    findings.sort_by_cached_key(|f| {
        let position = RULES.iter().position(|r| r.code == f.rule.code);
        (std::cmp::Reverse(f.severity()), f.tool.is_some(), position)
    });
    findings
}

#[cfg(test)]
pub(crate) mod test_support {
    use serde_json::{Value, json};

    /// A tool that passes every rule.
    pub fn good(name: &str) -> Value {
        json!({
            "name": name,
            "title": "A good tool",
            "description": "Does one well described thing to a note.",
            "inputSchema": {
                "type": "object",
                "properties": {"id": {"type": "integer", "description": "The note's id."}},
                "required": ["id"],
            },
            "annotations": {
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false,
            },
        })
    }

    /// `good(name)` with `pointer`'s value set to `value` (`None` removes it).
    pub fn with(name: &str, key: &str, value: Option<Value>) -> Value {
        let mut tool = good(name);
        let (parent, last) = key.rsplit_once('/').unwrap_or(("", key));
        let target = if parent.is_empty() {
            &mut tool
        } else {
            tool.pointer_mut(parent).unwrap()
        };
        let object = target.as_object_mut().unwrap();
        match value {
            Some(value) => object.insert(last.to_owned(), value),
            None => object.remove(last),
        };
        tool
    }

    /// The codes `tools` are found to break.
    pub fn codes(tools: &[Value]) -> Vec<&'static str> {
        crate::audit(tools).iter().map(|f| f.rule.code).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;

    #[test]
    fn a_good_tool_has_no_finding() {
        assert_eq!(codes(&[good("get_note")]), Vec::<&str>::new());
    }

    #[test]
    fn every_rule_has_a_code_a_summary_and_a_source() {
        for rule in RULES {
            assert!(
                !rule.summary.is_empty() && !rule.source.is_empty(),
                "{rule:?}"
            );
            assert_eq!(RULES.iter().filter(|r| r.code == rule.code).count(), 1);
        }
    }

    #[test]
    fn errors_come_first() {
        let tools = [
            with("get_note", "description", None),
            with("x", "title", None),
        ];
        let findings = audit(&tools);
        assert_eq!(findings[0].severity(), Severity::Error, "{findings:?}");
        assert!(
            findings
                .windows(2)
                .all(|w| w[0].severity() >= w[1].severity())
        );
    }
}

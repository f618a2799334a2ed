//! One upstream tool as a toolsmith [`Tool`]: what it says of itself (under the upstream's
//! prefix), its hints with the specification's cautious defaults for what it leaves unstated,
//! and a call forwarded to the upstream, its result passed back unchanged.

use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, JsonObject};
use rmcp::service::RunningService;
use toolsmith::{CallContext, Content, Hints, Tool, ToolError, ToolFuture, ToolOutput};

/// A connected upstream, shared by its tools (it runs while one of them is held).
pub(crate) type Client = Arc<RunningService<RoleClient, ClientConfig>>;

pub(crate) struct Proxied {
    /// The name it is served under (the prefix, then the upstream's name).
    served: String,
    /// Its name at the upstream.
    upstream_name: String,
    title: Option<String>,
    description: String,
    input: JsonObject,
    output: Option<JsonObject>,
    hints: Hints,
    icons: Vec<String>,
    upstream: Arc<str>,
    client: Client,
    timeout: Option<Duration>,
}

impl Proxied {
    pub(crate) fn new(
        tool: rmcp::model::Tool,
        prefix: &str,
        upstream: Arc<str>,
        client: Client,
        timeout: Option<Duration>,
    ) -> Self {
        let annotations = tool.annotations.as_ref();
        let title = tool
            .title
            .clone()
            .or_else(|| annotations.and_then(|a| a.title.clone()));
        Proxied {
            served: format!("{prefix}{}", tool.name),
            upstream_name: tool.name.to_string(),
            title,
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            input: (*tool.input_schema).clone(),
            output: tool.output_schema.as_deref().cloned(),
            hints: hints_of(annotations),
            icons: tool
                .icons
                .iter()
                .flatten()
                .map(|icon| icon.src.clone())
                .collect(),
            upstream,
            client,
            timeout,
        }
    }
}

/// The hints an upstream states, each unstated one at the specification's default: not
/// read-only, destructive, not idempotent, open-world. A read-only tool is not destructive.
pub(crate) fn hints_of(annotations: Option<&rmcp::model::ToolAnnotations>) -> Hints {
    let stated =
        |hint: fn(&rmcp::model::ToolAnnotations) -> Option<bool>| annotations.and_then(hint);
    let read_only = stated(|a| a.read_only_hint).unwrap_or(false);
    Hints {
        read_only,
        destructive: !read_only && stated(|a| a.destructive_hint).unwrap_or(true),
        idempotent: stated(|a| a.idempotent_hint).unwrap_or(false),
        open_world: stated(|a| a.open_world_hint).unwrap_or(true),
    }
}

impl Tool for Proxied {
    fn name(&self) -> &str {
        &self.served
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> JsonObject {
        self.input.clone()
    }

    fn hints(&self) -> Hints {
        self.hints
    }

    fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    fn output_schema(&self) -> Option<JsonObject> {
        self.output.clone()
    }

    fn icons(&self) -> Vec<String> {
        self.icons.clone()
    }

    fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    fn origin(&self) -> String {
        format!(
            "tool '{}' of upstream '{}'",
            self.upstream_name, self.upstream
        )
    }

    fn call(&self, arguments: JsonObject, _context: &CallContext) -> ToolFuture {
        let client = self.client.clone();
        let upstream = self.upstream.clone();
        let params =
            CallToolRequestParams::new(self.upstream_name.clone()).with_arguments(arguments);
        Box::pin(async move {
            match client.peer().call_tool(params).await {
                Ok(result) => passed_back(result),
                Err(err) => Err(ToolError::new(format!(
                    "upstream '{upstream}' did not answer the call: {err}"
                ))),
            }
        })
    }
}

/// The upstream's result as this tool's: its blocks and structured content unchanged; an
/// error result becomes a tool error with its text.
fn passed_back(result: CallToolResult) -> Result<ToolOutput, ToolError> {
    if result.is_error == Some(true) {
        let text: Vec<&str> = result
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
            .collect();
        return Err(ToolError::new(text.join("\n")));
    }
    let mut output = ToolOutput::new();
    for block in result.content {
        output = output.block(Content::Block(block));
    }
    if let Some(structured) = result.structured_content {
        output = output.structured(structured);
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ToolAnnotations;

    #[test]
    fn unstated_hints_take_the_cautious_defaults() {
        assert_eq!(hints_of(None), Hints::DEFAULT);
        let mut read = ToolAnnotations::default();
        read.read_only_hint = Some(true);
        read.destructive_hint = Some(true);
        let hints = hints_of(Some(&read));
        assert!(hints.read_only && !hints.destructive, "{hints}");
        assert!(!hints.idempotent && hints.open_world, "unstated: {hints}");
        let mut additive = ToolAnnotations::default();
        additive.destructive_hint = Some(false);
        additive.open_world_hint = Some(false);
        assert_eq!(hints_of(Some(&additive)), Hints::ADDITIVE.closed_world());
    }
}

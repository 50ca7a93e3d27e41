//! A server's tool as a registry entry.

use std::rc::Rc;

use air_http::HttpClient;
use air_tools::{Annotations, CallContext, Content, Tool, ToolDef, ToolOutput, ToolSource};
use futures_util::future::LocalBoxFuture;
use serde_json::Value;

use crate::client::McpClient;

/// Whether this client can call a `tools/list` entry: not one that must
/// run as a task (`execution.taskSupport: "required"`), which this client
/// does not offer.
pub fn callable(tool: &Value) -> bool {
    tool.pointer("/execution/taskSupport").and_then(Value::as_str) != Some("required")
}

/// The registry's definition of a tool from `tools/list`: named
/// `registry_name` (see [`crate::names::tool_name`]), from `server`.
/// `None` for an entry without a name.
pub fn def_from(server: &str, registry_name: String, tool: &Value) -> Option<ToolDef> {
    let name = tool.get("name").and_then(Value::as_str)?;
    let description = tool.get("description").and_then(Value::as_str).or_else(|| tool.get("title").and_then(Value::as_str)).unwrap_or(name).to_owned();
    let input_schema = tool.get("inputSchema").filter(|s| s.is_object()).cloned().unwrap_or_else(|| serde_json::json!({"type": "object"}));
    let annotations: Annotations = tool.get("annotations").and_then(|a| serde_json::from_value(a.clone()).ok()).unwrap_or_default();
    Some(ToolDef { name: registry_name, description, input_schema, annotations, source: ToolSource::Mcp { server: server.to_owned() }, mcp: None })
}

/// A `tools/call` result as a tool output: text, images, links and
/// embedded resources; `isError` marks a failure the model is told about.
pub fn output_from(result: &Value) -> ToolOutput {
    let mut content = Vec::new();
    for item in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        let s = |k: &str| item.get(k).and_then(Value::as_str).map(str::to_owned);
        match item.get("type").and_then(Value::as_str) {
            Some("text") => content.push(Content::Text { text: s("text").unwrap_or_default() }),
            Some("image") => content.push(Content::Image { mime: s("mimeType").unwrap_or_else(|| "image/png".into()), data: s("data").unwrap_or_default() }),
            Some("audio") => content.push(Content::Audio { mime: s("mimeType").unwrap_or_else(|| "audio/wav".into()), data: s("data").unwrap_or_default() }),
            Some("resource_link") => content.push(Content::Link { uri: s("uri").unwrap_or_default(), name: s("name").or_else(|| s("title")) }),
            Some("resource") => {
                let r = item.get("resource");
                let field = |k: &str| r.and_then(|r| r.get(k)).and_then(Value::as_str).map(str::to_owned);
                match field("text") {
                    Some(text) => content.push(Content::Text { text }),
                    None => content.push(Content::Link { uri: field("uri").unwrap_or_default(), name: None }),
                }
            }
            _ => {}
        }
    }
    if content.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        content.push(Content::Text { text: structured.to_string() });
    }
    ToolOutput { content, is_error: result.get("isError").and_then(Value::as_bool).unwrap_or(false), structured: result.get("structuredContent").filter(|v| !v.is_null()).cloned(), files: Vec::new() }
}

/// [`output_from`], with `structuredContent` checked against the tool's
/// `outputSchema`: a result that does not match is a failure the model is
/// told about (with what did not match).
pub fn checked_output(result: &Value, output_schema: Option<&Value>) -> ToolOutput {
    let mut out = output_from(result);
    if let (Some(schema), Some(structured), false) = (output_schema, result.get("structuredContent"), out.is_error)
        && let Err(violations) = air_tools::schema::validate(schema, structured)
    {
        out.is_error = true;
        out.content.push(Content::Text { text: format!("The server's structured result does not match the tool's output schema: {}", air_tools::schema::describe(&violations)) });
    }
    out
}

/// A tool of an MCP server, called through its client.
pub struct McpTool<H: HttpClient> {
    def: ToolDef,
    /// The tool's own name on its server.
    remote_name: String,
    output_schema: Option<Value>,
    client: Rc<McpClient<H>>,
}

impl<H: HttpClient> McpTool<H> {
    pub fn new(def: ToolDef, remote_name: impl Into<String>, client: Rc<McpClient<H>>) -> Self {
        Self { def, remote_name: remote_name.into(), output_schema: None, client }
    }

    /// Checks results against this `outputSchema`.
    pub fn with_output_schema(mut self, schema: Option<Value>) -> Self {
        self.output_schema = schema.filter(Value::is_object);
        self
    }
}

impl<H: HttpClient> Tool for McpTool<H> {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(&'a self, args: Value, ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match self.client.call_tool_for(&self.remote_name, &self.def.input_schema, args, ctx.abort, ctx.host).await {
                Ok(result) => checked_output(&result, self.output_schema.as_ref()),
                Err(e) => ToolOutput::error(format!("{e}.")),
            }
        })
    }
}

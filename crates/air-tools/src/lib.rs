//! The tool registry and everything about a call that does not depend on
//! where the tool runs: definitions, the built-in tools, tolerant argument
//! parsing, JSON Schema validation and the approval policy.
//!
//! * [`Tool`]: one callable tool (a built-in here; MCP and HTTP tools in
//!   their crates).
//! * [`Registry`]: the tools offered to the model, by name.
//! * [`args::parse_arguments`]: the model's argument text → JSON, forgiving
//!   the mistakes real models make.
//! * [`schema::validate`]: arguments against the tool's input schema.
//! * [`builtin`]: `calculator` and `get_current_time`.
//! * [`policy`]: allow / ask / deny, per tool and per server.
//! * [`face`]: what the user approved of an MCP tool (its definition's
//!   fingerprint) and what changed since.
//!
//! Nothing here reads a clock or does IO: the time tool is given a
//! [`builtin::Clock`].

pub mod args;
pub mod builtin;
pub mod call;
pub mod face;
pub mod offer;
pub mod policy;
pub mod schema;

use std::collections::BTreeMap;
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use call::{CallContext, CallHost, ElicitAnswer, Elicitation, Progress, Unattended};

/// Where a tool comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ToolSource {
    /// Built into the app.
    BuiltIn,
    /// A tool of the MCP server with this name.
    Mcp { server: String },
    /// A tool the user defined as one HTTP request (`air-http-tools`):
    /// never built-in, whatever its name; its method's hints decide
    /// whether it asks ([`policy::default_policy`]).
    Http,
}

/// MCP tool annotations (hints, not guarantees).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Annotations {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// What the model is told about a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDef {
    /// Unique in the registry; what the model calls.
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments (an object schema).
    pub input_schema: Value,
    #[serde(default)]
    pub annotations: Annotations,
    pub source: ToolSource,
    /// For an MCP tool: which saved server it is (by its stable id), its
    /// name there, and what the user accepted of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<face::McpIdentity>,
}

impl ToolDef {
    /// What the model is told of the tool: its description, input schema
    /// and annotations, or, for an MCP tool its server changed since the
    /// user accepted it, the face the user accepted (the server's new
    /// words reach the model only once the user accepts them; a call of
    /// the tool asks meanwhile).
    pub fn told(&self) -> (&str, &Value, &Annotations) {
        match self.mcp.as_ref().and_then(|m| m.accepted.as_deref()) {
            Some(face) => (&face.description, &face.input_schema, &face.annotations),
            None => (&self.description, &self.input_schema, &self.annotations),
        }
    }

    /// The entry for the `tools` array of an OpenAI-compatible request
    /// (what [`ToolDef::told`] gives).
    pub fn to_openai(&self) -> Value {
        let (description, parameters, _) = self.told();
        serde_json::json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": description,
                "parameters": parameters,
            }
        })
    }
}

/// One piece of a tool's output.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Content {
    Text { text: String },
    /// Base64 image data.
    Image { mime: String, data: String },
    /// Base64 audio data.
    Audio { mime: String, data: String },
    Link {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
}

impl<'de> Deserialize<'de> for Content {
    /// Reads what `Serialize` writes (`{"type": "text", "text": …}`) as one
    /// flat record: one small reader (serde derives an internally tagged
    /// enum's reader over a buffered copy, and stored tool results are read
    /// on every page load).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        #[derive(Deserialize)]
        struct Flat {
            #[serde(rename = "type")]
            kind: String,
            text: Option<String>,
            mime: Option<String>,
            data: Option<String>,
            uri: Option<String>,
            name: Option<String>,
        }
        let f = Flat::deserialize(d)?;
        let need = |v: Option<String>, key: &'static str| v.ok_or_else(|| D::Error::missing_field(key));
        Ok(match f.kind.as_str() {
            "text" => Content::Text { text: need(f.text, "text")? },
            "image" => Content::Image { mime: need(f.mime, "mime")?, data: need(f.data, "data")? },
            "audio" => Content::Audio { mime: need(f.mime, "mime")?, data: need(f.data, "data")? },
            "link" => Content::Link { uri: need(f.uri, "uri")?, name: f.name },
            other => return Err(D::Error::unknown_variant(other, &["text", "image", "audio", "link"])),
        })
    }
}

/// What a tool returned.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    pub content: Vec<Content>,
    /// The tool ran but reports a failure (given to the model as such).
    #[serde(default)]
    pub is_error: bool,
    /// An MCP tool's `structuredContent`, kept for its View (MCP Apps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<serde_json::Value>,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        Self { content: vec![Content::Text { text: text.into() }], is_error: false, structured: None }
    }

    pub fn error(text: impl Into<String>) -> Self {
        Self { content: vec![Content::Text { text: text.into() }], is_error: true, structured: None }
    }

    /// The output as the model reads it: text as is, images and links as a
    /// short note each.
    pub fn model_text(&self) -> String {
        let parts: Vec<String> = self
            .content
            .iter()
            .map(|c| match c {
                Content::Text { text } => text.clone(),
                Content::Image { mime, .. } => format!("[image: {mime}]"),
                Content::Audio { mime, .. } => format!("[audio: {mime}]"),
                Content::Link { uri, name: Some(n) } => format!("[{n}]({uri})"),
                Content::Link { uri, name: None } => uri.clone(),
            })
            .collect();
        parts.join("\n")
    }
}

/// A callable tool. Arguments arrive parsed and validated against
/// [`ToolDef::input_schema`].
pub trait Tool {
    fn def(&self) -> &ToolDef;
    /// Runs the call. `ctx` carries the user's Stop and where to report
    /// progress and ask questions.
    fn call<'a>(&'a self, args: Value, ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput>;
}

/// The tools offered to the model, by name (listed in name order). A
/// turn builds its own from what is switched on then, so nothing is ever
/// taken out of one: a removed server's or switched-off tool is simply
/// not registered by the next turn.
#[derive(Clone, Default)]
pub struct Registry {
    tools: BTreeMap<String, Rc<dyn Tool>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.tools.keys()).finish()
    }
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool, replacing one of the same name (returned).
    pub fn register(&mut self, tool: Rc<dyn Tool>) -> Option<Rc<dyn Tool>> {
        self.tools.insert(tool.def().name.clone(), tool)
    }

    pub fn get(&self, name: &str) -> Option<&Rc<dyn Tool>> {
        self.tools.get(name)
    }

    pub fn definitions(&self) -> impl Iterator<Item = &ToolDef> {
        self.tools.values().map(|t| t.def())
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }
}

#[cfg(test)]
mod content_tests {
    use super::Content;

    #[test]
    fn content_is_stored_and_read_back() {
        let all = [
            Content::Text { text: "t".into() },
            Content::Image { mime: "image/png".into(), data: "iVBO".into() },
            Content::Audio { mime: "audio/wav".into(), data: "UklG".into() },
            Content::Link { uri: "file:///a".into(), name: Some("a".into()) },
            Content::Link { uri: "file:///b".into(), name: None },
        ];
        for c in all {
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(serde_json::from_str::<Content>(&json).unwrap(), c, "{json}");
        }
        assert_eq!(serde_json::to_string(&Content::Text { text: "t".into() }).unwrap(), r#"{"type":"text","text":"t"}"#);
        // Fields in any order, unknown ones ignored; what is missing is said.
        let c: Content = serde_json::from_str(r#"{"data":"x","extra":1,"mime":"image/gif","type":"image"}"#).unwrap();
        assert_eq!(c, Content::Image { mime: "image/gif".into(), data: "x".into() });
        assert!(serde_json::from_str::<Content>(r#"{"type":"image","mime":"image/gif"}"#).unwrap_err().to_string().contains("data"));
        assert!(serde_json::from_str::<Content>(r#"{"type":"video"}"#).unwrap_err().to_string().contains("video"));
    }
}

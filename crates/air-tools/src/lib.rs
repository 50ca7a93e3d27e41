//! The tool registry and everything about a call that does not depend on
//! where the tool runs: definitions, the built-in tools, tolerant argument
//! parsing, JSON Schema validation and the approval policy.
//!
//! * [`Tool`]: one callable tool (a definition, and `call(args, ctx)`
//!   giving a `LocalBoxFuture` of a `ToolOutput`). A built-in here; MCP and
//!   HTTP tools in their crates.
//! * [`call`]: the `CallContext` a call runs with: the user's Stop (an
//!   `air_http::Abort`) and a `CallHost` to report `Progress` to and to ask
//!   the user an `Elicitation` (a form from a schema, or a URL to open),
//!   answered with an `ElicitAnswer` (accept with values, decline, cancel).
//! * `ToolDef`: name, description, input schema, MCP annotations and
//!   source: built-in, an MCP server (with its place, `face::McpIdentity`:
//!   the saved server's stable id, the tool's name there, the face the user
//!   accepted where it changed since, whether the user trusts the server's
//!   hints) or `Http` (a tool the user defined as one request; never
//!   built-in, whatever its name).
//! * [`Registry`]: the tools offered to the model, by name, listed in name
//!   order so requests are deterministic. Each turn builds its own registry
//!   from what is switched on when it starts, so a tool is taken out by not
//!   registering it again: a removed or switched-off server's tools are
//!   never in the next turn's registry (host test
//!   `only_offered_tools_of_enabled_servers_are_registered`).
//! * [`offer`]: offering part of a registry: what the model is sent, and
//!   what a call of a tool not offered gets (dynamic loading implements it).
//! * [`builtin`]: `calculator` (a recursive-descent parser: precedence,
//!   parentheses, unary minus, right-associative `^`, `sqrt sin cos tan log
//!   ln abs min max`, `pi`, `e`; errors name the character) and
//!   `get_current_time` (an optional IANA zone, through a [`builtin::Clock`]
//!   the browser implements with `Intl`, so the zone database is not in the
//!   bundle).
//! * [`args::parse_arguments`]: the model's argument text → a JSON object,
//!   forgiving fences, double encoding, single quotes, trailing commas and
//!   Python literals; errors give the position. `args::canonical_json` is
//!   the repeat guard's form.
//! * [`schema::validate`]: arguments against the input schema (drafts 7 and
//!   2020-12 as tool schemas use them: types, properties, required,
//!   additionalProperties, items and prefixItems, enum, const, bounds,
//!   lengths, uniqueItems, anyOf / oneOf / allOf / not, local `$ref` and
//!   `$anchor`), each violation with its JSON pointer and what was
//!   expected, with a visit budget against hostile schemas. `pattern`,
//!   `patternProperties`, `format`, `unevaluated*` and remote `$ref`s are
//!   not checked (they accept rather than refuse). Why not a JSON Schema
//!   crate: measured in wasm probes (opt-level "z", LTO, wasm-opt -Oz),
//!   `jsonschema` 0.60 with default features off adds about 620 KB gzip (a
//!   regex engine, ICU/IDNA tables, URL handling, a reference resolver) and
//!   `boon` 0.6 about 418 KB gzip (and needs `getrandom`'s `wasm_js`
//!   backend); this module costs about 11 KB gzip.
//! * [`policy`]: allow / ask / deny per built-in tool, per MCP server (by
//!   id) and per MCP tool (by server id and its name there), each MCP tool's
//!   choice `Bound` to the fingerprint of the definition it was made for: a
//!   tool the server changed since asks (a denial still holds), and so does
//!   one changed since the user accepted it, whatever its server's choice.
//!   Built-ins run; an MCP tool asks unless the user trusts its server's
//!   hints and they say read-only without contradiction. An HTTP tool's
//!   hints come from the method the user saved, so they count: GET and HEAD
//!   run, POST, PUT, PATCH and DELETE ask; its own choice is kept by its
//!   name, as a built-in's. `adopt` moves choices saved by registry name to
//!   their tools.
//! * [`face`]: a tool's face (description, input schema, annotations), its
//!   fingerprint (the canonical JSON of server id, name and face, compared
//!   whole: no hash to collide), and a line diff of two faces for the
//!   approval card. What the model is told of a tool (`ToolDef::told`, the
//!   request's `tools`, prompt mode's section, and `SavedTool::told` in
//!   `air-store` for dynamic loading) is the face the user accepted while
//!   the server's new one waits: new words reach the model only once
//!   accepted (host tests
//!   `a_changed_tool_is_offered_to_the_model_as_accepted_until_the_user_accepts_it`,
//!   `a_changed_tool_is_described_as_accepted_until_the_user_accepts_it`).
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
    Text {
        text: String,
    },
    /// Base64 image data.
    Image {
        mime: String,
        data: String,
    },
    /// Base64 audio data.
    Audio {
        mime: String,
        data: String,
    },
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
    /// Files given back to the user (code run in the page wrote them):
    /// kept with the result as the conversation's files, not sent to the
    /// model (its text says what they are).
    #[serde(skip)]
    pub files: Vec<OutputFile>,
}

/// A file a tool gave back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    pub name: String,
    /// The media type, e.g. `text/csv`.
    pub mime: String,
    pub bytes: Vec<u8>,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        Self { content: vec![Content::Text { text: text.into() }], is_error: false, ..Self::default() }
    }

    pub fn error(text: impl Into<String>) -> Self {
        Self { content: vec![Content::Text { text: text.into() }], is_error: true, ..Self::default() }
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

//! The HTTP tools the user saved (`air_http_tools::HttpTool`), each with
//! its on/off switch, kept under [`KEY`] beside the MCP servers. Secret
//! header values are kept here as the API key is in the settings, and
//! left out of an export unless the user asks for secrets
//! ([`without_secrets`]).

use air_http_tools::HttpTool;
use serde::{Deserialize, Serialize};

use crate::kv::{Key, KeyValue};

pub const KEY: Key<Vec<SavedHttpTool>> = Key::new("air-agent-http-tools");

/// One saved HTTP tool: the definition, and whether the model is offered
/// it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedHttpTool {
    #[serde(flatten)]
    pub tool: HttpTool,
    #[serde(default = "on")]
    pub enabled: bool,
}

fn on() -> bool {
    true
}

impl SavedHttpTool {
    /// A new tool, on.
    pub fn new(tool: HttpTool) -> Self {
        Self { tool, enabled: true }
    }

    pub fn name(&self) -> &str {
        &self.tool.name
    }
}

/// The saved tools as kept: their text until it is first needed (a turn,
/// Settings, an export), read then in a part fetched on first use, so
/// start-up parses none of it ([`Saved::kept`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Saved {
    /// The text kept, not read yet.
    Text(String),
    Read(Vec<SavedHttpTool>),
}

impl Default for Saved {
    fn default() -> Self {
        Saved::Read(Vec::new())
    }
}

impl Saved {
    /// What is kept: nothing is the empty list, text is read later.
    pub fn kept(kv: &impl KeyValue) -> Self {
        kv.get(KEY.name).map_or_else(Self::default, Saved::Text)
    }

    /// The list, once read.
    pub fn list(&self) -> Option<&Vec<SavedHttpTool>> {
        match self {
            Saved::Read(list) => Some(list),
            Saved::Text(_) => None,
        }
    }

    pub fn list_mut(&mut self) -> Option<&mut Vec<SavedHttpTool>> {
        match self {
            Saved::Read(list) => Some(list),
            Saved::Text(_) => None,
        }
    }

    /// Whether nothing is saved (text not read yet counts as something,
    /// unless it is an empty list).
    pub fn is_empty(&self) -> bool {
        match self {
            Saved::Read(list) => list.is_empty(),
            Saved::Text(text) => text.trim() == "[]",
        }
    }

    /// The tools, read if need be (unreadable text: none; the core says so
    /// when it reads them, [`read`]).
    pub fn tools(&self) -> Vec<SavedHttpTool> {
        match self {
            Saved::Read(list) => list.clone(),
            Saved::Text(text) => read(text).unwrap_or_default(),
        }
    }
}

/// Reads the kept text; why it could not be is said in words.
pub fn read(text: &str) -> Result<Vec<SavedHttpTool>, String> {
    serde_json::from_str(text).map_err(|e| format!("The saved HTTP tools could not be read ({e}); they were kept aside."))
}

/// Keeps unreadable text aside (the list in use is then empty, and saving
/// it would write over the text).
pub fn keep_aside(kv: &impl KeyValue, text: &str) -> crate::Result<()> {
    kv.set(&format!("{}.corrupt", KEY.name), text)
}

/// Saves the list (text not read yet is left as it is).
pub fn save(kv: &impl KeyValue, tools: &Saved) -> crate::Result<()> {
    match tools {
        Saved::Read(list) => KEY.set(kv, list),
        Saved::Text(_) => Ok(()),
    }
}

/// The tools with every secret header's value emptied (the header stays,
/// so whoever reads it knows a value is needed).
pub fn without_secrets(tools: &[SavedHttpTool]) -> Vec<SavedHttpTool> {
    let mut out = tools.to_vec();
    for h in out.iter_mut().flat_map(|t| &mut t.tool.headers).filter(|h| h.secret) {
        h.value.clear();
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::kv::MemoryKv;
    use air_http_tools::{Header, Method};
    use serde_json::json;

    pub(crate) fn weather() -> SavedHttpTool {
        SavedHttpTool::new(HttpTool {
            name: "get_weather".into(),
            description: "Weather.".into(),
            input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
            method: Method::Get,
            url: "https://api.example.com/weather".into(),
            headers: vec![Header::new("Accept", "application/json"), Header::secret("X-Api-Key", "k-secret")],
            args_in: Default::default(),
            query: vec![],
            body_arg: None,
        })
    }

    #[test]
    fn saved_and_read_back_with_their_switch() {
        let kv = MemoryKv::default();
        let mut off = weather();
        off.enabled = false;
        off.tool.name = "get_forecast".into();
        save(&kv, &Saved::Read(vec![weather(), off.clone()])).unwrap();
        assert_eq!(Saved::kept(&kv).tools(), vec![weather(), off]);
        let text = kv.get("air-agent-http-tools").unwrap();
        assert!(text.contains("\"enabled\":false") && text.contains("\"method\":\"GET\""), "{text}");
        // Saved without the switch: on.
        kv.set("air-agent-http-tools", &text.replace("\"enabled\":false", "\"enabled\":true").replace(",\"enabled\":true", "")).unwrap();
        assert!(Saved::kept(&kv).tools().iter().all(|t| t.enabled));
    }

    #[test]
    fn kept_text_is_read_when_needed_and_never_written_over_unread() {
        let kv = MemoryKv::default();
        assert_eq!(Saved::kept(&kv), Saved::Read(vec![]));
        save(&kv, &Saved::Read(vec![weather()])).unwrap();
        let kept = Saved::kept(&kv);
        let Saved::Text(text) = &kept else { panic!("{kept:?}") };
        assert_eq!(kept.list(), None);
        assert_eq!(kept.tools(), vec![weather()]);
        assert_eq!(read(text), Ok(vec![weather()]));
        // Unread text is not written over by a save.
        save(&kv, &Saved::Text("whatever".into())).unwrap();
        assert_eq!(kv.get("air-agent-http-tools").as_deref(), Some(text.as_str()));
        let bad = read("[{\"name\": 3}]").unwrap_err();
        assert!(bad.contains("HTTP tools") && bad.contains("kept aside"), "{bad}");
        assert_eq!(Saved::Text("[{\"name\": 3}]".into()).tools(), vec![]);
        keep_aside(&kv, "[{\"name\": 3}]").unwrap();
        assert_eq!(kv.get("air-agent-http-tools.corrupt").as_deref(), Some("[{\"name\": 3}]"));
    }

    #[test]
    fn nothing_saved_is_known_without_reading() {
        assert!(Saved::default().is_empty());
        assert!(Saved::Text(" [] ".into()).is_empty());
        assert!(!Saved::Text("[{}]".into()).is_empty(), "unread text may hold tools");
        assert!(!Saved::Text("not json".into()).is_empty(), "unreadable text is said when read");
        assert!(!Saved::Read(vec![weather()]).is_empty());
    }

    #[test]
    fn secrets_are_emptied_and_the_rest_kept() {
        let out = without_secrets(&[weather()]);
        assert_eq!(out[0].tool.headers[0].value, "application/json");
        assert_eq!(out[0].tool.headers[1].value, "");
        assert!(out[0].tool.headers[1].secret);
        assert_eq!(weather().tool.headers[1].value, "k-secret", "the saved tools are not touched");
    }
}

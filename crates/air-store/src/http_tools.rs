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

/// The saved tools; what could not be read is said (the list is empty, and
/// the unreadable text was kept aside).
pub fn load(kv: &impl KeyValue) -> (Vec<SavedHttpTool>, Option<String>) {
    let read = KEY.read(kv);
    (read.value, read.kept.map(|k| format!("The saved HTTP tools could not be read ({}); they were kept aside.", k.error)))
}

pub fn save(kv: &impl KeyValue, tools: &[SavedHttpTool]) -> crate::Result<()> {
    KEY.set(kv, &tools.to_vec())
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
        save(&kv, &[weather(), off.clone()]).unwrap();
        let (read, warning) = load(&kv);
        assert_eq!((read, warning), (vec![weather(), off], None));
        let text = kv.get("air-agent-http-tools").unwrap();
        assert!(text.contains("\"enabled\":false") && text.contains("\"method\":\"GET\""), "{text}");
        // Saved without the switch: on.
        kv.set("air-agent-http-tools", &text.replace("\"enabled\":false", "\"enabled\":true").replace(",\"enabled\":true", "")).unwrap();
        assert!(load(&kv).0.iter().all(|t| t.enabled));
    }

    #[test]
    fn unreadable_tools_are_kept_aside_and_said() {
        let kv = MemoryKv::default();
        kv.set("air-agent-http-tools", "[{\"name\": 3}]").unwrap();
        let (read, warning) = load(&kv);
        assert!(read.is_empty());
        assert!(warning.is_some_and(|w| w.contains("HTTP tools")));
        assert!(kv.get("air-agent-http-tools.corrupt").is_some());
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

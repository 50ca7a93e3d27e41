//! Settings, kept as one JSON value under one key (localStorage in the
//! browser). Unknown or missing fields fall back to defaults, so older and
//! newer versions of the app read each other's settings.

use serde::{Deserialize, Serialize};

pub const SETTINGS_KEY: &str = "air-agent-settings";
pub const SIDEBAR_COLLAPSED_KEY: &str = "air-agent-sidebar-collapsed";

/// The embedded local model that `./dev serve` starts.
pub const LOCAL_BASE_URL: &str = "http://127.0.0.1:8081/v1";
pub const LOCAL_MODEL: &str = "SmolLM2-135M-Instruct";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    Light,
    Dark,
    #[default]
    System,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Language {
    #[default]
    #[serde(rename = "en")]
    English,
    #[serde(rename = "zh")]
    Chinese,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Settings {
    /// Preset id (`local`, `openai`, … or `custom`).
    pub provider: String,
    /// Base URL of the OpenAI-compatible API, without `/chat/completions`.
    pub base_url: String,
    /// Sent only to `base_url`.
    pub api_key: String,
    pub model: String,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
    pub system_prompt: String,
    pub max_tool_rounds: u32,
    pub theme: Theme,
    pub language: Language,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            provider: "local".into(),
            base_url: LOCAL_BASE_URL.into(),
            api_key: String::new(),
            model: LOCAL_MODEL.into(),
            temperature: None,
            max_tokens: None,
            system_prompt: String::new(),
            max_tool_rounds: 5,
            theme: Theme::System,
            language: Language::English,
        }
    }
}

impl Settings {
    /// `{base}/chat/completions`, tolerant of a trailing slash.
    pub fn chat_url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim().trim_end_matches('/'))
    }

    /// Whether this is the embedded local model (for a more helpful message
    /// when it is not running).
    pub fn is_local_default(&self) -> bool {
        self.base_url.trim().trim_end_matches('/') == LOCAL_BASE_URL
    }
}

/// A synchronous string key/value store (localStorage).
pub trait KeyValue {
    fn get(&self, key: &str) -> Option<String>;
    fn set(&self, key: &str, value: &str) -> crate::Result<()>;
}

/// What loading found.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub settings: Settings,
    /// Set when stored settings could not be read; they were kept under
    /// `{SETTINGS_KEY}.corrupt` and defaults are used.
    pub warning: Option<String>,
}

pub fn load(kv: &impl KeyValue) -> Loaded {
    match kv.get(SETTINGS_KEY) {
        None => Loaded { settings: Settings::default(), warning: None },
        Some(raw) => match serde_json::from_str::<Settings>(&raw) {
            Ok(settings) => Loaded { settings, warning: None },
            Err(e) => {
                let backup = format!("{SETTINGS_KEY}.corrupt");
                let kept = kv.set(&backup, &raw).is_ok();
                let warning = if kept {
                    format!("Saved settings could not be read ({e}); defaults are in use and the old value was kept under \"{backup}\".")
                } else {
                    format!("Saved settings could not be read ({e}); defaults are in use.")
                };
                Loaded { settings: Settings::default(), warning: Some(warning) }
            }
        },
    }
}

pub fn save(kv: &impl KeyValue, settings: &Settings) -> crate::Result<()> {
    let json = serde_json::to_string(settings).map_err(|e| crate::StoreError::Other(e.to_string()))?;
    kv.set(SETTINGS_KEY, &json)
}

/// A [`KeyValue`] in memory, for tests.
#[derive(Debug, Default)]
pub struct MemoryKv(pub std::cell::RefCell<std::collections::BTreeMap<String, String>>);

impl KeyValue for MemoryKv {
    fn get(&self, key: &str) -> Option<String> {
        self.0.borrow().get(key).cloned()
    }
    fn set(&self, key: &str, value: &str) -> crate::Result<()> {
        self.0.borrow_mut().insert(key.to_owned(), value.to_owned());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_run_points_at_the_local_model() {
        let loaded = load(&MemoryKv::default());
        assert_eq!(loaded.settings.base_url, LOCAL_BASE_URL);
        assert_eq!(loaded.settings.model, LOCAL_MODEL);
        assert_eq!(loaded.settings.max_tool_rounds, 5);
        assert!(loaded.warning.is_none());
        assert_eq!(loaded.settings.chat_url(), "http://127.0.0.1:8081/v1/chat/completions");
    }

    #[test]
    fn round_trip_and_partial_records() {
        let kv = MemoryKv::default();
        let mut s = Settings::default();
        s.base_url = "https://api.example.com/v1/".into();
        s.api_key = "sk-test".into();
        s.temperature = Some(0.2);
        s.theme = Theme::Dark;
        s.language = Language::Chinese;
        assert!(save(&kv, &s).is_ok());
        assert_eq!(load(&kv).settings, s);
        assert_eq!(s.chat_url(), "https://api.example.com/v1/chat/completions");
        // A record from an older version with only some fields.
        kv.set(SETTINGS_KEY, r#"{"model":"gpt-4o","future":1}"#).ok();
        let l = load(&kv);
        assert_eq!((l.settings.model.as_str(), l.settings.max_tool_rounds), ("gpt-4o", 5));
    }

    #[test]
    fn corrupt_settings_are_kept_aside_not_lost() {
        let kv = MemoryKv::default();
        kv.set(SETTINGS_KEY, "{not json").ok();
        let l = load(&kv);
        assert_eq!(l.settings, Settings::default());
        assert!(l.warning.as_deref().unwrap_or("").contains("could not be read"));
        assert_eq!(kv.get("air-agent-settings.corrupt").as_deref(), Some("{not json"));
    }
}

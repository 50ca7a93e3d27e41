//! Settings, kept as one JSON value under one key (localStorage in the
//! browser). Unknown or missing fields fall back to defaults, so older and
//! newer versions of the app read each other's settings.

use serde::{Deserialize, Serialize};

use crate::kv::Key;
pub use crate::kv::{KeyValue, MemoryKv};
pub use crate::language::{Language, UiLanguage};

/// Where the settings are kept.
pub const KEY: Key<Settings> = Key::new("air-agent-settings");

/// The embedded local model that `./dev serve` starts.
pub const LOCAL_BASE_URL: &str = "http://127.0.0.1:8081/v1";
pub const LOCAL_MODEL: &str = "SmolLM2-135M-Instruct";
/// The local preset's id, and the generation limits it sends (llama.cpp
/// accepts `repeat_penalty`): a tiny model otherwise repeats itself until
/// its context is full.
pub const LOCAL_PRESET: &str = "local";
pub const LOCAL_MAX_TOKENS: u32 = 512;
pub const LOCAL_REPEAT_PENALTY: f32 = 1.1;

/// The in-browser provider: models run in the page (llama.cpp compiled to
/// WebAssembly), stored in the browser. Its base URL names no server (the
/// `.invalid` top-level domain never resolves): requests to it are answered
/// by the page's engine, never sent.
pub const BROWSER_PRESET: &str = "browser";
pub const BROWSER_BASE_URL: &str = "http://in-browser.invalid/v1";

/// Whether `url` is the in-browser provider's (a request to it is answered
/// in the page).
pub fn is_in_browser(url: &str) -> bool {
    url.trim().trim_end_matches('/').starts_with(BROWSER_BASE_URL)
}

/// A provider preset: where it lives and a sensible first model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    pub id: &'static str,
    pub name: &'static str,
    pub base_url: &'static str,
    pub model: &'static str,
    pub needs_key: bool,
}

/// The presets offered in Settings; `custom` keeps whatever URL is typed.
pub const PRESETS: &[Preset] = &[
    Preset { id: "local", name: "Local model (llama.cpp)", base_url: LOCAL_BASE_URL, model: LOCAL_MODEL, needs_key: false },
    Preset { id: BROWSER_PRESET, name: "In this browser", base_url: BROWSER_BASE_URL, model: "", needs_key: false },
    Preset { id: "openai", name: "OpenAI", base_url: "https://api.openai.com/v1", model: "gpt-4o-mini", needs_key: true },
    Preset { id: "deepseek", name: "DeepSeek", base_url: "https://api.deepseek.com/v1", model: "deepseek-chat", needs_key: true },
    Preset { id: "openrouter", name: "OpenRouter", base_url: "https://openrouter.ai/api/v1", model: "openai/gpt-4o-mini", needs_key: true },
    Preset { id: "ollama", name: "Ollama", base_url: "http://127.0.0.1:11434/v1", model: "llama3.2", needs_key: false },
    Preset { id: "lmstudio", name: "LM Studio", base_url: "http://127.0.0.1:1234/v1", model: "", needs_key: false },
    Preset { id: "custom", name: "Custom (any OpenAI-compatible URL)", base_url: "", model: "", needs_key: false },
];

pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

impl Settings {
    /// Switches to a preset: its URL and first model (a custom preset keeps
    /// the current URL and model). The key is kept only if the URL stays the
    /// same, so a key is never sent to another provider by accident.
    pub fn apply_preset(&mut self, id: &str) {
        let Some(p) = preset(id) else { return };
        self.provider = p.id.to_owned();
        if p.id == "custom" {
            return;
        }
        if self.base_url.trim_end_matches('/') != p.base_url {
            self.api_key.clear();
        }
        self.base_url = p.base_url.to_owned();
        self.model = p.model.to_owned();
    }

    /// Changes the base URL by hand. The key is dropped when the URL moves
    /// to another origin, so it is never sent to a server it was not meant for.
    pub fn edit_base_url(&mut self, url: &str) {
        if origin(url) != origin(&self.base_url) {
            self.api_key.clear();
        }
        self.base_url = url.to_owned();
        self.provider = "custom".into();
    }

    /// The profile named `id`, if there is one.
    pub fn profile(&self, id: &str) -> Option<&Profile> {
        self.profiles.iter().find(|p| p.id == id)
    }

    /// Whether this provider and model refused images before.
    pub fn refuses_images(&self) -> bool {
        self.vision.get(&self.tool_calling_key()) == Some(&false)
    }

    /// `{base}/models`.
    pub fn models_url(&self) -> String {
        format!("{}/models", self.base_url.trim().trim_end_matches('/'))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    Light,
    Dark,
    #[default]
    System,
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
    /// The UI language: the one picked here, else the browser's; saved
    /// only once picked (`crate::language`).
    #[serde(skip_serializing_if = "UiLanguage::is_unchosen")]
    pub language: UiLanguage,
    /// Transitive Thinking: an extra request for a reasoning chain first.
    pub transitive_thinking: bool,
    /// Offer the tools to the model (built-in and MCP).
    pub tools_enabled: bool,
    /// Allow / ask / deny, per tool and per MCP server.
    pub tool_policies: air_tools::policy::Policies,
    /// How tools reach the model: natively, through the prompt, or found
    /// out once per provider and model (auto).
    pub tool_calling: ToolCalling,
    /// What auto found out, by [`Settings::tool_calling_key`].
    pub probed_tool_calling: std::collections::BTreeMap<String, ToolCalling>,
    /// Experimental: MCP dynamic loading (a catalog and two loaders instead
    /// of every tool schema). Off by default.
    pub dynamic_mcp_loading: bool,
    /// With dynamic loading: a call of a tool that is not loaded loads it
    /// and runs, once, instead of being refused.
    pub mcp_auto_load_once: bool,
    /// With dynamic loading: the model that writes the catalog's summaries
    /// (empty: none; the descriptions are used) ...
    pub mcp_summarizer_model: String,
    /// ... at this provider: a profile's id (empty: the one above, as
    /// settings saved before there was a choice mean). See `providers`.
    pub mcp_summarizer_profile: String,
    /// Other providers, each picked per chat (or by an assistant) in place
    /// of the one above.
    pub profiles: Vec<Profile>,
    /// What was learnt of each provider and model's images (`false`: it
    /// refused them), by [`Settings::tool_calling_key`].
    pub vision: std::collections::BTreeMap<String, bool>,
    /// Sync carries the API keys (the profiles', and the HTTP tools'
    /// secret headers) to the user's other devices, encrypted. Off: each
    /// device keeps its own.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sync_keys: bool,
    /// Sync carries the MCP servers' headers (tokens), encrypted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sync_headers: bool,
}

/// A provider profile: its own base URL, key and model. Its key goes only
/// to its own base URL (a turn takes the three together).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Profile {
    pub id: String,
    pub name: String,
    pub base_url: String,
    pub api_key: String,
    /// The model used with it unless a chat or an assistant picks another.
    pub model: String,
}

impl Profile {
    /// `settings` with this provider in place of theirs.
    pub fn apply(&self, settings: &mut Settings) {
        settings.provider = "custom".into();
        settings.base_url = self.base_url.trim().to_owned();
        settings.api_key = self.api_key.clone();
        if !self.model.trim().is_empty() {
            settings.model = self.model.trim().to_owned();
        }
    }

    /// Sets the base URL; the key is dropped if the URL moves to another
    /// origin, so a key never follows to another server.
    pub fn edit_base_url(&mut self, url: &str) {
        if origin(url) != origin(&self.base_url) {
            self.api_key.clear();
        }
        self.base_url = url.to_owned();
    }
}

/// How tools reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolCalling {
    /// Ask the model once whether it calls tools natively, and remember.
    #[default]
    Auto,
    /// The request's `tools`; the model answers with `tool_calls`.
    Native,
    /// The tools are described in the system prompt and the calls read
    /// from the answer's text.
    Prompt,
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
            language: UiLanguage::default(),
            transitive_thinking: false,
            tools_enabled: true,
            tool_policies: Default::default(),
            tool_calling: ToolCalling::Auto,
            probed_tool_calling: Default::default(),
            dynamic_mcp_loading: false,
            mcp_auto_load_once: false,
            mcp_summarizer_model: String::new(),
            mcp_summarizer_profile: String::new(),
            profiles: Vec::new(),
            vision: Default::default(),
            sync_keys: false,
            sync_headers: false,
        }
    }
}

impl Settings {
    /// Native or prompt, for these settings: as set, or as auto found out
    /// (`None`: not found out yet).
    pub fn resolved_tool_calling(&self) -> Option<ToolCalling> {
        match self.tool_calling {
            ToolCalling::Auto => self.probed_tool_calling.get(&self.tool_calling_key()).copied(),
            set => Some(set),
        }
    }

    /// What auto remembers a finding under: the provider and the model.
    pub fn tool_calling_key(&self) -> String {
        format!("{} {}", self.base_url.trim().trim_end_matches('/'), self.model.trim())
    }

    /// `{base}/chat/completions`, tolerant of a trailing slash.
    pub fn chat_url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim().trim_end_matches('/'))
    }

    /// Whether this is the embedded local model (for a more helpful message
    /// when it is not running).
    pub fn is_local_default(&self) -> bool {
        self.base_url.trim().trim_end_matches('/') == LOCAL_BASE_URL
    }

    /// Which provider a list of models comes from: where it is asked, and
    /// whether a key goes with it.
    pub fn models_source(&self) -> (String, bool) {
        (self.models_url(), !self.api_key.trim().is_empty())
    }

    /// What is known of each provider and model (Settings → Models): those
    /// in `current` first (the settings' own, the open chat's; an empty
    /// model skipped), then every other one something was found out or
    /// set for, in key order.
    pub fn known_models<'a>(&self, current: impl IntoIterator<Item = &'a str>) -> Vec<KnownModel> {
        let mut keys: Vec<&str> = current.into_iter().filter(|k| k.split_once(' ').is_some_and(|(_, m)| !m.trim().is_empty())).collect();
        let learnt: std::collections::BTreeSet<&str> = self.probed_tool_calling.keys().chain(self.vision.keys()).map(String::as_str).collect();
        keys.extend(learnt);
        let mut seen = std::collections::BTreeSet::new();
        keys.retain(|k| seen.insert(*k));
        keys.into_iter()
            .map(|key| {
                let (base_url, model) = key.split_once(' ').unwrap_or((key, ""));
                KnownModel { key: key.to_owned(), base_url: base_url.to_owned(), model: model.to_owned() }
            })
            .collect()
    }

    /// How the provider and model `key` calls tools, as found out or set
    /// by hand; `Auto`: not known (found out on its next turn with tools,
    /// when tool calling is Auto).
    pub fn known_tools(&self, key: &str) -> ToolCalling {
        self.probed_tool_calling.get(key).copied().unwrap_or_default()
    }

    /// Whether the provider and model `key` takes images; `None`: not known.
    pub fn known_images(&self, key: &str) -> Option<bool> {
        self.vision.get(key).copied()
    }

    /// Sets by hand what a provider and model ([`Settings::tool_calling_key`])
    /// can do; a turn and the composer read it as they read what was found
    /// out.
    pub fn set_known_model(&mut self, key: &str, change: ModelChange) {
        match change {
            ModelChange::Tools(ToolCalling::Auto) => {
                self.probed_tool_calling.remove(key);
            }
            ModelChange::Tools(calling) => {
                self.probed_tool_calling.insert(key.to_owned(), calling);
            }
            ModelChange::Images(None) => {
                self.vision.remove(key);
            }
            ModelChange::Images(Some(takes)) => {
                self.vision.insert(key.to_owned(), takes);
            }
            ModelChange::Forget => {
                self.probed_tool_calling.remove(key);
                self.vision.remove(key);
            }
        }
    }
}

/// One provider and model, as Settings → Models shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownModel {
    /// [`Settings::tool_calling_key`].
    pub key: String,
    pub base_url: String,
    pub model: String,
}

/// A change to what is known of a provider and model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelChange {
    /// `Auto`: forget it, to be found out again.
    Tools(ToolCalling),
    /// `None`: not known.
    Images(Option<bool>),
    /// Both forgotten.
    Forget,
}

/// The models of each provider, as the top bar offers them: asked once per
/// provider ([`Settings::models_source`]) and kept while the page is open;
/// an ask that failed leaves no list, and the next one asks again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelLists {
    /// `None`: being asked.
    lists: std::collections::BTreeMap<(String, bool), Option<Vec<String>>>,
}

impl ModelLists {
    /// Whether to ask `source` for its models now: it has no list and is
    /// not being asked. If so, it is being asked from now on.
    pub fn start(&mut self, source: &(String, bool)) -> bool {
        if self.lists.contains_key(source) {
            return false;
        }
        self.lists.insert(source.clone(), None);
        true
    }

    /// The answer to [`ModelLists::start`]: the list, or `None` if the ask
    /// failed (asked again next time).
    pub fn answered(&mut self, source: (String, bool), list: Option<Vec<String>>) {
        match list {
            Some(list) => {
                self.lists.insert(source, Some(list));
            }
            None => {
                self.lists.remove(&source);
            }
        }
    }

    /// The models `source` listed (none while asked, or if it failed).
    pub fn of(&self, source: &(String, bool)) -> &[String] {
        self.lists.get(source).and_then(Option::as_deref).unwrap_or_default()
    }
}

/// `scheme://host[:port]` of a URL, lower-cased (enough to compare where a
/// request goes; anything unparsable compares as itself).
pub fn origin(url: &str) -> String {
    let url = url.trim();
    let start = url.find("://").map(|i| i + 3).unwrap_or(0);
    let end = url[start..].find(['/', '?', '#']).map(|i| start + i).unwrap_or(url.len());
    url[..end].to_ascii_lowercase()
}

/// What loading found.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub settings: Settings,
    /// Set when stored settings could not be read; they were kept under
    /// `{name}.corrupt` ([`KEY`]) and defaults are used.
    pub warning: Option<String>,
}

pub fn load(kv: &impl KeyValue) -> Loaded {
    let read = KEY.read(kv);
    let warning = read.kept.map(|k| match k.aside {
        Some(aside) => format!("Saved settings could not be read ({}); defaults are in use and the old value was kept under \"{aside}\".", k.error),
        None => format!("Saved settings could not be read ({}); defaults are in use.", k.error),
    });
    Loaded { settings: read.value, warning }
}

pub fn save(kv: &impl KeyValue, settings: &Settings) -> crate::Result<()> {
    KEY.set(kv, settings)
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
        let mut s = Settings { base_url: "https://api.example.com/v1/".into(), api_key: "sk-test".into(), temperature: Some(0.2), theme: Theme::Dark, ..Settings::default() };
        s.language.choose(Language::Chinese);
        assert!(save(&kv, &s).is_ok());
        assert_eq!(load(&kv).settings, s);
        assert_eq!(s.chat_url(), "https://api.example.com/v1/chat/completions");
        // A record from an older version with only some fields.
        kv.set(KEY.name, r#"{"model":"gpt-4o","future":1}"#).ok();
        let l = load(&kv);
        assert_eq!((l.settings.model.as_str(), l.settings.max_tool_rounds), ("gpt-4o", 5));
    }

    #[test]
    fn presets_switch_url_and_model_and_drop_the_key_for_another_provider() {
        let mut s = Settings::default();
        s.apply_preset("openai");
        s.api_key = "sk-openai".into();
        assert_eq!((s.base_url.as_str(), s.model.as_str()), ("https://api.openai.com/v1", "gpt-4o-mini"));
        assert_eq!(s.models_url(), "https://api.openai.com/v1/models");
        s.apply_preset("openai");
        assert_eq!(s.api_key, "sk-openai", "same provider keeps its key");
        s.apply_preset("deepseek");
        assert_eq!(s.api_key, "", "a key never follows to another provider");
        s.base_url = "https://my.gateway/v1".into();
        s.apply_preset("custom");
        assert_eq!(s.base_url, "https://my.gateway/v1");
        assert!(PRESETS.iter().all(|p| preset(p.id) == Some(p)));
    }

    #[test]
    fn a_hand_typed_url_on_another_origin_drops_the_key() {
        let mut s = Settings::default();
        s.apply_preset("openai");
        s.api_key = "sk-openai".into();
        s.edit_base_url("https://api.openai.com/v1/");
        assert_eq!(s.api_key, "sk-openai", "same origin, other path: the key stays");
        s.edit_base_url("https://evil.example/v1");
        assert_eq!(s.api_key, "", "another origin: the key goes");
        assert_eq!(s.provider, "custom");
        assert_eq!(origin("HTTPS://Api.Example.com:8443/v1?x"), "https://api.example.com:8443");
        assert_eq!(origin("http://127.0.0.1:8081"), "http://127.0.0.1:8081");
    }

    #[test]
    fn models_set_by_hand_are_listed_and_read_like_those_found_out() {
        let mut s = Settings { base_url: "https://api.example.com/v1/".into(), model: "vision-1".into(), ..Default::default() };
        let own = s.tool_calling_key();
        assert_eq!(own, "https://api.example.com/v1 vision-1");
        s.vision.insert("http://b/v1 zeta".into(), false);
        s.probed_tool_calling.insert("http://b/v1 zeta".into(), ToolCalling::Prompt);
        s.probed_tool_calling.insert("http://a/v1 alpha".into(), ToolCalling::Native);
        // The settings' own (and the chat's) first, then the rest in key
        // order, each once; an empty model is no model.
        let keys = |s: &Settings, current: &[&str]| s.known_models(current.iter().copied()).into_iter().map(|m| m.key).collect::<Vec<_>>();
        assert_eq!(keys(&s, &[&own, "http://b/v1 zeta", &own, "http://c/v1 "]), [own.as_str(), "http://b/v1 zeta", "http://a/v1 alpha"]);
        let zeta = &s.known_models([])[1];
        assert_eq!(zeta, &KnownModel { key: "http://b/v1 zeta".into(), base_url: "http://b/v1".into(), model: "zeta".into() });
        assert_eq!((s.known_tools(&zeta.key), s.known_images(&zeta.key)), (ToolCalling::Prompt, Some(false)));
        let mine = &s.known_models([own.as_str()])[0];
        assert_eq!((mine.model.as_str(), s.known_tools(&mine.key), s.known_images(&mine.key)), ("vision-1", ToolCalling::Auto, None));

        // Images: refused by hand → the composer warns; accepted → not;
        // not known → not.
        assert!(!s.refuses_images());
        s.set_known_model(&own, ModelChange::Images(Some(false)));
        assert!(s.refuses_images());
        s.set_known_model(&own, ModelChange::Images(Some(true)));
        assert!(!s.refuses_images());
        assert_eq!(s.vision.get(&own), Some(&true));
        s.set_known_model(&own, ModelChange::Images(None));
        assert!(!s.vision.contains_key(&own));

        // Tools: with tool calling on Auto, a hand-set way is the one used
        // (no probe); "find out" forgets it; set Native or Prompt in
        // Settings still wins.
        assert_eq!(s.resolved_tool_calling(), None);
        s.set_known_model(&own, ModelChange::Tools(ToolCalling::Native));
        assert_eq!(s.resolved_tool_calling(), Some(ToolCalling::Native));
        s.set_known_model(&own, ModelChange::Tools(ToolCalling::Prompt));
        assert_eq!(s.resolved_tool_calling(), Some(ToolCalling::Prompt));
        s.tool_calling = ToolCalling::Native;
        assert_eq!(s.resolved_tool_calling(), Some(ToolCalling::Native));
        s.tool_calling = ToolCalling::Auto;
        s.set_known_model(&own, ModelChange::Tools(ToolCalling::Auto));
        assert_eq!(s.resolved_tool_calling(), None);
        assert!(!s.probed_tool_calling.contains_key(&own));

        // Forget: both go, for that key alone.
        s.set_known_model("http://b/v1 zeta", ModelChange::Forget);
        assert_eq!(keys(&s, &[]), ["http://a/v1 alpha"]);
        assert_eq!(s.vision.len(), 0);

        // Set by hand and saved, it is there after a reload.
        let kv = MemoryKv::default();
        s.set_known_model(&own, ModelChange::Images(Some(false)));
        assert!(save(&kv, &s).is_ok());
        assert!(load(&kv).settings.refuses_images());
    }

    #[test]
    fn model_lists_are_asked_once_per_provider_and_again_after_a_failure() {
        let mut s = Settings { base_url: "http://a.example/v1/".into(), ..Default::default() };
        let a = s.models_source();
        assert_eq!(a, ("http://a.example/v1/models".to_owned(), false));
        s.api_key = "sk-a".into();
        assert_ne!(s.models_source(), a, "with a key, another list");
        let b = ("http://b.example/v1/models".to_owned(), true);
        let mut lists = ModelLists::default();
        assert!(lists.start(&a));
        assert!(!lists.start(&a), "being asked: not asked twice");
        assert!(lists.of(&a).is_empty());
        lists.answered(a.clone(), Some(vec!["a-1".into(), "a-2".into()]));
        // Another provider is asked for its own list.
        assert!(lists.start(&b));
        assert!(lists.of(&b).is_empty());
        assert_eq!(lists.of(&a), ["a-1", "a-2"]);
        // A failed ask leaves no list, and is asked again.
        lists.answered(b.clone(), None);
        assert!(lists.of(&b).is_empty());
        assert!(lists.start(&b));
        lists.answered(b.clone(), Some(vec!["b-1".into()]));
        assert_eq!(lists.of(&b), ["b-1"]);
        // Back to the first: kept, not asked again.
        assert!(!lists.start(&a));
        assert_eq!(lists.of(&a), ["a-1", "a-2"]);
    }

    #[test]
    fn corrupt_settings_are_kept_aside_not_lost() {
        let kv = MemoryKv::default();
        kv.set(KEY.name, "{not json").ok();
        let l = load(&kv);
        assert_eq!(l.settings, Settings::default());
        assert!(l.warning.as_deref().unwrap_or("").contains("could not be read"));
        assert_eq!(kv.get("air-agent-settings.corrupt").as_deref(), Some("{not json"));
    }
}

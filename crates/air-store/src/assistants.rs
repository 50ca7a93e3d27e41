//! Assistants: named presets (system prompt, model, temperature, the MCP
//! servers they use, and whether MCP dynamic loading applies to them),
//! kept in localStorage under [`KEY`] with the one each chat
//! uses.

use serde::{Deserialize, Serialize};

use crate::Settings;
use crate::kv::{Key, KeyValue};
use crate::mcp::NEW_CHAT;

/// Where the assistants are kept.
pub const KEY: Key<Assistants> = Key::new("air-agent-assistants");

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Assistant {
    pub id: String,
    pub name: String,
    /// Replaces the settings' system prompt when not empty.
    #[serde(default)]
    pub system_prompt: String,
    /// Replaces the settings' model when not empty.
    #[serde(default)]
    pub model: String,
    #[serde(default)]
    pub temperature: Option<f32>,
    /// The MCP servers it uses; `None`: every enabled one.
    #[serde(default)]
    pub servers: Option<Vec<String>>,
    /// MCP dynamic loading for this assistant, when the global switch is on
    /// (on by default).
    #[serde(default = "yes")]
    pub dynamic_loading: bool,
    /// The provider profile it uses (`None`: the settings' provider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// With dynamic loading: MCP tools (server, tool) loaded in each of
    /// its conversations from the first message, without a loader call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preload: Vec<(String, String)>,
    /// The model may run code in the page's sandbox (`run_javascript`;
    /// on by default).
    #[serde(default = "yes")]
    pub code: bool,
}

impl Assistant {
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Self {
        Assistant {
            id: id.into(),
            name: name.into(),
            system_prompt: String::new(),
            model: String::new(),
            temperature: None,
            servers: None,
            dynamic_loading: true,
            profile: None,
            preload: Vec::new(),
            code: true,
        }
    }

    /// The settings of a turn with this assistant.
    pub fn apply(&self, settings: &Settings) -> Settings {
        let mut s = settings.clone();
        if let Some(p) = self.profile.as_deref().and_then(|id| settings.profile(id)) {
            p.apply(&mut s);
        }
        if !self.system_prompt.trim().is_empty() {
            s.system_prompt = self.system_prompt.clone();
        }
        if !self.model.trim().is_empty() {
            s.model = self.model.trim().to_owned();
        }
        if self.temperature.is_some() {
            s.temperature = self.temperature;
        }
        s
    }

    pub fn uses_server(&self, server: &str) -> bool {
        self.servers.as_ref().is_none_or(|l| l.iter().any(|s| s == server))
    }
}

/// Every assistant, and which one each chat uses.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Assistants {
    #[serde(default)]
    pub list: Vec<Assistant>,
    /// Session id (or the new chat) → assistant id.
    #[serde(default)]
    chats: std::collections::BTreeMap<String, String>,
    /// Session id (or the new chat) → the model picked for it in the top
    /// bar, over its assistant's and the settings'.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    models: std::collections::BTreeMap<String, String>,
    /// Session id (or the new chat) → the provider profile picked for it,
    /// over its assistant's and the settings'.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    profiles: std::collections::BTreeMap<String, String>,
}

impl Assistants {
    pub fn get(&self, id: &str) -> Option<&Assistant> {
        self.list.iter().find(|a| a.id == id)
    }

    /// The assistant of chat `session` (`None`: the settings as they are).
    pub fn of_chat(&self, session: &str) -> Option<&Assistant> {
        self.chats.get(session).and_then(|id| self.get(id))
    }

    pub fn pick(&mut self, session: &str, assistant: Option<&str>) {
        match assistant {
            Some(id) if self.get(id).is_some() => {
                self.chats.insert(session.to_owned(), id.to_owned());
            }
            _ => {
                self.chats.remove(session);
            }
        }
    }

    /// Adds or replaces (by id).
    pub fn put(&mut self, assistant: Assistant) {
        match self.list.iter_mut().find(|a| a.id == assistant.id) {
            Some(a) => *a = assistant,
            None => self.list.push(assistant),
        }
    }

    /// Deletes it; the chats that used it go back to the settings.
    pub fn delete(&mut self, id: &str) {
        self.list.retain(|a| a.id != id);
        self.chats.retain(|_, a| a != id);
    }

    /// The model picked for chat `session`, if one was.
    pub fn model_of(&self, session: &str) -> Option<&str> {
        self.models.get(session).map(String::as_str)
    }

    /// Picks `model` for chat `session` (`None` or blank: back to its
    /// assistant's or the settings' model).
    pub fn pick_model(&mut self, session: &str, model: Option<&str>) {
        match model.map(str::trim).filter(|m| !m.is_empty()) {
            Some(m) => {
                self.models.insert(session.to_owned(), m.to_owned());
            }
            None => {
                self.models.remove(session);
            }
        }
    }

    /// The profile picked for chat `session`, if one was.
    pub fn profile_of(&self, session: &str) -> Option<&str> {
        self.profiles.get(session).map(String::as_str)
    }

    /// Picks provider profile `id` for chat `session` (`None`: back to its
    /// assistant's or the settings' provider). The chat's model pick goes:
    /// it belonged to the other provider.
    pub fn pick_profile(&mut self, session: &str, id: Option<&str>) {
        match id.filter(|i| !i.is_empty()) {
            Some(i) => {
                self.profiles.insert(session.to_owned(), i.to_owned());
            }
            None => {
                self.profiles.remove(session);
            }
        }
        self.models.remove(session);
    }

    /// The settings of a turn in chat `session`: its assistant's over the
    /// user's, the profile picked for it over both, and the model picked
    /// for it over all.
    /// The model chat `session` has when none is picked for it: its
    /// assistant's, else the settings'.
    pub fn usual_model(&self, session: &str, settings: &Settings) -> String {
        self.of_chat(session).map_or_else(|| settings.model.clone(), |a| a.apply(settings).model)
    }

    pub fn for_chat(&self, session: &str, settings: &Settings) -> Settings {
        let mut s = match self.of_chat(session) {
            Some(a) => a.apply(settings),
            None => settings.clone(),
        };
        if let Some(p) = self.profile_of(session).and_then(|id| settings.profile(id)) {
            p.apply(&mut s);
        }
        if let Some(m) = self.model_of(session) {
            s.model = m.to_owned();
        }
        s
    }

    /// The new chat became `session`: it keeps the assistant and the model
    /// picked.
    pub fn started(&mut self, session: &str) {
        if let Some(a) = self.chats.remove(NEW_CHAT) {
            self.chats.insert(session.to_owned(), a);
        }
        if let Some(m) = self.models.remove(NEW_CHAT) {
            self.models.insert(session.to_owned(), m);
        }
        if let Some(p) = self.profiles.remove(NEW_CHAT) {
            self.profiles.insert(session.to_owned(), p);
        }
    }

    /// A chat was deleted.
    pub fn forget(&mut self, session: &str) {
        self.chats.remove(session);
        self.models.remove(session);
        self.profiles.remove(session);
    }

    /// Reads the saved assistants; unreadable data is kept aside.
    pub fn load(kv: &impl KeyValue) -> Self {
        KEY.get(kv)
    }

    pub fn save(&self, kv: &impl KeyValue) -> crate::Result<()> {
        KEY.set(kv, self)
    }
}

/// The enabled servers `chat` uses: on for it (`choices`) and, with an
/// assistant, among the assistant's.
pub fn servers_of_chat(servers: &[crate::mcp::McpServer], choices: &crate::mcp::ChatServers, assistant: Option<&Assistant>, chat: &str) -> Vec<crate::mcp::McpServer> {
    servers.iter().filter(|s| s.enabled && choices.uses(chat, &s.name) && assistant.is_none_or(|a| a.uses_server(&s.name))).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::MemoryKv as Kv;

    #[test]
    fn an_assistant_sets_what_it_names_and_leaves_the_rest() {
        let settings = Settings { system_prompt: "Be brief.".into(), model: "m1".into(), temperature: Some(0.7), ..Settings::default() };
        let mut a = Assistant::new("a1", "Translator");
        assert_eq!(a.apply(&settings), settings, "an empty preset changes nothing");
        a.system_prompt = "Translate into French.".into();
        a.model = " m2 ".into();
        a.temperature = Some(0.1);
        let s = a.apply(&settings);
        assert_eq!((s.system_prompt.as_str(), s.model.as_str(), s.temperature), ("Translate into French.", "m2", Some(0.1)));
        assert_eq!(s.base_url, settings.base_url);
        assert!(a.uses_server("any"));
        a.servers = Some(vec!["github".into()]);
        assert!(a.uses_server("github") && !a.uses_server("slack"));
        assert!(a.dynamic_loading, "on by default");
    }

    #[test]
    fn a_chat_remembers_the_model_picked_for_it() {
        let kv = Kv::default();
        let settings = Settings { model: "m1".into(), ..Settings::default() };
        let mut all = Assistants::default();
        let mut a = Assistant::new("a1", "Translator");
        a.model = "m2".into();
        all.put(a);
        all.pick("s1", Some("a1"));
        assert_eq!(all.for_chat("s1", &settings).model, "m2", "the assistant's model");
        all.pick_model("s1", Some(" m3 "));
        assert_eq!(all.for_chat("s1", &settings).model, "m3", "the chat's pick over its assistant's");
        assert_eq!(all.for_chat("s2", &settings).model, "m1", "other chats keep the settings' model");
        // A new chat's pick moves to it when it starts, and goes with it.
        all.pick_model(NEW_CHAT, Some("m4"));
        all.started("s3");
        assert_eq!((all.model_of("s3"), all.model_of(NEW_CHAT)), (Some("m4"), None));
        all.save(&kv).unwrap();
        assert_eq!(Assistants::load(&kv), all);
        all.pick_model("s1", Some("  "));
        assert_eq!(all.for_chat("s1", &settings).model, "m2", "blank: back to the assistant's");
        all.forget("s3");
        assert_eq!(all.model_of("s3"), None);
    }

    #[test]
    fn chats_remember_their_assistant() {
        let kv = Kv::default();
        let mut all = Assistants::default();
        all.put(Assistant::new("a1", "Translator"));
        all.put(Assistant::new("a2", "Coder"));
        all.pick(NEW_CHAT, Some("a2"));
        all.started("s1");
        assert_eq!(all.of_chat("s1").map(|a| a.name.as_str()), Some("Coder"));
        assert!(all.of_chat(NEW_CHAT).is_none());
        all.pick("s2", Some("nope"));
        assert!(all.of_chat("s2").is_none(), "an unknown assistant is not picked");
        all.put(Assistant { name: "Coder 2".into(), ..Assistant::new("a2", "") });
        assert_eq!(all.list.len(), 2);
        assert_eq!(all.of_chat("s1").map(|a| a.name.as_str()), Some("Coder 2"));
        all.save(&kv).unwrap();
        assert_eq!(Assistants::load(&kv), all);
        all.delete("a2");
        assert!(all.of_chat("s1").is_none(), "its chats go back to the settings");
        kv.set(KEY.name, "{broken").unwrap();
        assert_eq!(Assistants::load(&kv), Assistants::default());
        assert_eq!(kv.get(&format!("{}.corrupt", KEY.name)).as_deref(), Some("{broken"));
    }

    #[test]
    fn a_chat_or_an_assistant_can_use_another_provider_and_its_key_goes_with_it() {
        use crate::settings::Profile;
        let mut settings = Settings { base_url: "http://127.0.0.1:8080/v1".into(), api_key: "".into(), model: "local".into(), ..Settings::default() };
        settings.profiles.push(Profile { id: "p1".into(), name: "Cloud".into(), base_url: "https://api.example.com/v1".into(), api_key: "sk-cloud".into(), model: "big".into() });
        let mut all = Assistants::default();
        assert_eq!(all.for_chat("s1", &settings).base_url, settings.base_url);
        all.pick_model("s1", Some("other-local"));
        all.pick_profile("s1", Some("p1"));
        let s = all.for_chat("s1", &settings);
        assert_eq!((s.base_url.as_str(), s.api_key.as_str(), s.model.as_str()), ("https://api.example.com/v1", "sk-cloud", "big"), "the model picked for the other provider goes");
        all.pick_model("s1", Some("bigger"));
        assert_eq!(all.for_chat("s1", &settings).model, "bigger");
        assert_eq!(all.for_chat("s2", &settings).api_key, "", "other chats keep theirs");
        // An assistant naming the profile; a chat's own pick wins.
        let mut a = Assistant::new("a1", "Researcher");
        a.profile = Some("p1".into());
        a.model = "huge".into();
        all.put(a);
        all.pick("s2", Some("a1"));
        let s = all.for_chat("s2", &settings);
        assert_eq!((s.api_key.as_str(), s.model.as_str()), ("sk-cloud", "huge"));
        all.pick_profile("s2", None);
        assert_eq!(all.for_chat("s2", &settings).base_url, "https://api.example.com/v1", "back to the assistant's");
        // A profile that was removed is ignored.
        settings.profiles.clear();
        assert_eq!(all.for_chat("s1", &settings).base_url, "http://127.0.0.1:8080/v1");
        // Moving a profile's URL to another origin drops its key.
        let mut p = Profile { base_url: "https://api.example.com/v1".into(), api_key: "sk".into(), ..Profile::default() };
        p.edit_base_url("https://api.example.com/v2");
        assert_eq!(p.api_key, "sk");
        p.edit_base_url("https://evil.example.net/v1");
        assert_eq!(p.api_key, "");
        // Started and forgotten like the model pick.
        all.pick_profile(NEW_CHAT, Some("p1"));
        all.started("s3");
        assert_eq!(all.profile_of("s3"), Some("p1"));
        all.forget("s3");
        assert_eq!(all.profile_of("s3"), None);
    }
}

//! The providers a choice can name (the settings' own and each profile),
//! the models known for each, and the MCP summarizer's pick among them.

use crate::settings::Settings;

/// The settings' own provider, as a pick names it.
pub const MAIN: &str = "";

/// A provider to pick: `id` is [`MAIN`] or a profile's id; `settings`
/// are those a request to it is made with (its base URL and key).
#[derive(Debug, Clone, PartialEq)]
pub struct Provider {
    pub id: String,
    /// The profile's name (or its URL); empty for [`MAIN`].
    pub name: String,
    pub settings: Settings,
}

impl Settings {
    /// The settings' own provider, then each profile.
    pub fn providers(&self) -> Vec<Provider> {
        let mut out = vec![Provider { id: MAIN.into(), name: String::new(), settings: self.clone() }];
        for p in &self.profiles {
            let mut settings = self.clone();
            p.apply(&mut settings);
            let name = if p.name.trim().is_empty() { p.base_url.trim().to_owned() } else { p.name.trim().to_owned() };
            out.push(Provider { id: p.id.clone(), name, settings });
        }
        out
    }

    /// The models known for `provider`: those it listed (`listed`), then
    /// those in use with it (its model, the summarizer's when it runs
    /// there, any other something was learnt of at its base URL), each
    /// once, in that order.
    pub fn models_of(&self, provider: &Provider, listed: &[String]) -> Vec<String> {
        let base = provider.settings.base_url.trim().trim_end_matches('/');
        let mut out: Vec<String> = listed.to_vec();
        out.push(provider.settings.model.trim().to_owned());
        if self.mcp_summarizer_profile == provider.id {
            out.push(self.mcp_summarizer_model.trim().to_owned());
        }
        out.extend(self.known_models([]).into_iter().filter(|k| k.base_url == base).map(|k| k.model));
        let mut seen = std::collections::BTreeSet::new();
        out.retain(|m| !m.is_empty() && seen.insert(m.clone()));
        out
    }

    /// The settings the MCP summarizer runs with: its provider's (base
    /// URL, key) with its model. `None`: no summarizer is set, or its
    /// profile is gone (the servers' descriptions are used).
    pub fn summarizer(&self) -> Option<Settings> {
        if !self.has_summarizer() {
            return None;
        }
        let mut settings = self.providers().into_iter().find(|p| p.id == self.mcp_summarizer_profile)?.settings;
        settings.model = self.mcp_summarizer_model.trim().to_owned();
        Some(settings)
    }

    /// Whether [`Settings::summarizer`] is one (without making it).
    pub fn has_summarizer(&self) -> bool {
        let id = self.mcp_summarizer_profile.as_str();
        !self.mcp_summarizer_model.trim().is_empty() && (id == MAIN || self.profile(id).is_some())
    }

    /// Picks the summarizer: a provider and one of its models (`None`:
    /// none).
    pub fn pick_summarizer(&mut self, pick: Option<(&str, &str)>) {
        let (profile, model) = pick.unwrap_or((MAIN, ""));
        self.mcp_summarizer_profile = profile.to_owned();
        self.mcp_summarizer_model = model.trim().to_owned();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Profile;

    fn settings() -> Settings {
        let mut s = Settings { base_url: "https://main.test/v1".into(), api_key: "sk-main".into(), model: "big".into(), ..Settings::default() };
        s.profiles.push(Profile { id: "p1".into(), name: "Cheap".into(), base_url: "https://cheap.test/v1".into(), api_key: "sk-cheap".into(), model: "small".into() });
        s
    }

    #[test]
    fn a_summarizer_saved_as_a_model_name_runs_on_the_main_provider() {
        // What older versions saved: only the model.
        let s: Settings = serde_json::from_str(r#"{"baseUrl": "https://main.test/v1", "apiKey": "sk-main", "mcpSummarizerModel": "summarizer"}"#).unwrap_or_default();
        assert_eq!(s.mcp_summarizer_profile, MAIN);
        let run = s.summarizer().map(|x| (x.base_url, x.api_key, x.model));
        assert_eq!(run, Some(("https://main.test/v1".into(), "sk-main".into(), "summarizer".into())));
        assert!(s.has_summarizer());
        assert_eq!(Settings::default().summarizer(), None, "none set");
    }

    #[test]
    fn a_summarizer_at_a_profile_runs_with_its_url_and_key() {
        let mut s = settings();
        s.pick_summarizer(Some(("p1", " tiny ")));
        let run = s.summarizer().map(|x| (x.chat_url(), x.api_key, x.model));
        assert_eq!(run, Some(("https://cheap.test/v1/chat/completions".into(), "sk-cheap".into(), "tiny".into())));
        s.profiles.clear();
        assert_eq!(s.summarizer(), None, "its profile is gone");
        assert!(!s.has_summarizer());
        s.pick_summarizer(None);
        assert_eq!((s.mcp_summarizer_profile.as_str(), s.mcp_summarizer_model.as_str()), (MAIN, ""));
    }

    #[test]
    fn each_provider_offers_what_it_listed_and_what_is_in_use() {
        let mut s = settings();
        s.pick_summarizer(Some(("p1", "unlisted")));
        s.vision.insert("https://cheap.test/v1 seen".into(), false);
        let providers = s.providers();
        let names: Vec<_> = providers.iter().map(|p| (p.id.as_str(), p.name.as_str())).collect();
        assert_eq!(names, [(MAIN, ""), ("p1", "Cheap")]);
        assert_eq!(s.models_of(&providers[0], &["a".into(), "big".into()]), ["a", "big"]);
        assert_eq!(s.models_of(&providers[1], &["a".into()]), ["a", "small", "unlisted", "seen"]);
    }
}

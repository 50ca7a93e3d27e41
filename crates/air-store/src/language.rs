//! The UI language: the one the user picked in Settings, else the
//! browser's ([`resolve`]). Only a pick is saved, so a first run follows
//! the browser until the user picks one, and settings written by versions
//! that always saved a language (`"language": "en"`) keep the language
//! they name.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Language {
    #[default]
    #[serde(rename = "en")]
    English,
    #[serde(rename = "zh")]
    Chinese,
}

impl Language {
    /// The tag of `<html lang>` (and of what MCP Apps are told).
    pub fn tag(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::Chinese => "zh-CN",
        }
    }

    /// The language of a browser's language tag: Chinese for `zh` and
    /// every `zh-…` (`zh-CN`, `zh-TW`, `zh-Hans`…), English otherwise.
    pub fn of_tag(tag: &str) -> Language {
        let primary = tag.trim().split(['-', '_']).next().unwrap_or_default();
        if primary.eq_ignore_ascii_case("zh") { Language::Chinese } else { Language::English }
    }
}

impl From<Language> for air_chat::Lang {
    fn from(l: Language) -> Self {
        match l {
            Language::English => air_chat::Lang::En,
            Language::Chinese => air_chat::Lang::Zh,
        }
    }
}

/// The language the UI speaks: `chosen` if the user picked one, else the
/// browser's first language (`navigator.languages`, most preferred
/// first): Chinese for a `zh-*` one, English for anything else or none.
pub fn resolve<S: AsRef<str>>(chosen: Option<Language>, browser_languages: &[S]) -> Language {
    chosen.unwrap_or_else(|| browser_languages.first().map_or(Language::English, |tag| Language::of_tag(tag.as_ref())))
}

/// `Settings::language`: the pick, if any (the only part saved), and what
/// the browser asks for (read at every start, [`UiLanguage::follow`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UiLanguage {
    chosen: Option<Language>,
    browser: Language,
}

impl UiLanguage {
    /// The language the UI speaks now.
    pub fn current(self) -> Language {
        self.chosen.unwrap_or(self.browser)
    }

    /// What the user picked (`None`: never; the browser's is followed).
    pub fn choice(self) -> Option<Language> {
        self.chosen
    }

    /// The user picks `language`: kept from now on, whatever the browser says.
    pub fn choose(&mut self, language: Language) {
        self.chosen = Some(language);
    }

    /// The browser's languages, most preferred first: followed while
    /// nothing is picked.
    pub fn follow<S: AsRef<str>>(&mut self, browser_languages: &[S]) {
        self.browser = resolve(None, browser_languages);
    }

    /// Nothing picked: nothing to save.
    pub fn is_unchosen(&self) -> bool {
        self.chosen.is_none()
    }
}

impl From<UiLanguage> for air_chat::Lang {
    fn from(l: UiLanguage) -> Self {
        l.current().into()
    }
}

/// Saved as the pick alone, as older versions wrote the language (`"en"`,
/// `"zh"`); `Settings` leaves it out while nothing is picked.
impl Serialize for UiLanguage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.chosen.serialize(s)
    }
}

/// Reads a pick; `null`, or a language this version does not know (a newer
/// version's), is no pick, so the rest of the settings still read.
impl<'de> Deserialize<'de> for UiLanguage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Option::<serde_json::Value>::deserialize(d)?;
        let chosen = match value.as_ref().and_then(serde_json::Value::as_str) {
            Some("en" | "english" | "English") => Some(Language::English),
            Some("zh" | "chinese" | "Chinese") => Some(Language::Chinese),
            _ => None,
        };
        Ok(Self { chosen, browser: Language::default() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::KeyValue;
    use crate::settings::{KEY, MemoryKv, Settings, load, save};

    const ZH_BROWSER: &[&str] = &["zh-CN", "zh", "en-US"];
    const EN_BROWSER: &[&str] = &["en-US", "zh-CN"];

    #[test]
    fn nothing_chosen_the_browsers_first_language_decides() {
        for tag in ["zh", "zh-CN", "zh-TW", "zh-Hans", "zh-Hant-HK", "ZH-hk", "zh_CN", " zh-SG "] {
            assert_eq!(resolve(None, &[tag, "en"]), Language::Chinese, "{tag}");
        }
        // Zhuang (`zha`) is not Chinese; nor is anything else.
        for tag in ["en", "en-US", "fr-FR", "ja", "zha", "", "x-zh"] {
            assert_eq!(resolve(None, &[tag, "zh-CN"]), Language::English, "{tag}");
        }
        assert_eq!(resolve::<&str>(None, &[]), Language::English, "no language said: English");
    }

    #[test]
    fn a_choice_wins_over_the_browser() {
        assert_eq!(resolve(Some(Language::English), ZH_BROWSER), Language::English);
        assert_eq!(resolve(Some(Language::Chinese), EN_BROWSER), Language::Chinese);
        let mut l = UiLanguage::default();
        l.follow(ZH_BROWSER);
        assert_eq!((l.current(), l.choice()), (Language::Chinese, None));
        assert_eq!(air_chat::Lang::from(l), air_chat::Lang::Zh);
        l.choose(Language::English);
        l.follow(ZH_BROWSER);
        assert_eq!((l.current(), l.choice()), (Language::English, Some(Language::English)));
        assert_eq!(air_chat::Lang::from(l), air_chat::Lang::En);
        assert_eq!((Language::English.tag(), Language::Chinese.tag()), ("en", "zh-CN"));
    }

    /// Settings as read on a start in a browser that prefers `browser`.
    fn started(kv: &MemoryKv, browser: &[&str]) -> Settings {
        let mut s = load(kv).settings;
        s.language.follow(browser);
        s
    }

    #[test]
    fn a_first_run_follows_the_browser_until_a_pick_is_saved() {
        let kv = MemoryKv::default();
        assert_eq!(started(&kv, ZH_BROWSER).language.current(), Language::Chinese);
        assert_eq!(started(&kv, EN_BROWSER).language.current(), Language::English);
        // Other settings saved meanwhile: still no pick, nothing saved of it.
        let mut s = started(&kv, ZH_BROWSER);
        s.model = "qwen".into();
        assert!(save(&kv, &s).is_ok());
        let raw = kv.get(KEY.name).unwrap_or_default();
        assert!(!raw.contains("language"), "{raw}");
        assert_eq!(started(&kv, EN_BROWSER).language.current(), Language::English);
        assert_eq!(started(&kv, ZH_BROWSER).language.current(), Language::Chinese);
        // Picked English in a Chinese browser: kept over reloads.
        s.language.choose(Language::English);
        assert!(save(&kv, &s).is_ok());
        assert!(kv.get(KEY.name).unwrap_or_default().contains(r#""language":"en""#));
        let again = started(&kv, ZH_BROWSER);
        assert_eq!((again.language.current(), again.model.as_str()), (Language::English, "qwen"));
        assert_eq!(again, s);
    }

    #[test]
    fn what_older_versions_saved_keeps_its_meaning() {
        let kv = MemoryKv::default();
        // They always wrote the language: it reads as picked.
        for (stored, meant) in [("en", Language::English), ("zh", Language::Chinese)] {
            kv.set(KEY.name, &format!(r#"{{"model":"m","theme":"dark","language":"{stored}"}}"#)).ok();
            for browser in [ZH_BROWSER, EN_BROWSER] {
                let l = load(&kv);
                assert!(l.warning.is_none(), "{stored}");
                let mut s = l.settings;
                s.language.follow(browser);
                assert_eq!((s.language.current(), s.language.choice()), (meant, Some(meant)), "{stored} in {browser:?}");
            }
            // Written again as it was.
            let s = load(&kv).settings;
            assert!(save(&kv, &s).is_ok());
            assert!(kv.get(KEY.name).unwrap_or_default().contains(&format!(r#""language":"{stored}""#)));
        }
        // No pick, `null`, or a language this version does not know: the
        // browser's, and the rest of the settings still read.
        for stored in [r#"{"model":"m"}"#, r#"{"model":"m","language":null}"#, r#"{"model":"m","language":"fr"}"#, r#"{"model":"m","language":3}"#] {
            kv.set(KEY.name, stored).ok();
            let l = load(&kv);
            assert!(l.warning.is_none(), "{stored}: {:?}", l.warning);
            assert_eq!((l.settings.model.as_str(), l.settings.language.choice()), ("m", None), "{stored}");
            assert_eq!(started(&kv, ZH_BROWSER).language.current(), Language::Chinese, "{stored}");
        }
    }

    #[test]
    fn older_versions_read_what_this_one_saves() {
        // The settings as versions before the pick read them.
        #[derive(Default, serde::Deserialize)]
        #[serde(default)]
        struct Older {
            language: Language,
            model: String,
        }
        let read = |s: &Settings| serde_json::from_str::<Older>(&serde_json::to_string(s).unwrap_or_default()).map(|o| (o.language, o.model));
        let mut s = Settings { model: "m".into(), ..Settings::default() };
        s.language.follow(ZH_BROWSER);
        assert_eq!(read(&s).ok(), Some((Language::English, "m".to_owned())), "no pick: their default");
        s.language.choose(Language::Chinese);
        assert_eq!(read(&s).ok(), Some((Language::Chinese, "m".to_owned())));
    }
}

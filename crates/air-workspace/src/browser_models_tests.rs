use super::*;
use crate::fake::{FakePlatform, Harness};
use crate::{Command, Update};

fn started() -> Harness {
    let mut h = Harness::new(FakePlatform::default());
    h.send(Command::Start);
    h.take();
    h
}

fn state_of(ups: &[Update]) -> Option<State> {
    ups.iter().rev().find_map(|u| if let Update::BrowserModels(s) = u { Some(s.clone()) } else { None })
}

fn offer(name: &str, size: u64) -> Offer {
    Offer { name: name.into(), title: name.into(), url: format!("https://site.test/models/{name}"), size: Some(size), ..Offer::default() }
}

#[test]
fn the_site_s_own_models_come_first_then_the_known_ones_each_once() {
    let mut h = started();
    let known = known();
    h.p.browser_site.borrow_mut().extend([offer("site.gguf", 98_362_432), Offer { url: "https://mirror.test/q.gguf".into(), ..known[0].clone() }]);
    h.send(Command::BrowserModels(Action::Open));
    let s = state_of(&h.take()).expect("listed");
    let names: Vec<&str> = s.offered.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names[..2], ["site.gguf", known[0].name.as_str()]);
    assert_eq!(s.offered.len(), 1 + known.len(), "{names:?}");
    // The site's entry for a known model wins (its own mirror).
    assert_eq!(s.offered[1].url, "https://mirror.test/q.gguf");
    assert_eq!(s.offered[0].mb(), Some(99));
    assert!(known.iter().all(|k| k.mb().is_some() && k.url.starts_with("https://")));
    assert_eq!(s.usage, Some((1024.0, 1_048_576.0)));
}

#[test]
fn a_download_shows_its_progress_and_ends_stored() {
    let mut h = started();
    h.send(Command::BrowserModels(Action::Download(offer("a.gguf", 1000))));
    let s = state_of(&h.take()).expect("downloading");
    assert_eq!(s.downloading, Some(Progress { name: "a.gguf".into(), got: 0, total: 1000 }));
    h.send(Command::BrowserModels(Action::Progress { name: "a.gguf".into(), got: 400, total: 1000 }));
    assert_eq!(state_of(&h.take()).and_then(|s| s.downloading).map(|p| p.got), Some(400));
    // A second download waits for the first (one at a time).
    h.send(Command::BrowserModels(Action::Download(offer("b.gguf", 10))));
    assert!(state_of(&h.take()).is_none());
    // Progress of another name is not this download's.
    h.send(Command::BrowserModels(Action::Progress { name: "b.gguf".into(), got: 5, total: 10 }));
    assert!(state_of(&h.take()).is_none());

    *h.p.browser_download.borrow_mut() = Some(Ok(()));
    h.run();
    let s = state_of(&h.take()).expect("listed again");
    assert_eq!(s.downloading, None);
    assert_eq!(s.error, None);
    assert_eq!(s.stored.iter().map(|m| (m.name.as_str(), m.complete)).collect::<Vec<_>>(), [("a.gguf", true)]);
}

#[test]
fn a_stopped_download_says_nothing_went_wrong_and_a_failed_one_says_why() {
    let mut h = started();
    h.send(Command::BrowserModels(Action::Download(offer("a.gguf", 1000))));
    h.send(Command::BrowserModels(Action::Stop));
    h.run();
    let s = state_of(&h.take()).expect("stopped");
    assert_eq!((s.downloading, s.error), (None, None));

    h.send(Command::BrowserModels(Action::Download(offer("a.gguf", 1000))));
    *h.p.browser_download.borrow_mut() = Some(Err("its sha256 is 00, not ff".into()));
    h.run();
    let s = state_of(&h.take()).expect("failed");
    assert_eq!(s.error.as_deref(), Some("a.gguf: its sha256 is 00, not ff"));
    assert!(s.stored.is_empty());
    // The next download clears the message.
    h.send(Command::BrowserModels(Action::Download(offer("a.gguf", 1000))));
    assert_eq!(state_of(&h.take()).and_then(|s| s.error), None);
}

#[test]
fn a_picked_file_and_a_deletion_show_in_the_list() {
    let mut h = started();
    h.send(Command::BrowserModels(Action::StoreFile));
    h.run();
    let s = state_of(&h.take()).expect("stored");
    assert_eq!(s.stored.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["picked.gguf"]);
    h.send(Command::BrowserModels(Action::Delete("picked.gguf".into())));
    h.run();
    assert!(state_of(&h.take()).expect("deleted").stored.is_empty());
}

#[test]
fn the_site_s_list_is_read_with_its_urls_made_whole_and_bad_entries_left_out() {
    let text = r#"{"models": [
        {"name": "SmolLM2-135M-Instruct.Q4_1.gguf", "title": "SmolLM2 135M", "url": "SmolLM2-135M-Instruct.Q4_1.gguf", "size": 98362432,
         "sha256": "B179C9523D0E6A0F98A330C7562B682750A6F8C8C15E5BC70EA373728110DB53", "licence": "Apache-2.0", "tools": false, "languages": "English"},
        {"name": "../escape.gguf", "url": "x.gguf"},
        {"name": "no-url.gguf"},
        {"name": "far.gguf", "url": "https://cdn.test/far.gguf", "sha256": "not-a-hash"}
    ]}"#;
    let list = site_list(text, "http://127.0.0.1:8080/app/models/index.json").expect("read");
    assert_eq!(list.len(), 2, "{list:?}");
    assert_eq!(list[0].url, "http://127.0.0.1:8080/app/models/SmolLM2-135M-Instruct.Q4_1.gguf");
    assert_eq!(list[0].size, Some(98_362_432));
    assert_eq!(list[0].sha256.as_deref().map(str::len), Some(64));
    assert_eq!(list[0].title, "SmolLM2 135M");
    assert_eq!((list[1].url.as_str(), list[1].sha256.as_ref(), list[1].title.as_str()), ("https://cdn.test/far.gguf", None, "far.gguf"));
    assert!(site_list("<html>", "http://x/models/index.json").is_err());
    assert!(site_list("{}", "http://x/models/index.json").is_err());
}

#[test]
fn a_part_that_cannot_be_fetched_is_said_and_no_download_stays_shown() {
    let mut h = started();
    h.p.parts_missing.set(true);
    h.send(Command::BrowserModels(Action::Download(offer("a.gguf", 1000))));
    h.run();
    let ups = h.take();
    assert!(ups.iter().any(|u| matches!(u, Update::Notice(crate::Notice::PartMissing))), "{ups:?}");
    assert_eq!(state_of(&ups).and_then(|s| s.downloading), None);
    // A download can be asked for again.
    h.p.parts_missing.set(false);
    h.send(Command::BrowserModels(Action::Download(offer("a.gguf", 1000))));
    assert!(state_of(&h.take()).and_then(|s| s.downloading).is_some());
}

#[test]
fn chat_here_makes_this_browser_the_provider_and_downloads_the_first_offer() {
    let mut h = started();
    h.p.browser_site.borrow_mut().push(offer("site.gguf", 1000));
    h.send(Command::BrowserModels(Action::ChatHere));
    h.run();
    let ups = h.take();
    let settings = ups.iter().rev().find_map(|u| if let Update::Settings(s) = u { Some(s.clone()) } else { None }).expect("settings");
    assert_eq!((settings.provider.as_str(), settings.base_url.as_str(), settings.model.as_str()), ("browser", air_store::settings::BROWSER_BASE_URL, "site.gguf"));
    assert_eq!(state_of(&ups).and_then(|s| s.downloading).map(|p| p.name), Some("site.gguf".into()));
    // Stored, it ends; a second click uses what is stored, with no download.
    *h.p.browser_download.borrow_mut() = Some(Ok(()));
    assert_eq!(h.p.asked(crate::platform::Part::Turn, None), 0);
    h.run();
    h.take();
    // Stored, the model reads the first message's request ahead.
    assert_eq!(h.p.asked(crate::platform::Part::Turn, None), 1, "a read-ahead");
    h.send(Command::BrowserModels(Action::ChatHere));
    h.run();
    let ups = h.take();
    assert_eq!(state_of(&ups).and_then(|s| s.downloading), None);
    assert!(ups.iter().any(|u| matches!(u, Update::Settings(s) if s.model == "site.gguf")) || h.ws.prefs().settings.model == "site.gguf");
}

#[test]
fn a_model_by_url_is_named_after_its_file_and_stored_ones_not_offered_are_rows_too() {
    let by_url = Offer::by_url(" https://example.org/m/tiny.Q4_0.gguf?download=1#x ").expect("a URL");
    assert_eq!((by_url.name.as_str(), by_url.url.as_str()), ("tiny.Q4_0.gguf", "https://example.org/m/tiny.Q4_0.gguf?download=1#x"));
    assert!(Offer::by_url("  ").is_none());
    let stored = |name: &str| Stored { name: name.into(), url: String::new(), size: 7, stored: 7, complete: true };
    let state = State { offered: vec![offer("a.gguf", 1)], stored: vec![stored("a.gguf"), stored("mine.gguf")], ..State::default() };
    let rows: Vec<_> = state.rows().into_iter().map(|o| (o.name, o.size)).collect();
    assert_eq!(rows, [("a.gguf".to_owned(), Some(1)), ("mine.gguf".to_owned(), Some(7))]);
}

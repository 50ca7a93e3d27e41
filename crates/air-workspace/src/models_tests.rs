use air_http::HttpError;
use air_http::fake::Script;
use air_store::Settings;

use super::*;
use crate::fake::{FakePlatform, Harness};
use crate::{Command, Update};

fn settings(model: &str, key: &str) -> Box<Settings> {
    Box::new(Settings { base_url: "http://model.test/v1".into(), model: model.into(), api_key: key.into(), ..Settings::default() })
}

fn models(names: &[&str]) -> Script {
    let data: Vec<_> = names.iter().map(|n| serde_json::json!({"id": n, "object": "model"})).collect();
    Script::status(200, &serde_json::json!({"object": "list", "data": data}).to_string())
}

fn started() -> Harness {
    let mut h = Harness::new(FakePlatform::default());
    h.send(Command::Start);
    h.take();
    h
}

fn test_of(ups: &[Update]) -> Option<Test> {
    ups.iter().rev().find_map(|u| if let Update::ProviderTest(t) = u { Some(t.clone()) } else { None })
}

#[test]
fn the_test_says_whether_the_provider_has_the_model_named() {
    let mut h = started();
    h.p.http.push(models(&["small", "large"]));
    h.send(Command::Models(Action::Test(settings("large", ""))));
    let ups = h.take();
    assert_eq!(ups.iter().find(|u| matches!(u, Update::ProviderTest(_))), Some(&Update::ProviderTest(Test::Running)));
    assert_eq!(test_of(&ups), Some(Test::Listed { models: vec!["large".into(), "small".into()], missing: None }));

    h.p.http.push(models(&["small"]));
    h.send(Command::Models(Action::Test(settings(" huge ", ""))));
    assert_eq!(test_of(&h.take()), Some(Test::Listed { models: vec!["small".into()], missing: Some("huge".into()) }));
    assert_eq!(h.p.http.requests()[0].url, "http://model.test/v1/models");
}

#[test]
fn an_answer_the_page_cannot_read_asks_the_doctor() {
    let mut h = started();
    h.p.http.push(Script::Fail(HttpError::Network("Failed to fetch".into())));
    h.send(Command::Models(Action::Test(settings("m", "sk-1"))));
    let ups = h.take();
    assert!(matches!(test_of(&ups), Some(Test::Failed(ChatError::Network { .. } | ChatError::Cors { .. }))), "{ups:?}");
    let probes: Vec<String> = h.p.probes.borrow().iter().map(|(u, _)| u.clone()).collect();
    assert_eq!(probes, ["http://model.test/v1/chat/completions"]);

    // A provider that answers with an error is said as it is, no doctor.
    h.p.http.push(Script::status(401, r#"{"error":{"message":"bad key"}}"#));
    h.send(Command::Models(Action::Test(settings("m", "sk-1"))));
    assert!(matches!(test_of(&h.take()), Some(Test::Failed(_))));
    assert_eq!(h.p.probes.borrow().len(), 1);
}

#[test]
fn the_pickers_list_is_asked_once_per_provider_and_key() {
    let mut h = started();
    h.p.http.push(models(&["a", "b"]));
    h.send(Command::Models(Action::Want(settings("a", ""))));
    let lists = h.take().into_iter().rev().find_map(|u| if let Update::ModelLists(l) = u { Some(l) } else { None }).expect("the lists");
    assert_eq!(lists.of(&settings("a", "").models_source()), ["a".to_owned(), "b".to_owned()]);
    h.send(Command::Models(Action::Want(settings("b", ""))));
    assert_eq!(h.p.http.requests().len(), 1, "asked once");
    h.p.http.push(models(&["c"]));
    h.send(Command::Models(Action::Want(settings("a", "sk-2"))));
    assert_eq!(h.p.http.requests().len(), 2, "with a key, the provider may list more");
}

//! Two devices' preferences through a server in memory: what each made
//! reaches the other, secrets stay home unless the settings say,
//! edits made apart end the same on both with nothing silently lost, and
//! a plain database carries none of it.

use air_store::assistants::{Assistant, Assistants};
use air_store::http_tools::{self, SavedHttpTool};
use air_store::mcp::{self, McpServer};
use air_store::settings::{self, Profile};
use air_sync::MemoryPeer;
use pollster::block_on as run;

use super::*;
use crate::sync::device_tests::{Device, two_devices as setup};
use crate::sync::store::StoreRecords;

impl Device {
    fn add_server(&self, id: &str, name: &str, headers: &[(&str, &str)]) {
        let mut list = self.servers();
        list.push(McpServer {
            id: id.into(),
            name: name.into(),
            url: format!("https://{name}.example/mcp"),
            headers: headers.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect(),
            enabled: true,
            tools: Vec::new(),
            excluded: Vec::new(),
            protocol: None,
            trust_hints: false,
        });
        mcp::save(&self.kv, &list).unwrap();
    }

    fn assistants(&self) -> Vec<(String, String)> {
        let mut v: Vec<_> = Assistants::load(&self.kv).list.into_iter().map(|a| (a.id, a.system_prompt)).collect();
        v.sort();
        v
    }

    fn put_assistant(&self, id: &str, prompt: &str) {
        let mut all = Assistants::load(&self.kv);
        let mut a = Assistant::new(id, id);
        a.system_prompt = prompt.into();
        all.put(a);
        all.save(&self.kv).unwrap();
    }
}

/// Syncs both until nothing moves (what a device settled goes to the
/// other once more); a ping-pong fails.
fn settle(server: &MemoryPeer, a: &Device, b: &Device) {
    for _ in 0..4 {
        let (x, y) = (a.sync(server), b.sync(server));
        if x.0 + x.1 + y.0 + y.1 == 0 {
            return;
        }
    }
    panic!("the devices never settle");
}

#[test]
fn what_one_device_set_up_reaches_the_other_and_its_secrets_stay_home() {
    let (server, a, b) = setup();
    a.edit_settings(|s| {
        s.model = "gpt-4.1".into();
        s.api_key = "sk-laptop".into();
        s.profiles.push(Profile { id: "p1".into(), name: "Groq".into(), base_url: "https://api.groq.com/openai/v1".into(), api_key: "gsk-laptop".into(), model: "llama".into() });
    });
    a.add_server("srv1", "search", &[("Authorization", "Bearer tok")]);
    a.put_assistant("writer", "Write plainly.");
    let tool: air_http_tools::HttpTool = serde_json::from_value(
        serde_json::json!({"name": "weather", "inputSchema": {"type": "object"}, "method": "GET", "url": "https://wx.example/", "headers": [{"name": "X-Key", "value": "wx-secret", "secret": true}]}),
    )
    .unwrap();
    http_tools::KEY.set(&a.kv, &vec![SavedHttpTool::new(tool)]).unwrap();
    b.edit_settings(|s| s.api_key = "sk-phone".into());

    // As a first device does: the database's configuration, then a pass,
    // which says what it sent; the configuration is not received.
    server.put(serde_json::json!({"_id": air_sync_local::envelope::CONFIG_ID, "v": 2})).unwrap();
    let first = a.pass(&server, true);
    let each = |k: &[&str]| k.iter().map(|k| ((*k).to_owned(), 1)).collect::<std::collections::BTreeMap<_, _>>();
    assert_eq!((first.up, first.down), (4, 0));
    assert_eq!(first.moved.sent, each(&["assistant", "http", "server", "settings"]));
    assert!(first.moved.taken.is_empty());
    let joined = b.pass(&server, true);
    assert!(joined.prefs && joined.down >= 4);
    assert!(each(&["assistant", "http", "server", "settings"]).iter().all(|(k, _)| joined.moved.taken.contains_key(k)), "{:?}", joined.moved);
    let s = b.settings();
    assert_eq!(s.model, "gpt-4.1", "the database's settings win over a joining device's");
    assert_eq!(s.api_key, "sk-phone", "API keys do not travel unless asked");
    assert_eq!(s.profiles[0].name, "Groq");
    assert_eq!(s.profiles[0].api_key, "", "a profile's key neither");
    assert_eq!(b.servers()[0].url, "https://search.example/mcp");
    assert!(b.servers()[0].headers.is_empty(), "headers do not travel unless asked");
    assert_eq!(b.assistants(), [("writer".into(), "Write plainly.".into())]);
    let tools = http_tools::KEY.get(&b.kv);
    assert_eq!(tools[0].tool.headers[0].value, "", "nor an HTTP tool's secret header");
    // Nothing goes back and forth when nothing changed.
    assert_eq!(b.sync(&server).0, 0, "what arrived is not sent back");
    settle(&server, &a, &b);
    assert_eq!(a.settings().model, "gpt-4.1");

    // Asked to, on one device: the keys and headers follow.
    a.edit_settings(|s| (s.sync_keys, s.sync_headers) = (true, true));
    a.sync(&server);
    b.sync(&server);
    assert_eq!(b.settings().api_key, "sk-laptop");
    assert_eq!(b.settings().profiles[0].api_key, "gsk-laptop");
    assert_eq!(b.servers()[0].headers, [("Authorization".to_owned(), "Bearer tok".to_owned())]);
    assert_eq!(http_tools::KEY.get(&b.kv)[0].tool.headers[0].value, "wx-secret");
    settle(&server, &a, &b);
    assert_eq!(a.settings().api_key, "sk-laptop");
}

#[test]
fn edits_made_apart_end_the_same_on_both_and_the_loser_is_kept() {
    let (server, a, b) = setup();
    a.put_assistant("writer", "v1");
    a.put_assistant("coder", "v1");
    a.sync(&server);
    b.sync(&server);
    // Apart: each edits another assistant, and both edit the settings.
    a.put_assistant("writer", "laptop's");
    b.put_assistant("coder", "phone's");
    a.edit_settings(|s| s.system_prompt = "from the laptop".into());
    a.clock.set(a.clock.get() + 1_000.0);
    b.clock.set(a.clock.get() + 5_000.0);
    b.edit_settings(|s| s.system_prompt = "from the phone, later".into());
    settle(&server, &a, &b);
    let want = vec![("coder".to_owned(), "phone's".to_owned()), ("writer".to_owned(), "laptop's".to_owned())];
    assert_eq!(a.assistants(), want);
    assert_eq!(b.assistants(), want);
    assert_eq!(a.settings().system_prompt, "from the phone, later", "the newest edit wins");
    assert_eq!(b.settings().system_prompt, "from the phone, later");
    // The other is kept to see, beside the record.
    let superseded = superseded_settings(&a).into_iter().chain(superseded_settings(&b)).any(|v| v.get("systemPrompt").and_then(serde_json::Value::as_str) == Some("from the laptop"));
    assert!(superseded, "the laptop's prompt is kept as a conflict to see");
    // As the user sees it: on the device that kept it, what it had; dismissed, it goes.
    let (d, list) = [&a, &b].into_iter().map(|d| (d, run(crate::sync::conflicts::list(&StoreRecords::new(&d.store, Some(&d.kv)), d.name)).unwrap())).find(|(_, l)| !l.is_empty()).unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].subject, "settings");
    let laptops = list[0].kept.iter().find(|k| k.changes.contains(&("systemPrompt".to_owned(), "from the laptop".to_owned()))).expect("the laptop's version");
    assert_eq!(laptops.here, d.name == "laptop");
    run(crate::sync::conflicts::dismiss(&StoreRecords::new(&d.store, Some(&d.kv)), &list[0].wire)).unwrap();
    assert!(run(crate::sync::conflicts::list(&StoreRecords::new(&d.store, Some(&d.kv)), d.name)).unwrap().is_empty());
}

/// The versions of the settings that lost, as kept by sync on `d`.
fn superseded_settings(d: &Device) -> Vec<serde_json::Value> {
    let wire = run(air_sync_local::envelope::wire_id(&d.keys, "pref", "settings")).unwrap();
    let kept = run(air_store::SyncMeta::sync_get(&d.store, &[format!("sync:rev:{wire}")])).unwrap();
    let Some(text) = kept.into_iter().next().flatten() else { return Vec::new() };
    let en: air_sync_local::records::RevEntry = serde_json::from_str(&text).unwrap();
    en.superseded.into_iter().map(|l| l.v).collect()
}

#[test]
fn a_server_removed_on_one_device_goes_on_the_other_and_two_of_one_name_part() {
    let (server, a, b) = setup();
    a.add_server("a-1", "search", &[]);
    a.add_server("a-2", "files", &[]);
    b.add_server("b-1", "search", &[]);
    settle(&server, &a, &b);
    let names = |d: &Device| {
        let mut v: Vec<(String, String)> = d.servers().into_iter().map(|s| (s.id, s.name)).collect();
        v.sort();
        v
    };
    let want = vec![("a-1".to_owned(), "search".to_owned()), ("a-2".to_owned(), "files".to_owned()), ("b-1".to_owned(), "search-2".to_owned())];
    assert_eq!(names(&a), want, "the one of the greater id takes a free name, on both");
    assert_eq!(names(&b), want);
    let mut list = a.servers();
    list.retain(|s| s.id != "a-2");
    mcp::save(&a.kv, &list).unwrap();
    a.sync(&server);
    b.sync(&server);
    assert!(b.servers().iter().all(|s| s.id != "a-2"), "removed on both");
    assert_eq!(b.servers().len(), 2);
}

#[test]
fn a_plain_database_carries_no_preferences() {
    let (server, a, b) = setup();
    a.put_assistant("writer", "Write plainly.");
    a.add_server("s", "search", &[]);
    assert_eq!(a.sync_with(&server, false).0, 0);
    assert_eq!(b.sync_with(&server, false), (0, 0, false));
    assert!(b.assistants().is_empty() && b.servers().is_empty());
}

#[test]
fn to_wire_and_back_keeps_this_devices_secrets() {
    let local = serde_json::json!({"apiKey": "mine", "profiles": [{"id": "p", "apiKey": "pk"}]});
    let wire = to_wire("settings", &serde_json::json!({"apiKey": "theirs", "profiles": [{"id": "p", "apiKey": "tk"}], "model": "m"}), Secrets::default());
    assert_eq!(wire, serde_json::json!({"profiles": [{"id": "p"}], "model": "m"}));
    let back = from_wire("settings", &wire, Some(&local));
    assert_eq!(back["apiKey"], "mine");
    assert_eq!(back["profiles"][0]["apiKey"], "pk");
    let server = serde_json::json!({"id": "s", "headers": [["A", "b"]]});
    assert!(to_wire("server:s", &server, Secrets::default()).get("headers").is_none());
    assert_eq!(to_wire("server:s", &server, Secrets { keys: false, headers: true }), server);
}

#[test]
fn a_list_lost_here_to_unreadable_storage_deletes_nothing_elsewhere() {
    let (server, a, b) = setup();
    a.add_server("s1", "search", &[]);
    settle(&server, &a, &b);
    assert_eq!(b.servers().len(), 1);
    // The laptop's list is damaged: the app kept it aside and went on with none.
    use air_store::KeyValue;
    let text = a.kv.get(mcp::SERVERS_KEY.name).unwrap();
    a.kv.set(&format!("{}.corrupt", mcp::SERVERS_KEY.name), &text).unwrap();
    a.kv.set(mcp::SERVERS_KEY.name, "[]").unwrap();
    a.sync(&server);
    b.sync(&server);
    assert_eq!(b.servers().len(), 1, "the phone keeps its server");
    // Damaged and not yet set aside: nothing goes either.
    a.kv.remove(&format!("{}.corrupt", mcp::SERVERS_KEY.name)).unwrap();
    a.kv.set(mcp::SERVERS_KEY.name, "{not json").unwrap();
    a.sync(&server);
    b.sync(&server);
    assert_eq!(b.servers().len(), 1);
}

#[test]
fn a_joining_device_makes_no_conflict_of_its_defaults_nor_of_what_the_app_learned_of_a_model() {
    let (server, a, b) = setup();
    a.edit_settings(|s| {
        s.system_prompt = "Answer in haiku.".into();
        s.probed_tool_calling.insert("https://api.test/v1 m".into(), settings::ToolCalling::Native);
        s.vision.insert("https://api.test/v1 m".into(), true);
    });
    a.sync(&server);
    // The phone joins with its defaults, and learns something of a model of its own first.
    b.edit_settings(|s| {
        s.vision.insert("https://other.test/v1 x".into(), false);
    });
    settle(&server, &a, &b);
    assert_eq!(b.settings().system_prompt, "Answer in haiku.");
    for d in [&a, &b] {
        let list = run(crate::sync::conflicts::list(&StoreRecords::new(&d.store, Some(&d.kv)), d.name)).unwrap();
        assert!(list.is_empty(), "{}: {list:?}", d.name);
    }
}

#[test]
fn a_version_kept_from_before_a_device_joined_is_not_dated() {
    let (server, a, b) = setup();
    a.edit_settings(|s| s.system_prompt = "Answer in haiku.".into());
    a.sync(&server);
    b.edit_settings(|s| s.system_prompt = "The phone's own prompt.".into());
    settle(&server, &a, &b);
    assert_eq!(b.settings().system_prompt, "Answer in haiku.", "the database's settings win over a joining device's");
    let list = run(crate::sync::conflicts::list(&StoreRecords::new(&b.store, Some(&b.kv)), b.name)).unwrap();
    let kept = list.iter().flat_map(|c| &c.kept).find(|k| k.changes.iter().any(|(_, v)| v == "The phone's own prompt.")).expect("what the phone had is kept to see");
    assert_eq!(kept.at, None, "a time never set is not a date");
    assert!(kept.changes.iter().all(|(f, _)| f == "systemPrompt"), "{:?}", kept.changes);
}

#[test]
fn what_the_app_learns_of_a_model_after_an_edit_elsewhere_does_not_beat_that_edit() {
    let (server, a, b) = setup();
    a.sync(&server);
    settle(&server, &a, &b);
    // Apart: the phone's user edits first; the laptop learns of a model later.
    b.edit_settings(|s| s.system_prompt = "Answer in prose.".into());
    b.sync(&server);
    a.clock.set(b.clock.get() + 60_000.0);
    a.edit_settings(|s| {
        s.probed_tool_calling.insert("https://api.test/v1 m".into(), settings::ToolCalling::Native);
    });
    settle(&server, &a, &b);
    for d in [&a, &b] {
        assert_eq!(d.settings().system_prompt, "Answer in prose.", "{}: the user's edit holds", d.name);
        let list = run(crate::sync::conflicts::list(&StoreRecords::new(&d.store, Some(&d.kv)), d.name)).unwrap();
        assert!(list.is_empty(), "{}: {list:?}", d.name);
    }
}

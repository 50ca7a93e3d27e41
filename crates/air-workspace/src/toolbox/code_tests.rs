//! `run_javascript` in a turn, over the fake platform's sandbox: what the
//! frame is asked, what the model reads back, and that the worker always
//! ends with the run.

use air_http::fake::Script;
use air_store::settings::ToolCalling;
use serde_json::{Value, json};

use crate::fake::{FakePlatform, Harness};
use crate::fake_tools::chunk;
use crate::turn::Job;
use crate::{Command, Update};

/// A harness whose model calls `run_javascript` with `args`, then answers "Done.".
fn calling(args: Value) -> Harness {
    calling_tool("run_javascript", args)
}

/// The same for `tool`.
fn calling_tool(tool: &str, args: Value) -> Harness {
    let mut h = Harness::new(FakePlatform::default());
    h.send(Command::Start);
    h.use_settings(crate::fake_tools::model(ToolCalling::Native));
    let call = json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": tool, "arguments": args.to_string()}}]});
    h.p.http.push(Script::sse([chunk(call, Some("tool_calls")), "[DONE]".to_owned()]));
    h.p.http.push(Script::sse([chunk(json!({"content": "Done."}), Some("stop")), "[DONE]".to_owned()]));
    h
}

/// What the model was told of the call (the tool message of its second request).
fn told_model(h: &Harness) -> String {
    told(h)
}

fn told(h: &Harness) -> String {
    let requests = h.p.http.requests();
    let body: Value = requests.get(1).and_then(|r| r.body.as_deref()).and_then(|b| serde_json::from_str(b).ok()).unwrap_or_default();
    body["messages"].as_array().into_iter().flatten().filter(|m| m["role"] == "tool").filter_map(|m| m["content"].as_str()).collect::<Vec<_>>().join("\n")
}

fn send(h: &mut Harness) {
    h.send(Command::Turn(crate::turn::Action::Start(Job::Send("Add it up".into()))));
}

#[test]
fn the_code_runs_in_the_sandbox_and_the_model_reads_what_it_printed() {
    let mut h = calling(json!({"code": "console.log(1 + 2); 3"}));
    h.p.code_says.borrow_mut().push_back(vec![json!({"t": "started"}), json!({"t": "out", "text": "3\n"}), json!({"t": "done", "value": "3", "files": []})]);
    send(&mut h);
    let starts = h.p.code_starts.borrow().clone();
    assert_eq!(starts.len(), 1);
    assert_eq!((starts[0]["lang"].as_str(), starts[0]["code"].as_str()), (Some("javascript"), Some("console.log(1 + 2); 3")));
    let told = told(&h);
    assert!(told.starts_with("JavaScript ran to its end in") && told.contains("stdout:\n3\nvalue: 3"), "{told}");
    assert_eq!(*h.p.code_stops.borrow(), [starts[0]["run"].as_u64().unwrap_or(0)], "its worker ended with it");
    assert!(h.ws.policy_defs().iter().any(|d| d.name == "run_javascript"), "in the policy list");
}

#[test]
fn a_run_that_never_ends_is_stopped_at_its_limit() {
    let mut h = calling(json!({"code": "for (;;) {}"}));
    h.p.code_says.borrow_mut().push_back(vec![json!({"t": "started"})]);
    let before = h.p.now.get();
    send(&mut h);
    assert_eq!(told(&h), "Stopped at the time limit of 30 s: the code ran too long (an endless loop?).");
    assert!(h.p.now.get() - before >= 30_000.0, "it waited for the limit");
    assert_eq!(h.p.code_stops.borrow().len(), 1);
}

#[test]
fn arguments_it_cannot_run_are_said_and_nothing_starts() {
    let mut h = calling(json!({"code": "   "}));
    send(&mut h);
    assert_eq!(told(&h), "\"code\" is missing or empty; give the program as a string");
    assert!(h.p.code_starts.borrow().is_empty());
}

#[test]
fn stop_ends_the_run_and_its_worker() {
    let mut h = calling(json!({"code": "for (;;) {}"}));
    h.p.code_says.borrow_mut().push_back(vec![json!({"t": "started"})]);
    h.p.clock_stopped.set(true);
    send(&mut h);
    assert_eq!(h.p.code_starts.borrow().len(), 1, "running");
    assert!(h.p.code_stops.borrow().is_empty());
    h.send(Command::Turn(crate::turn::Action::Stop));
    assert_eq!(h.p.code_stops.borrow().len(), 1, "its worker ended");
    assert!(h.take().iter().any(|u| matches!(u, Update::Busy(false))), "the turn is over");
}

#[test]
fn an_assistant_can_leave_code_out() {
    let mut h = calling(json!({"code": "1"}));
    let mut quiet = air_store::assistants::Assistant::new("a1", "No code");
    quiet.code = false;
    h.ws.prefs.assistants.put(quiet);
    h.ws.prefs.assistants.pick(air_store::mcp::NEW_CHAT, Some("a1"));
    send(&mut h);
    let body: Value = serde_json::from_str(h.p.http.requests()[0].body.as_deref().unwrap_or("{}")).unwrap_or_default();
    let offered: Vec<&str> = body["tools"].as_array().into_iter().flatten().filter_map(|t| t["function"]["name"].as_str()).collect();
    assert_eq!(offered, ["calculator", "get_current_time"], "not offered to its chats");
    assert!(h.p.code_starts.borrow().is_empty(), "a call of it does not run");
    assert!(h.ws.policy_defs().iter().any(|d| d.name == "run_javascript"), "its policy is still there to set");
}

const LOCK: &str = r#"{"info": {"python": "3.14.2"}, "packages": {"micropip": {"name": "micropip", "file_name": "micropip-0.11.1-py3-none-any.whl", "imports": ["micropip"]}}}"#;

/// A harness calling `run_python` with `args` on a site with Pyodide's
/// lockfile and its wasm (no other file is there).
fn python(args: Value) -> Harness {
    let h = calling_tool("run_python", args);
    h.p.site_files.borrow_mut().insert("pyodide/pyodide-lock.json".into(), LOCK.into());
    h.p.site_files.borrow_mut().insert("pyodide/pyodide.asm.wasm".into(), vec![0; 1234]);
    h
}

#[test]
fn python_gets_the_sites_files_it_asks_for_and_nothing_else() {
    let mut h = python(json!({"code": "print(1)"}));
    let asks = ["pyodide.asm.wasm", "pyodide-lock.json", "../../index.html", "numpy-2.4.6-cp314-none.whl", "micropip-0.11.1-py3-none-any.whl"];
    h.p.code_says.borrow_mut().push_back(asks.iter().map(|f| json!({"t": "need", "file": f})).collect());
    send(&mut h);
    let starts = h.p.code_starts.borrow().clone();
    assert_eq!((starts.len(), starts[0]["lang"].as_str(), starts[0]["limits"]["memory"].as_u64()), (1, Some("python"), Some(1 << 30)));
    let told = h.p.code_told.borrow().clone();
    let answers: Vec<(String, bool, Vec<usize>)> = told.iter().map(|(m, b)| (m["file"].as_str().unwrap_or_default().to_owned(), m["ok"] == true, b.clone())).collect();
    let expect = |f: &str, ok: bool, b: Vec<usize>| (f.to_owned(), ok, b);
    assert_eq!(
        answers,
        [
            // The lockfile as it was read, and what was refused, at once; the fetches after.
            expect("pyodide-lock.json", true, vec![LOCK.len()]),
            expect("numpy-2.4.6-cp314-none.whl", false, vec![]),
            expect("pyodide.asm.wasm", true, vec![1234]),
            expect("micropip-0.11.1-py3-none-any.whl", false, vec![]),
        ],
        "a path is never asked for at all: the run does not read it"
    );
    assert!(told.iter().all(|(m, _)| m["run"] == starts[0]["run"] && m["t"] == "file"));
    assert_eq!(told[3].0["why"], "pyodide/micropip-0.11.1-py3-none-any.whl: 404 Not Found", "listed but not placed beside the site");
    assert_eq!(told_model(&h), "Python could not be made ready: no progress for 60 s.");
}

#[test]
fn javascript_gets_quickjs_from_the_site_and_nothing_else() {
    let mut h = calling_tool("run_javascript", json!({"code": "1"}));
    h.p.site_files.borrow_mut().insert("quickjs/quickjs.wasm".into(), vec![0; 99]);
    let asks = ["quickjs.wasm", "quickjs.mjs", "pyodide.asm.wasm", "../index.html"];
    h.p.code_says.borrow_mut().push_back(asks.iter().map(|f| json!({"t": "need", "file": f})).collect());
    send(&mut h);
    let starts = h.p.code_starts.borrow().clone();
    assert_eq!(starts[0]["limits"]["memory"].as_u64(), Some(1 << 30), "its heap is bounded as Python's is");
    let told = h.p.code_told.borrow().clone();
    let answers: Vec<(&str, bool, usize, &str)> = told.iter().map(|(m, b)| (m["file"].as_str().unwrap_or_default(), m["ok"] == true, b.iter().sum(), m["why"].as_str().unwrap_or_default())).collect();
    assert_eq!(
        answers,
        [("pyodide.asm.wasm", false, 0, "not a file of this site's JavaScript"), ("quickjs.wasm", true, 99, ""), ("quickjs.mjs", false, 0, "quickjs/quickjs.mjs: 404 Not Found"),],
        "Python's files are not JavaScript's, and a path is never asked for"
    );
    assert_eq!(told_model(&h), "JavaScript could not be made ready: no progress for 60 s.");
}

#[test]
fn packages_the_site_does_not_offer_are_refused_before_python_starts() {
    let mut h = python(json!({"code": "import numpy", "packages": ["numpy", "MicroPip"]}));
    send(&mut h);
    assert!(h.p.code_starts.borrow().is_empty(), "nothing downloaded for a run that cannot succeed");
    assert_eq!(told_model(&h), "Not run: this site does not offer numpy. Packages it offers: micropip.");
}

#[test]
fn a_site_without_pyodide_says_so() {
    let mut h = calling_tool("run_python", json!({"code": "1"}));
    send(&mut h);
    assert_eq!(told_model(&h), "Python is not available here: pyodide/pyodide-lock.json: 404 Not Found");
    assert!(h.p.code_starts.borrow().is_empty());
}

/// `h` with `name` (its `bytes`) attached to the next message.
fn attach(h: &mut Harness, name: &str, mime: &str, bytes: &[u8]) {
    let read = crate::files::Read { name: name.into(), mime: mime.into(), bytes: bytes.to_vec(), scaled: None };
    h.send(Command::Files(crate::files::Action::Read(vec![crate::files::prepare(Ok(read))])));
}

/// The session's stored messages.
fn stored(h: &Harness) -> Vec<air_store::MessageRecord> {
    let store = &*h.p.store;
    let session = crate::fake::now(air_store::Store::list_sessions(store)).ok().and_then(|l| l.first().map(|s| s.id.clone())).unwrap_or_default();
    crate::fake::now(air_store::Store::messages(store, &session)).unwrap_or_default()
}

#[test]
fn the_code_reads_the_chats_files_and_what_it_writes_is_kept_as_the_chats() {
    let mut h = calling(json!({"code": "const t = await files.text('sales.csv'); files.write('out/total.txt', t.length)"}));
    attach(&mut h, "sales.csv", "text/csv", b"a,b\n1,2\n");
    let done = json!({"t": "done", "value": null, "files": [{"name": "out/total.txt"}, {"name": "plot.png"}], "texts": ["8", "\u{89}PNG"]});
    h.p.code_says.borrow_mut().push_back(vec![json!({"t": "started"}), done]);
    send(&mut h);
    // The model was told of the file when it was offered the tool.
    let first: Value = serde_json::from_str(h.p.http.requests()[0].body.as_deref().unwrap_or("{}")).unwrap_or_default();
    let about = first["tools"].as_array().into_iter().flatten().find(|t| t["function"]["name"] == "run_javascript").map(|t| t["function"]["description"].to_string()).unwrap_or_default();
    assert!(about.contains("The chat's files: sales.csv (text/csv, 8 B)."), "{about}");
    // The run was given the stored file, by id.
    let messages = stored(&h);
    let csv = &messages[0].attachments[0];
    assert_eq!(h.p.code_starts.borrow()[0]["files"], json!([{"name": "sales.csv", "type": "text/csv"}]));
    assert_eq!(*h.p.code_files.borrow(), [vec![csv.id.clone()]]);
    // What it wrote is kept with its result, as the chat's files.
    let tool = messages.iter().find(|m| m.tool.is_some()).cloned().unwrap_or_else(|| panic!("a tool record: {messages:?}"));
    let kept: Vec<_> = tool.attachments.iter().map(|a| (a.name.as_str(), a.mime.as_str(), a.size)).collect();
    assert_eq!(kept, [("total.txt", "text/plain", 1), ("plot.png", "image/png", 5)]);
    let bytes = crate::fake::now(air_store::Store::get_file(&*h.p.store, &tool.attachments[0].id)).ok().flatten().map(|f| f.bytes);
    assert_eq!(bytes.as_deref(), Some(&b"8"[..]));
    assert!(told(&h).contains("Files given back to the user: total.txt (text/plain, 1 B), plot.png (image/png, 5 B)."), "{}", told(&h));
    // The next request does not put the tool's files in as text or images.
    let second = h.p.http.requests()[1].body.clone().unwrap_or_default();
    assert!(!second.contains("File `total.txt`") && !second.contains("image_url"), "{second}");
    assert!(second.contains("File `sales.csv`:"), "the user's file goes to the model as text: {second}");
}

#[test]
fn a_later_run_reads_what_an_earlier_one_wrote() {
    let mut h = calling(json!({"code": "files.write('a.txt', 'one')"}));
    h.p.code_says.borrow_mut().push_back(vec![json!({"t": "done", "value": null, "files": [{"name": "a.txt"}], "texts": ["one"]})]);
    send(&mut h);
    let call = json!({"tool_calls": [{"index": 0, "id": "c2", "type": "function", "function": {"name": "run_python", "arguments": "{\"code\": \"open('/mnt/data/a.txt').read()\"}"}}]});
    h.p.http.push(Script::sse([chunk(call, Some("tool_calls")), "[DONE]".to_owned()]));
    h.p.http.push(Script::sse([chunk(json!({"content": "Read."}), Some("stop")), "[DONE]".to_owned()]));
    h.p.site_files.borrow_mut().insert("pyodide/pyodide-lock.json".into(), LOCK.into());
    h.p.code_says.borrow_mut().push_back(vec![json!({"t": "done", "value": "'one'", "files": []})]);
    h.send(Command::Turn(crate::turn::Action::Start(Job::Send("Read it back".into()))));
    let written = stored(&h).into_iter().flat_map(|m| m.attachments).find(|a| a.name == "a.txt").map(|a| a.id);
    assert_eq!(h.p.code_starts.borrow()[1]["files"], json!([{"name": "a.txt", "type": "text/plain"}]));
    assert_eq!(h.p.code_files.borrow()[1], written.into_iter().collect::<Vec<_>>());
    let about: Value = serde_json::from_str(h.p.http.requests()[2].body.as_deref().unwrap_or("{}")).unwrap_or_default();
    let python = about["tools"].as_array().into_iter().flatten().find(|t| t["function"]["name"] == "run_python").map(|t| t["function"]["description"].to_string()).unwrap_or_default();
    assert!(python.contains("The chat's files: /mnt/data/a.txt (text/plain, 3 B)."), "{python}");
}

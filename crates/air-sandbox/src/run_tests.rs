use serde_json::json;

use super::*;
use crate::tools::request;

fn python(id: u64) -> Run {
    Run::new(id, Lang::Python, Limits::of(Lang::Python), 1_000.0)
}

#[test]
fn the_start_names_the_run_its_code_and_the_files_beside_it() {
    let req = request(Lang::Python, &json!({"code": "print(1)", "packages": ["numpy"]})).expect("valid");
    let files = [ChatFile { id: "f1".into(), name: "a.csv".into(), mime: "text/csv".into(), size: 3 }];
    let start = python(7).start(&req, &files);
    assert_eq!(start["t"], "run");
    assert_eq!((start["run"].as_u64(), start["lang"].as_str(), start["code"].as_str()), (Some(7), Some("python"), Some("print(1)")));
    assert_eq!(start["packages"], json!(["numpy"]));
    assert_eq!(start["files"], json!([{"name": "a.csv", "type": "text/csv"}]));
    assert_eq!(start["limits"]["output"], 20_000);
}

#[test]
fn a_run_loads_starts_prints_and_ends_with_its_value_and_files() {
    let mut r = python(1);
    assert_eq!(r.deadline(), Some(61_000.0), "loading: a minute without a sign");
    r.fetched(100, 5_000.0);
    assert_eq!((r.progress(), r.deadline()), (Some((100.0, None)), Some(65_000.0)), "each file given moves the stall deadline");
    r.on_message(&json!({"t": "started", "run": 1}), vec![], 6_000.0);
    assert!(r.running() && r.progress().is_none());
    assert_eq!(r.deadline(), Some(66_000.0), "a minute from the start");
    r.on_message(&json!({"t": "out", "run": 1, "text": "hello\n"}), vec![], 6_100.0);
    r.on_message(&json!({"t": "err", "run": 1, "text": "careful\n"}), vec![], 6_200.0);
    let files = json!([{"name": "out/sum.csv"}, {"name": "plot.png"}]);
    let end = r.on_message(&json!({"t": "done", "run": 1, "value": "42", "files": files}), vec![b"s,1\n".to_vec(), vec![0x89, b'P']], 7_000.0).expect("ended");
    assert_eq!((end.end.clone(), end.stdout.as_str(), end.stderr.as_str(), end.value.as_deref()), (End::Finished, "hello\n", "careful\n", Some("42")));
    assert_eq!(end.files.iter().map(|f| (f.name.as_str(), f.mime)).collect::<Vec<_>>(), [("sum.csv", "text/csv"), ("plot.png", "image/png")]);
    assert_eq!(end.ran_ms, Some(1_000.0));
    assert_eq!(r.deadline(), None, "nothing to stop any more");
    assert!(r.stopped(8_000.0).is_none() && r.crashed("gone", 8_000.0).is_none(), "an ended run ends once");
}

#[test]
fn what_is_not_this_runs_is_left_unread() {
    let mut r = python(3);
    let hostile = [
        json!({"t": "done", "run": 4}),
        json!({"t": "done", "run": "3"}),
        json!({"t": "done"}),
        json!({"t": "out", "run": 3.5, "text": "x"}),
        json!({"t": "brew", "run": 3}),
        json!("done"),
        json!(null),
        // The frame cannot say what the site offers, nor how far it got.
        json!({"t": "missing", "run": 3, "packages": ["pandas"], "available": []}),
        json!({"t": "loading", "run": 3, "loaded": 5, "total": 10}),
    ];
    for m in &hostile {
        assert!(r.on_message(m, vec![vec![1]], 2_000.0).is_none(), "{m}");
    }
    assert_eq!(r.ignored(), 9);
    assert_eq!(r.progress(), None);
    assert!(!r.running());
    let end = r.on_message(&json!({"t": "done", "run": 3}), vec![], 2_500.0).expect("its own end");
    assert_eq!((end.ran_ms, end.value), (None, None));
    assert!(r.on_message(&json!({"t": "out", "run": 3, "text": "late"}), vec![], 2_600.0).is_none());
    assert_eq!(r.ignored(), 10, "after the end, nothing is read");
}

#[test]
fn output_past_the_limit_is_cut_and_counted() {
    let limits = Limits { output_chars: 5, ..Limits::of(Lang::JavaScript) };
    let mut r = Run::new(1, Lang::JavaScript, limits, 0.0);
    r.on_message(&json!({"t": "started", "run": 1}), vec![], 0.0);
    for _ in 0..1000 {
        r.on_message(&json!({"t": "out", "run": 1, "text": "ab"}), vec![], 1.0);
    }
    r.on_message(&json!({"t": "err", "run": 1, "text": "é日本語🙂!"}), vec![], 1.0);
    let end = r.on_message(&json!({"t": "done", "run": 1, "value": {"big": true}}), vec![], 2.0).expect("ended");
    assert_eq!((end.stdout.as_str(), end.stderr.as_str(), end.value.as_deref()), ("ababa", "é日本語🙂", Some("{\"big")));
    assert_eq!(end.cut, 1995 + 1 + 7, "what each left out");
}

#[test]
fn a_runaway_run_times_out_and_a_stalled_load_is_said_as_such() {
    let mut r = python(1);
    assert!(r.timed_out(60_999.0).is_none());
    assert_eq!(r.timed_out(61_000.0).map(|o| o.end), Some(End::Stalled { ms: 60_000 }));
    let mut r = Run::new(2, Lang::JavaScript, Limits::of(Lang::JavaScript), 0.0);
    r.on_message(&json!({"t": "started", "run": 2}), vec![], 10.0);
    r.on_message(&json!({"t": "out", "run": 2, "text": "tick"}), vec![], 20.0);
    assert!(r.timed_out(30_009.0).is_none());
    let end = r.timed_out(30_010.0).expect("stopped at the limit");
    assert_eq!((end.end, end.stdout.as_str(), end.ran_ms), (End::TimedOut { limit_ms: 30_000 }, "tick", Some(30_000.0)), "what it printed stays");
}

#[test]
fn a_throw_a_stop_a_crash_and_missing_packages_each_end_it() {
    let mut r = python(1);
    r.on_message(&json!({"t": "started", "run": 1}), vec![], 1_000.0);
    let raised = r.on_message(&json!({"t": "raised", "run": 1, "name": "ZeroDivisionError", "message": "division by zero", "files": [{"name": "half.txt"}]}), vec![b"1".to_vec()], 1_500.0);
    let raised = raised.expect("ended");
    assert_eq!(raised.end, End::Raised { name: "ZeroDivisionError".into(), message: "division by zero".into() });
    assert_eq!(raised.files.len(), 1, "what it wrote before it threw is kept");
    assert_eq!(python(2).stopped(5.0).map(|o| o.end), Some(End::Stopped));
    assert_eq!(python(3).crashed("out of memory", 5.0).map(|o| o.end), Some(End::Crashed("out of memory".into())));
    let said = python(5).on_message(&json!({"t": "crashed", "run": 5, "message": "the worker failed"}), vec![], 5.0);
    assert_eq!(said.map(|o| o.end), Some(End::Crashed("the worker failed".into())), "as the frame says it");
    let m = python(4).missing(vec!["pandas".into()], vec!["micropip".into(), "six".into()], 9.0);
    assert_eq!(m.end, End::Missing { packages: vec!["pandas".into()], available: vec!["micropip".into(), "six".into()] });
}

proptest::proptest! {
    #[test]
    fn any_message_is_read_or_left_never_a_panic(m in air_testgen::json(&["t", "run", "text", "value", "files", "name", "loaded", "total", "packages"], &["out", "done", "raised", "loading", "started", "missing"])) {
        let mut r = python(1);
        let _ = r.on_message(&m, vec![vec![0; 3], Vec::new()], 2.0);
        let _ = r.timed_out(1e12);
    }
}

#[test]
fn the_runtime_asks_for_plain_file_names_only_and_each_answer_is_progress() {
    let mut r = python(5);
    for file in ["pyodide.asm.wasm", "../secret", "https://evil.example/x", "", "python_stdlib.zip"] {
        assert!(r.on_message(&json!({"t": "need", "run": 5, "file": file}), vec![], 2_000.0).is_none());
    }
    // Another run's ask is not this run's to answer.
    r.on_message(&json!({"t": "need", "run": 6, "file": "pyodide.mjs"}), vec![], 2_000.0);
    assert_eq!((r.wanted().as_deref(), r.wanted().as_deref(), r.wanted()), (Some("pyodide.asm.wasm"), Some("python_stdlib.zip"), None));
    assert_eq!(r.ignored(), 4, "the path, the URL, the empty name and the other run's");
    r.fetched(9_000_000, 30_000.0);
    r.fetched(2_000_000, 40_000.0);
    assert_eq!((r.progress(), r.deadline()), (Some((11_000_000.0, None)), Some(100_000.0)), "a minute from the last file");
    assert_eq!(python(1).start(&request(Lang::Python, &json!({"code": "1"})).expect("valid"), &[])["limits"]["memory"], 1 << 30);
}

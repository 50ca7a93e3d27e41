//! Whole passes against a scripted remote database: pushing to a PouchDB
//! Server, pulling from a CouchDB 3, checking every request.

use super::*;
use crate::auth::Auth;
use crate::couch::CouchPeer;
use crate::memory::MemoryPeer;
use air_http::fake::{Script, ScriptedHttp};
use pollster::block_on;
use serde_json::{Value, json};

const DB: &str = "https://couch.test/chats";
const SEQ1: &str = "1-g1AAAABteJzLYWBgYMpgTmHgz8tPSTV0MDQy1zMAQsMcoARTIkOS_P";
const SEQ2: &str = "2-g1AAAABteJzLYWBgYMpgTmHgz8tPSTV0MDQy1zMAQsMcoARTIkOS_Q";

fn remote() -> CouchPeer<ScriptedHttp> {
    CouchPeer::new(ScriptedHttp::new(), DB, Auth::None).unwrap_or_else(|e| panic!("{e}"))
}

fn ok(body: &str) -> Script {
    Script::status(200, body)
}

fn json_body(r: &air_http::Request) -> Value {
    r.body.as_deref().map(|b| serde_json::from_str(b).unwrap_or_else(|e| panic!("{b}: {e}"))).unwrap_or(Value::Null)
}

/// (method, URL) of the requests from the `from`-th on.
fn calls(peer: &CouchPeer<ScriptedHttp>, from: usize) -> Vec<(String, String)> {
    peer.http().requests().into_iter().skip(from).map(|r| (r.method, r.url)).collect()
}

fn call(method: &str, url: &str) -> (String, String) {
    (method.to_owned(), url.to_owned())
}

/// A device's database: a document, one in conflict, one deleted.
fn laptop() -> MemoryPeer {
    let db = MemoryPeer::new("laptop");
    db.put(json!({"_id": "chat:1", "title": "Hi"})).ok();
    let conflict = vec![
        json!({"_id": "chat:2", "_rev": "2-aaa", "v": 1, "_revisions": {"start": 2, "ids": ["aaa", "root"]}}),
        json!({"_id": "chat:2", "_rev": "2-bbb", "v": 2, "_revisions": {"start": 2, "ids": ["bbb", "root"]}}),
    ];
    block_on(db.put_revs(conflict)).ok();
    let gone = db.put(json!({"_id": "gone"})).unwrap_or_else(|e| panic!("{e}"));
    db.delete("gone", &gone).ok();
    db
}

/// Every leaf of `db`, as `_revs_diff` asks and answers "all missing".
fn all_leaves(db: &MemoryPeer) -> Vec<(String, Vec<Rev>)> {
    db.contents().into_iter().map(|(id, (tree, _))| (id, tree.leaves().into_iter().map(|l| l.rev).collect())).collect()
}

#[test]
fn a_push_to_pouchdb_server_then_a_resumed_push() {
    let source = laptop();
    let target = remote();
    let id = replication_id("laptop", DB, "");
    let local = format!("{DB}/_local/{id}");
    let leaves = all_leaves(&source);
    let diff: serde_json::Map<String, Value> = leaves.iter().map(|(id, revs)| (id.clone(), json!({"missing": revs.iter().map(Rev::to_string).collect::<Vec<_>>()}))).collect();
    target.http().push(ok(r#"{"doc_count":0,"update_seq":0,"backend_adapter":"LevelDOWN","db_name":"chats","adapter":"leveldb"}"#));
    target.http().push(Script::status(404, r#"{"error":"not_found","reason":"missing"}"#));
    target.http().push(ok(&Value::Object(diff).to_string()));
    target.http().push(Script::status(201, r#"[{"ok":true,"id":"chat:1","rev":"1-x"}]"#));
    target.http().push(Script::status(201, &format!(r#"{{"ok":true,"id":"_local/{id}","rev":"0-1"}}"#)));
    let report = run_ok(&source, &target);
    assert_eq!((report.docs_written, report.batches, report.last_seq.clone()), (4, 1, json!(source.update_seq())));
    assert_eq!(calls(&target, 0), [call("GET", DB), call("GET", &local), call("POST", &format!("{DB}/_revs_diff")), call("POST", &format!("{DB}/_bulk_docs")), call("PUT", &local)]);
    let sent = target.http().requests();
    let asked: BTreeMap<String, Vec<String>> = serde_json::from_value(json_body(&sent[2])).unwrap_or_default();
    assert_eq!(asked, leaves.iter().map(|(id, revs)| (id.clone(), revs.iter().map(Rev::to_string).collect())).collect());
    let docs = block_on(source.get_revs(&leaves)).unwrap_or_default();
    assert_eq!(json_body(&sent[3]), json!({"docs": docs, "new_edits": false}), "every leaf, with _revisions and _deleted");
    let checkpoint = json_body(&sent[4]);
    assert_eq!((checkpoint.get("_rev"), &checkpoint["source_last_seq"]), (None, &json!(source.update_seq())));
    assert_eq!(checkpoint["history"][0]["docs_written"], 4);
    let mine = block_on(source.get_local(&id)).ok().flatten().unwrap_or_default();
    assert_eq!(mine["session_id"], checkpoint["session_id"], "the same session on both sides");

    // The next pass reads the checkpoint, finds nothing new, sends nothing.
    let mut stored = checkpoint.clone();
    stored["_id"] = json!(format!("_local/{id}"));
    stored["_rev"] = json!("0-1");
    target.http().push(ok(r#"{"doc_count":3,"update_seq":4}"#));
    target.http().push(ok(&stored.to_string()));
    let idle = run_ok(&source, &target);
    assert_eq!((idle.batches, idle.docs_written), (0, 0));
    assert_eq!(calls(&target, 5), [call("GET", DB), call("GET", &local)]);

    // After an edit: only it is sent, and the checkpoint is written over
    // the one read (its `_rev`).
    let r3 = source.put(json!({"_id": "chat:3"})).unwrap_or_else(|e| panic!("{e}"));
    target.http().push(ok(r#"{"doc_count":3,"update_seq":4}"#));
    target.http().push(ok(&stored.to_string()));
    target.http().push(ok(&json!({"chat:3": {"missing": [r3.to_string()]}}).to_string()));
    target.http().push(Script::status(201, "[]"));
    target.http().push(Script::status(201, &format!(r#"{{"ok":true,"id":"_local/{id}","rev":"0-2"}}"#)));
    let next = run_ok(&source, &target);
    assert_eq!((next.docs_written, next.batches), (1, 1));
    let sent = target.http().requests();
    assert_eq!(json_body(&sent[9]), json!({"chat:3": [r3.to_string()]}), "only the new document is asked about");
    assert_eq!(json_body(&sent[10])["docs"].as_array().map(|d| d.iter().map(|d| d["_id"].clone()).collect::<Vec<_>>()), Some(vec![json!("chat:3")]));
    assert_eq!((sent[11].method.as_str(), json_body(&sent[11])["_rev"].as_str()), ("PUT", Some("0-1")));
    assert_eq!(target.http().pending(), 0);
}

fn run_ok(source: &impl Peer, target: &impl Peer) -> Report {
    block_on(replicate(source, target, &Options::default())).unwrap_or_else(|e| panic!("{e}"))
}

/// CouchDB 3's answers to a first pull: string sequences, a conflict, a
/// deletion; the user may not write the checkpoint on the server.
fn couchdb_pull_script(source: &CouchPeer<ScriptedHttp>, bulk_get: Script, reaches_checkpoint: bool) {
    let http = source.http();
    http.push(ok(&format!(r#"{{"db_name":"chats","update_seq":"{SEQ2}","doc_count":1,"doc_del_count":1}}"#)));
    http.push(Script::status(404, r#"{"error":"not_found","reason":"missing"}"#));
    http.push(ok(&format!(
        r#"{{"results":[
{{"seq":"{SEQ1}","id":"chat:1","changes":[{{"rev":"2-b91bb807b4685080c6a651115ff558f5"}},{{"rev":"2-65db2a11b5172bf928e3bcf59f728970"}}]}},
{{"seq":"{SEQ2}","id":"gone","changes":[{{"rev":"2-dead"}}],"deleted":true}}
],
"last_seq":"{SEQ2}","pending":0}}"#
    )));
    http.push(bulk_get);
    if reaches_checkpoint {
        http.push(Script::status(401, r#"{"error":"unauthorized","reason":"You are not authorized to access this db."}"#));
    }
}

fn bulk_get_answer() -> Script {
    let revs = |h: &str| json!({"start": 2, "ids": [h, "967a00dff5e02add41819138abb3284d"]});
    let answer = json!({"results": [
        {"id": "chat:1", "docs": [
            {"ok": {"_id": "chat:1", "_rev": "2-b91bb807b4685080c6a651115ff558f5", "hello": "bar", "_revisions": revs("b91bb807b4685080c6a651115ff558f5")}},
        ]},
        {"id": "chat:1", "docs": [
            {"ok": {"_id": "chat:1", "_rev": "2-65db2a11b5172bf928e3bcf59f728970", "hello": "baz", "_revisions": revs("65db2a11b5172bf928e3bcf59f728970")}},
        ]},
        {"id": "gone", "docs": [{"ok": {"_id": "gone", "_rev": "2-dead", "_deleted": true, "_revisions": revs("dead")}}]},
    ]});
    ok(&answer.to_string())
}

#[test]
fn a_pull_from_couchdb_3_keeps_conflicts_and_deletions() {
    let source = remote();
    let phone = MemoryPeer::new("phone");
    couchdb_pull_script(&source, bulk_get_answer(), true);
    let report = run_ok(&source, &phone);
    assert_eq!((report.docs_read, report.docs_written, report.last_seq.clone()), (3, 3, json!(SEQ2)));
    let id = replication_id(DB, "phone", "");
    assert_eq!(
        calls(&source, 0),
        [
            call("GET", DB),
            call("GET", &format!("{DB}/_local/{id}")),
            call("GET", &format!("{DB}/_changes?style=all_docs&since=0&limit=100")),
            call("POST", &format!("{DB}/_bulk_get?revs=true&attachments=true&latest=true")),
            call("PUT", &format!("{DB}/_local/{id}")),
        ]
    );
    assert_eq!(
        json_body(&source.http().requests()[3]),
        json!({"docs": [
            {"id": "chat:1", "rev": "2-b91bb807b4685080c6a651115ff558f5"},
            {"id": "chat:1", "rev": "2-65db2a11b5172bf928e3bcf59f728970"},
            {"id": "gone", "rev": "2-dead"},
        ]})
    );
    let doc = phone.get("chat:1");
    assert_eq!(doc, Some(json!({"_id": "chat:1", "_rev": "2-b91bb807b4685080c6a651115ff558f5", "hello": "bar", "_conflicts": ["2-65db2a11b5172bf928e3bcf59f728970"]})));
    assert_eq!(phone.get("gone"), None);
    assert!(phone.tree("gone").and_then(|t| t.winner()).is_some_and(|w| w.deleted));
    let mine = block_on(phone.get_local(&id)).ok().flatten().unwrap_or_default();
    assert_eq!(mine["source_last_seq"], json!(SEQ2), "the opaque sequence, kept as given");
}

#[test]
fn a_server_error_mid_pass_is_retried_by_the_next_pass() {
    let source = remote();
    let phone = MemoryPeer::new("phone");
    couchdb_pull_script(&source, Script::status(500, r#"{"error":"unknown_error","reason":"timeout"}"#), false);
    let e = block_on(replicate(&source, &phone, &Options::default())).err();
    assert!(e.as_ref().is_some_and(Error::retryable), "{e:?}");
    assert!(phone.contents().is_empty());
    assert_eq!(source.http().pending(), 0);
    couchdb_pull_script(&source, bulk_get_answer(), true);
    let report = run_ok(&source, &phone);
    assert_eq!(report.docs_written, 3);
    assert_eq!(phone.get("chat:1").map(|d| d["_conflicts"].clone()), Some(json!(["2-65db2a11b5172bf928e3bcf59f728970"])));
}

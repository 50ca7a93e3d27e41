//! `CouchPeer` against scripted answers shaped as CouchDB 3 and PouchDB
//! Server 4.2 give them, checking the exact requests sent.

use super::*;
use crate::peer::Change;
use air_http::HttpError;
use air_http::fake::{Script, ScriptedHttp, Step};
use pollster::block_on;

const DB: &str = "https://couch.test/chats";
/// CouchDB 3 sequences, shortened.
const SEQ3: &str = "3-g1AAAABPeJzLYWBgYMpgTmHgz8tPSTV0MDQy1zMAQsMcoARTIkOS_P";
const SEQ4: &str = "4-g1AAAABPeJzLYWBgYMpgTmHgz8tPSTV0MDQy1zMAQsMcoARTIkOS_Q";

fn rev(s: &str) -> Rev {
    Rev::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn peer(answers: Vec<Script>) -> CouchPeer<ScriptedHttp> {
    peer_with(answers, Auth::None)
}

fn peer_with(answers: Vec<Script>, auth: Auth) -> CouchPeer<ScriptedHttp> {
    let http = ScriptedHttp::new();
    for a in answers {
        http.push(a);
    }
    CouchPeer::new(http, DB, auth).unwrap_or_else(|e| panic!("{e}"))
}

fn ok(body: &str) -> Script {
    Script::status(200, body)
}

/// (method, URL, JSON body) of every request sent.
fn sent(p: &CouchPeer<ScriptedHttp>) -> Vec<(String, String, Value)> {
    p.http().requests().into_iter().map(|r| (r.method, r.url, r.body.map(|b| serde_json::from_str(&b).unwrap_or_else(|e| panic!("{b}: {e}"))).unwrap_or(Value::Null))).collect()
}

fn req(method: &str, url: &str, body: Value) -> (String, String, Value) {
    (method.to_owned(), url.to_owned(), body)
}

#[test]
fn a_database_url_is_http_with_a_path() {
    for bad in ["couch.test/db", "ftp://couch.test/db", "https://couch.test", "https://couch.test/", "javascript:alert(1)"] {
        assert!(matches!(CouchPeer::new(ScriptedHttp::new(), bad, Auth::None), Err(Error::Invalid(_))), "{bad}");
    }
    let p = peer(vec![]);
    assert_eq!((p.url(), p.id()), (DB, DB.to_owned()));
    assert_eq!(CouchPeer::new(ScriptedHttp::new(), "http://127.0.0.1:5984/chats/", Auth::None).map(|p| p.id()).ok().as_deref(), Some("http://127.0.0.1:5984/chats"));
}

#[test]
fn info_reads_update_seq_of_couchdb_and_pouchdb_server() {
    let couch = format!(r#"{{"instance_start_time":"0","db_name":"chats","update_seq":"{SEQ3}","sizes":{{"file":33084}},"doc_del_count":0,"doc_count":2,"cluster":{{"q":2,"n":1}}}}"#);
    let pouch = r#"{"doc_count":2,"update_seq":3,"backend_adapter":"LevelDOWN","db_name":"chats","auto_compaction":false,"adapter":"leveldb"}"#;
    let p = peer(vec![ok(&couch), ok(pouch), Script::status(404, r#"{"error":"not_found","reason":"Database does not exist."}"#)]);
    assert_eq!(block_on(p.info()), Ok(DbInfo { update_seq: json!(SEQ3), doc_count: Some(2) }));
    assert_eq!(block_on(p.info()), Ok(DbInfo { update_seq: json!(3), doc_count: Some(2) }));
    let missing = block_on(p.info());
    assert_eq!(missing, Err(Error::NotFound(format!("the database {DB} does not exist"))));
    assert!(sent(&p).iter().all(|r| *r == req("GET", DB, Value::Null)));
    let headers = &p.http().requests()[0].headers;
    assert!(headers.contains(&("Accept".into(), "application/json".into())), "{headers:?}");
}

#[test]
fn create_puts_the_database_once() {
    let p = peer(vec![
        Script::status(201, r#"{"ok":true}"#),
        Script::status(412, r#"{"error":"file_exists","reason":"The database could not be created, the file already exists."}"#),
        Script::status(401, r#"{"error":"unauthorized","reason":"You are not a server admin."}"#),
    ]);
    assert_eq!(block_on(p.create()), Ok(true));
    assert_eq!(block_on(p.create()), Ok(false));
    assert_eq!(block_on(p.create()), Err(Error::Unauthorized(format!("PUT {DB}: unauthorized: You are not a server admin."))));
    assert_eq!(sent(&p)[0], req("PUT", DB, Value::Null));
}

#[test]
fn changes_with_string_sequences_from_couchdb_3() {
    let body = format!(
        r#"{{"results":[
{{"seq":"{SEQ3}","id":"chat:1","changes":[{{"rev":"2-b91bb807b4685080c6a651115ff558f5"}},{{"rev":"2-65db2a11b5172bf928e3bcf59f728970"}}]}},
{{"seq":"{SEQ4}","id":"gone","changes":[{{"rev":"2-5bc3c6319edf62d4c624277fdd0ae191"}}],"deleted":true}}
],
"last_seq":"{SEQ4}","pending":0}}"#
    );
    let p = peer(vec![ok(&body)]);
    let batch = block_on(p.changes(&json!(SEQ3), 100)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        batch,
        ChangesBatch {
            results: vec![
                Change { id: "chat:1".into(), seq: json!(SEQ3), revs: vec![rev("2-b91bb807b4685080c6a651115ff558f5"), rev("2-65db2a11b5172bf928e3bcf59f728970")], deleted: false },
                Change { id: "gone".into(), seq: json!(SEQ4), revs: vec![rev("2-5bc3c6319edf62d4c624277fdd0ae191")], deleted: true },
            ],
            last_seq: json!(SEQ4),
            pending: Some(0),
        }
    );
    assert_eq!(sent(&p), [req("GET", &format!("{DB}/_changes?style=all_docs&since={SEQ3}&limit=100"), Value::Null)]);
}

#[test]
fn changes_with_integer_sequences_from_pouchdb_server() {
    let p =
        peer(vec![ok(r#"{"results":[{"id":"chat:1","changes":[{"rev":"1-abc"}],"seq":1},{"id":"chat:2","changes":[{"rev":"1-def"}],"seq":2}],"last_seq":2}"#), ok(r#"{"results":[],"last_seq":2}"#)]);
    let batch = block_on(p.changes(&json!(0), 2)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((batch.results.len(), batch.results[1].seq.clone(), batch.last_seq), (2, json!(2), json!(2)));
    let empty = block_on(p.changes(&json!(2), 2)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((empty.results.len(), empty.last_seq), (0, json!(2)));
    assert_eq!(sent(&p), [req("GET", &format!("{DB}/_changes?style=all_docs&since=0&limit=2"), Value::Null), req("GET", &format!("{DB}/_changes?style=all_docs&since=2&limit=2"), Value::Null)]);
}

#[test]
fn revs_diff_sends_revisions_and_reads_both_answer_shapes() {
    let p = peer(vec![
        ok(r#"{"chat:2":{"missing":["2-65db2a11b5172bf928e3bcf59f728970"],"possible_ancestors":["1-967a00dff5e02add41819138abb3284d"]}}"#),
        ok(r#"{"chat:3":{"missing":["1-abc"]}}"#),
        ok("{}"),
    ]);
    let ask = BTreeMap::from([("chat:1".to_owned(), vec![rev("1-967a00dff5e02add41819138abb3284d")]), ("chat:2".to_owned(), vec![rev("2-65db2a11b5172bf928e3bcf59f728970")])]);
    let diff = block_on(p.revs_diff(ask)).unwrap_or_default();
    assert_eq!(
        diff,
        BTreeMap::from([("chat:2".to_owned(), Missing { missing: vec![rev("2-65db2a11b5172bf928e3bcf59f728970")], possible_ancestors: vec![rev("1-967a00dff5e02add41819138abb3284d")] })])
    );
    let pouch = block_on(p.revs_diff(BTreeMap::from([("chat:3".to_owned(), vec![rev("1-abc")])]))).unwrap_or_default();
    assert_eq!(pouch["chat:3"], Missing { missing: vec![rev("1-abc")], possible_ancestors: vec![] });
    assert_eq!(block_on(p.revs_diff(BTreeMap::from([("x".to_owned(), vec![rev("1-x")])]))), Ok(BTreeMap::new()));
    assert_eq!(block_on(p.revs_diff(BTreeMap::new())), Ok(BTreeMap::new()), "nothing to ask: no request");
    assert_eq!(sent(&p)[0], req("POST", &format!("{DB}/_revs_diff"), json!({"chat:1": ["1-967a00dff5e02add41819138abb3284d"], "chat:2": ["2-65db2a11b5172bf928e3bcf59f728970"]})));
    assert_eq!(sent(&p).len(), 3);
}

fn bulk_get_url() -> String {
    format!("{DB}/_bulk_get?revs=true&attachments=true&latest=true")
}

#[test]
fn bulk_get_reads_revisions_with_their_ancestry() {
    let answer = r#"{"results":[
{"id":"chat:1","docs":[{"ok":{"_id":"chat:1","_rev":"2-b91b","title":"Hi","_revisions":{"start":2,"ids":["b91b","967a"]},
  "_attachments":{"a.png":{"content_type":"image/png","revpos":2,"digest":"md5-x","data":"iVBORw0KGgo="}}}}]},
{"id":"gone","docs":[{"error":{"id":"gone","rev":"9-zzz","error":"not_found","reason":"missing"}}]}
]}"#;
    let p = peer(vec![ok(answer)]);
    let wanted = vec![("chat:1".to_owned(), vec![rev("2-b91b")]), ("gone".to_owned(), vec![rev("9-zzz")])];
    let docs = block_on(p.get_revs(&wanted)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(docs.len(), 1, "a revision the server lacks is left out");
    assert_eq!(docs[0]["_revisions"], json!({"start": 2, "ids": ["b91b", "967a"]}));
    assert_eq!(docs[0]["_attachments"]["a.png"]["data"], "iVBORw0KGgo=");
    assert_eq!(sent(&p), [req("POST", &bulk_get_url(), json!({"docs": [{"id": "chat:1", "rev": "2-b91b"}, {"id": "gone", "rev": "9-zzz"}]}))]);
    let refused = peer(vec![ok(r#"{"results":[{"id":"s","docs":[{"error":{"id":"s","rev":"1-a","error":"forbidden","reason":"no"}}]}]}"#)]);
    assert_eq!(block_on(refused.get_revs(&[("s".into(), vec![rev("1-a")])])), Err(Error::Refused { id: "s".into(), reason: "forbidden: no".into() }));
}

/// CouchDB 1.x has no `_bulk_get`: each document is read with
/// `open_revs`, and the server is not asked for `_bulk_get` again.
#[test]
fn without_bulk_get_each_document_is_read_with_open_revs() {
    for lacking in [
        Script::status(405, r#"{"error":"method_not_allowed","reason":"Only DELETE,GET,HEAD,PUT,COPY allowed"}"#),
        Script::status(404, r#"{"error":"not_found","reason":"missing"}"#),
        Script::status(400, r#"{"error":"bad_request","reason":"Only reserved document ids may start with underscore."}"#),
    ] {
        let p = peer(vec![
            lacking,
            ok(r#"[{"ok":{"_id":"chat/1 é","_rev":"2-b","_revisions":{"start":2,"ids":["b","a"]}}},{"missing":"3-zz"}]"#),
            Script::status(404, r#"{"error":"not_found","reason":"deleted"}"#),
            ok(r#"[{"ok":{"_id":"c","_rev":"1-c","_deleted":true,"_revisions":{"start":1,"ids":["c"]}}}]"#),
        ]);
        let wanted = vec![("chat/1 é".to_owned(), vec![rev("2-b"), rev("3-zz")]), ("purged".to_owned(), vec![rev("1-p")])];
        let docs = block_on(p.get_revs(&wanted)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(docs.iter().map(|d| d["_rev"].clone()).collect::<Vec<_>>(), [json!("2-b")]);
        let docs = block_on(p.get_revs(&[("c".into(), vec![rev("1-c")])])).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(docs[0]["_deleted"], true);
        let opts = "revs=true&latest=true&attachments=true&open_revs=";
        assert_eq!(
            sent(&p),
            [
                req("POST", &bulk_get_url(), json!({"docs": [{"id": "chat/1 é", "rev": "2-b"}, {"id": "chat/1 é", "rev": "3-zz"}, {"id": "purged", "rev": "1-p"}]})),
                req("GET", &format!("{DB}/chat%2F1%20%C3%A9?{opts}%5B%222-b%22%2C%223-zz%22%5D"), Value::Null),
                req("GET", &format!("{DB}/purged?{opts}%5B%221-p%22%5D"), Value::Null),
                req("GET", &format!("{DB}/c?{opts}%5B%221-c%22%5D"), Value::Null),
            ]
        );
        let accept = &p.http().requests()[1].headers;
        assert!(accept.contains(&("Accept".into(), "application/json".into())), "JSON, not multipart: {accept:?}");
    }
}

#[test]
fn a_missing_database_is_not_mistaken_for_a_missing_bulk_get() {
    let p = peer(vec![Script::status(404, r#"{"error":"not_found","reason":"Database does not exist."}"#)]);
    let r = block_on(p.get_revs(&[("a".into(), vec![rev("1-a")])]));
    assert!(matches!(&r, Err(Error::NotFound(m)) if m.contains("Database does not exist")), "{r:?}");
    assert_eq!(p.http().requests().len(), 1);
}

#[test]
fn bulk_docs_writes_as_given_and_reads_both_answer_shapes() {
    let doc = json!({"_id": "chat:1", "_rev": "2-b", "_revisions": {"start": 2, "ids": ["b", "a"]}, "title": "Hi"});
    let p = peer(vec![
        Script::status(201, "[]"),
        Script::status(201, r#"[{"ok":true,"id":"chat:1","rev":"2-b"}]"#),
        Script::status(201, r#"[{"id":"chat:1","error":"forbidden","reason":"only admins may write"},{"id":"x","error":"forbidden","reason":"no"}]"#),
    ]);
    assert_eq!(block_on(p.put_revs(vec![doc.clone()])), Ok(()), "CouchDB");
    assert_eq!(block_on(p.put_revs(vec![doc.clone()])), Ok(()), "PouchDB Server");
    assert_eq!(block_on(p.put_revs(vec![doc.clone()])), Err(Error::Refused { id: "chat:1".into(), reason: "forbidden: only admins may write (and 1 more documents)".into() }));
    assert_eq!(block_on(p.put_revs(Vec::new())), Ok(()), "nothing to write: no request");
    assert_eq!(sent(&p)[0], req("POST", &format!("{DB}/_bulk_docs"), json!({"docs": [doc], "new_edits": false})));
    assert_eq!(sent(&p).len(), 3);
}

#[test]
fn local_documents_are_read_and_written_with_their_rev() {
    let p = peer(vec![
        Script::status(404, r#"{"error":"not_found","reason":"missing"}"#),
        Script::status(201, r#"{"ok":true,"id":"_local/r1","rev":"0-1"}"#),
        ok(r#"{"_id":"_local/r1","_rev":"0-1","session_id":"s"}"#),
        Script::status(201, r#"{"ok":true,"id":"_local/r1","rev":"0-2"}"#),
        Script::status(409, r#"{"error":"conflict","reason":"Document update conflict."}"#),
    ]);
    assert_eq!(block_on(p.get_local("r1")), Ok(None));
    assert_eq!(block_on(p.put_local("r1", json!({"session_id": "s"}))), Ok("0-1".into()));
    let doc = block_on(p.get_local("r1")).ok().flatten().unwrap_or_default();
    assert_eq!(doc["_rev"], "0-1");
    assert_eq!(block_on(p.put_local("r1", json!({"_rev": "0-1", "session_id": "t"}))), Ok("0-2".into()));
    assert!(matches!(block_on(p.put_local("r1", json!({"session_id": "u"}))), Err(Error::Conflict(_))));
    let url = format!("{DB}/_local/r1");
    assert_eq!(
        sent(&p)[..4],
        [req("GET", &url, Value::Null), req("PUT", &url, json!({"session_id": "s"})), req("GET", &url, Value::Null), req("PUT", &url, json!({"_rev": "0-1", "session_id": "t"}))]
    );
    let odd = peer(vec![ok("{}")]);
    block_on(odd.get_local("a/b")).ok();
    assert_eq!(odd.http().requests()[0].url, format!("{DB}/_local/a%2Fb"));
}

#[test]
fn statuses_become_errors_the_caller_can_act_on() {
    let p = peer(vec![
        Script::status(401, r#"{"error":"unauthorized","reason":"You are not authorized to access this db."}"#),
        Script::status(403, r#"{"error":"forbidden","reason":"You are not allowed to access this db."}"#),
        Script::status(500, r#"{"error":"unknown_error","reason":"function_clause","ref":1143397004}"#),
        Script::status(503, "<html>Service Unavailable</html>"),
        Script::Fail(HttpError::Network("Failed to fetch".into())),
    ]);
    let e = block_on(p.changes(&json!(0), 10)).err();
    assert_eq!(e, Some(Error::Unauthorized(format!("GET {DB}/_changes: unauthorized: You are not authorized to access this db."))));
    assert!(e.is_some_and(|e| !e.retryable()));
    assert!(matches!(block_on(p.changes(&json!(0), 10)), Err(Error::Unauthorized(_))));
    let e = block_on(p.changes(&json!(0), 10)).err();
    assert_eq!(e, Some(Error::Server { status: 500, reason: format!("GET {DB}/_changes: unknown_error: function_clause") }));
    assert!(e.is_some_and(|e| e.retryable()));
    let e = block_on(p.changes(&json!(0), 10)).err();
    assert!(matches!(&e, Some(Error::Server { status: 503, reason }) if reason.ends_with("<html>Service Unavailable</html>")), "{e:?}");
    let e = block_on(p.changes(&json!(0), 10)).err();
    assert_eq!(e, Some(Error::Network("Failed to fetch".into())));
    assert!(e.is_some_and(|e| e.retryable()));
}

#[test]
fn malformed_answers_are_errors_that_say_what_was_wrong() {
    let cases: Vec<(&str, &str)> = vec![
        (r#"{"results":[{"seq":1,"id":"a","changes":[{"rev":"1-a"}]}"#, "is not JSON"),
        ("<html>Sign in to the proxy</html>", "is not JSON"),
        (r#"{"rows":[]}"#, "no results list"),
        (r#"{"results":[{"id":"a","changes":[{"rev":"1-a"}]}],"last_seq":1}"#, "has no seq"),
        (r#"{"results":[{"seq":1,"changes":[]}],"last_seq":1}"#, "a change has no id"),
        (r#"{"results":[{"seq":1,"id":"a","changes":[{"rev":"one"}]}],"last_seq":1}"#, "bad revision \"one\""),
        (r#"{"results":[{"seq":1,"id":"a"}],"last_seq":1}"#, "no changes list"),
        (r#"{"results":[]}"#, "no last_seq"),
    ];
    for (body, says) in cases {
        let p = peer(vec![ok(body)]);
        let r = block_on(p.changes(&json!(0), 10));
        assert!(matches!(&r, Err(Error::Malformed(m)) if m.contains(says)), "{body}: {r:?}");
    }
    let p = peer(vec![ok("[]"), ok(r#"{"results":5}"#), ok(r#"{"ok":true}"#), ok("{}"), ok(r#"{"update_seq":null}"#), ok("[1]"), ok(r#"[{"ok":{"_rev":"1-a"}}]"#)]);
    let one = BTreeMap::from([("a".to_owned(), vec![rev("1-a")])]);
    assert!(matches!(block_on(p.revs_diff(one)), Err(Error::Malformed(_))));
    assert!(matches!(block_on(p.get_revs(&[("a".into(), vec![rev("1-a")])])), Err(Error::Malformed(_))));
    assert!(matches!(block_on(p.put_local("a", json!({}))), Err(Error::Malformed(m)) if m.contains("no rev")));
    assert!(matches!(block_on(p.put_revs(vec![json!({})])), Err(Error::Malformed(m)) if m.contains("not a list")));
    assert!(matches!(block_on(p.info()), Err(Error::Malformed(m)) if m.contains("no update_seq")));
    assert!(matches!(block_on(p.get_local("a")), Err(Error::Malformed(_))));
    p.no_bulk_get.set(true);
    assert!(matches!(block_on(p.get_revs(&[("a".into(), vec![rev("1-a")])])), Err(Error::Malformed(m)) if m.contains("without _id")));
}

#[test]
fn basic_auth_goes_with_every_request() {
    let p = peer_with(vec![ok(r#"{"update_seq":0}"#), ok("{}")], Auth::Basic { user: "alice".into(), password: "pw".into() });
    block_on(p.info()).ok();
    block_on(p.revs_diff(BTreeMap::from([("a".to_owned(), vec![rev("1-a")])]))).ok();
    for r in p.http().requests() {
        assert!(r.headers.contains(&("Authorization".into(), "Basic YWxpY2U6cHc=".into())), "{:?}", r.headers);
    }
    assert!(p.http().requests()[1].headers.contains(&("Content-Type".into(), "application/json".into())));
}

#[test]
fn a_session_login_keeps_the_cookie_where_it_is_visible() {
    let p = peer(vec![
        Script::status(401, r#"{"error":"unauthorized","reason":"Name or password is incorrect."}"#),
        ok(r#"{"ok":true,"name":"alice","roles":[]}"#).with_header("Set-Cookie", "AuthSession=YWxpY2U6NjU; Version=1; Path=/; HttpOnly"),
        ok(r#"{"update_seq":0}"#),
    ]);
    assert_eq!(block_on(p.log_in("alice", "wrong")), Err(Error::Unauthorized("POST https://couch.test/_session: unauthorized: Name or password is incorrect.".into())));
    assert_eq!(p.auth(), Auth::None);
    assert_eq!(block_on(p.log_in("alice", "pw")), Ok(()));
    assert_eq!(p.auth(), Auth::Cookie { session: Some("YWxpY2U6NjU".into()) });
    block_on(p.info()).ok();
    assert_eq!(sent(&p)[1], req("POST", "https://couch.test/_session", json!({"name": "alice", "password": "pw"})));
    assert!(p.http().requests()[2].headers.contains(&("Cookie".into(), "AuthSession=YWxpY2U6NjU".into())));
    // In a browser the cookie is not visible: the browser sends it.
    let browser = peer(vec![ok(r#"{"ok":true}"#), ok(r#"{"update_seq":0}"#)]);
    assert_eq!(block_on(browser.log_in("alice", "pw")), Ok(()));
    assert_eq!(browser.auth(), Auth::Cookie { session: None });
    block_on(browser.info()).ok();
    assert!(!browser.http().requests()[1].headers.iter().any(|(k, _)| k == "Cookie" || k == "Authorization"));
}

#[test]
fn an_aborted_peer_stops_its_requests() {
    let abort = Abort::new();
    let p = peer(vec![ok(r#"{"update_seq":0}"#)]).with_abort(abort.clone());
    abort.abort();
    assert_eq!(block_on(p.info()), Err(Error::Aborted));
}

fn longpoll_url(since: &str) -> String {
    format!("{DB}/_changes?style=all_docs&feed=longpoll&since={since}&limit=50&heartbeat=10000")
}

/// PouchDB Server opens the results, then sends blank lines until a change
/// comes; CouchDB sends blank lines inside the results too.
#[test]
fn a_long_poll_reads_through_heartbeat_lines() {
    let chunk = |s: &str| Step::Chunk(s.as_bytes().to_vec());
    let pouch = Script::Respond { status: 200, headers: vec![], steps: vec![chunk("{\"results\":[\n"), chunk("\n"), chunk("\n\n")] }
        .then(chunk("{\"id\":\"chat:1\",\"changes\":[{\"rev\":\"1-abc\"}],\"seq\":5}\n"))
        .then(chunk("],\n\"last_seq\":5}\n"));
    let couch = Script::Respond { status: 200, headers: vec![], steps: vec![chunk("\n"), chunk("\n")] }
        .then(chunk(&format!("{{\"results\":[\n{{\"seq\":\"{SEQ4}\",\"id\":\"a\",\"changes\":[{{\"rev\":\"2-x\"}}]}}\n],\n")))
        .then(chunk(&format!("\"last_seq\":\"{SEQ4}\",\"pending\":0}}\n")));
    let p = peer(vec![pouch, couch]);
    let abort = Abort::new();
    let batch = block_on(p.changes_longpoll(&json!(4), 50, 10_000, &abort)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((batch.results.len(), batch.results[0].id.as_str(), batch.last_seq), (1, "chat:1", json!(5)));
    let batch = block_on(p.changes_longpoll(&json!(SEQ3), 50, 10_000, &abort)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((batch.results[0].revs.clone(), batch.last_seq), (vec![rev("2-x")], json!(SEQ4)));
    assert_eq!(sent(&p), [req("GET", &longpoll_url("4"), Value::Null), req("GET", &longpoll_url(SEQ3), Value::Null)]);
}

/// A quiet PouchDB Server never ends the long-poll: the caller's bound
/// aborts it, and the answer says so.
#[test]
fn a_quiet_long_poll_ends_when_the_caller_aborts() {
    let chunk = |s: &str| Step::Chunk(s.as_bytes().to_vec());
    let quiet = Script::Respond { status: 200, headers: vec![], steps: vec![chunk("{\"results\":[\n"), chunk("\n"), chunk("\n"), Step::Abort, Step::Hang] };
    let p = peer(vec![quiet]);
    let abort = Abort::new();
    assert_eq!(block_on(p.changes_longpoll(&json!(7), 50, 10_000, &abort)), Err(Error::Aborted));
    assert!(abort.is_aborted());
    assert_eq!(p.http().chunks_read(), 3, "read up to the abort");
}

#[test]
fn a_plain_document_is_read_and_written_as_an_edit() {
    let p = peer(vec![
        Script::status(404, r#"{"error":"not_found","reason":"missing"}"#),
        Script::status(201, r#"{"ok":true,"id":"air-sync-config","rev":"1-abc"}"#),
        Script::status(409, r#"{"error":"conflict","reason":"Document update conflict."}"#),
        ok(r#"{"_id":"air-sync-config","_rev":"1-abc","format":"air-sync"}"#),
        ok("[1]"),
    ]);
    assert_eq!(block_on(p.get_doc("air-sync-config")).unwrap(), None);
    assert_eq!(block_on(p.put_doc("air-sync-config", &json!({"format": "air-sync"}))).unwrap(), "1-abc");
    assert!(matches!(block_on(p.put_doc("air-sync-config", &json!({"format": "air-sync"}))), Err(Error::Conflict(_))));
    assert_eq!(block_on(p.get_doc("air-sync-config")).unwrap().map(|d| d["format"].clone()), Some(json!("air-sync")));
    assert!(matches!(block_on(p.get_doc("air-sync-config")), Err(Error::Malformed(_))));
    let urls: Vec<(String, String)> = sent(&p).into_iter().map(|(m, u, _)| (m, u)).collect();
    assert_eq!(urls[0], ("GET".into(), format!("{DB}/air-sync-config")));
    assert_eq!(urls[1], ("PUT".into(), format!("{DB}/air-sync-config")));
}

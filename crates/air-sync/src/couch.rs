//! [`CouchPeer`]: a database on a CouchDB server (or PouchDB Server,
//! Cloudant) reached over HTTP, as a [`Peer`]. Requests go through an
//! injected `air_http::HttpClient`, so the same code runs in the browser
//! (`fetch`) and against scripted answers in tests.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use air_http::{Abort, Body, HttpClient, Request};
use serde_json::{Value, json};

use crate::auth::{self, Auth};
use crate::error::Error;
use crate::escape::{component, doc_path, query};
use crate::peer::{ChangesBatch, DbInfo, Missing, Peer, Seq};
use crate::rev::Rev;
use crate::wire;

/// A remote database, e.g. `https://host/db`.
pub struct CouchPeer<H> {
    http: H,
    db: String,
    auth: RefCell<Auth>,
    abort: Abort,
    /// The server answered `_bulk_get` as something it does not know
    /// (CouchDB < 2): revisions are read one document at a time.
    no_bulk_get: Cell<bool>,
}

/// A whole answer, and the request it answers (for error messages).
struct Answer {
    status: u16,
    body: String,
    what: String,
    set_cookie: Option<String>,
}

impl Answer {
    /// The JSON of a 2xx answer; any other status is its error.
    fn json(&self) -> Result<Value, Error> {
        if !(200..300).contains(&self.status) {
            return Err(wire::status_error(self.status, &self.body, &self.what));
        }
        wire::json(&self.body, &self.what)
    }
}

/// Statuses with which a server says it has no `_bulk_get` (CouchDB 1.x
/// takes `_bulk_get` for a document id or an unknown method).
const NO_BULK_GET: [u16; 4] = [400, 404, 405, 501];

impl<H: HttpClient> CouchPeer<H> {
    /// The database at `db_url` (`http(s)://host[/prefix]/db`).
    pub fn new(http: H, db_url: &str, auth: Auth) -> Result<Self, Error> {
        let db = db_url.trim_end_matches('/');
        let has_path = db.split_once("://").is_some_and(|(_, rest)| rest.contains('/'));
        if !air_http::url::is_http(db) || !has_path {
            return Err(Error::Invalid(format!("{db_url:?} is not the URL of a database (https://host/db)")));
        }
        Ok(Self { http, db: db.to_owned(), auth: RefCell::new(auth), abort: Abort::new(), no_bulk_get: Cell::new(false) })
    }

    /// Every request but the long-poll ends when `abort` is aborted.
    pub fn with_abort(mut self, abort: Abort) -> Self {
        self.abort = abort;
        self
    }

    pub fn http(&self) -> &H {
        &self.http
    }

    /// The database's URL, without a trailing `/`.
    pub fn url(&self) -> &str {
        &self.db
    }

    pub fn auth(&self) -> Auth {
        self.auth.borrow().clone()
    }

    /// A request to `path` under the database (`""` for itself), with the
    /// credentials and `Accept: application/json`.
    fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Request {
        let mut headers = vec![("Accept".to_owned(), "application/json".to_owned())];
        if body.is_some() {
            headers.push(("Content-Type".into(), "application/json".into()));
        }
        headers.extend(self.auth.borrow().headers());
        Request { method: method.into(), url: format!("{}{path}", self.db), headers, body: body.map(Value::to_string) }
    }

    async fn send(&self, request: Request, abort: &Abort) -> Result<Answer, Error> {
        let what = format!("{} {}", request.method, request.url.split('?').next().unwrap_or_default());
        let response = self.http.send(request, abort).await?;
        let set_cookie = response.header("set-cookie").map(str::to_owned);
        let status = response.status;
        let body = response.body.text().await?;
        Ok(Answer { status, body, what, set_cookie })
    }

    async fn exchange(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Answer, Error> {
        self.send(self.request(method, path, body), &self.abort).await
    }

    /// Creates the database (`PUT /db`); `false` when it existed already.
    pub async fn create(&self) -> Result<bool, Error> {
        let answer = self.exchange("PUT", "", None).await?;
        if answer.status == 412 {
            return Ok(false);
        }
        answer.json()?;
        Ok(true)
    }

    /// A document as the database has it now (its winner), or `None`.
    pub async fn get_doc(&self, id: &str) -> Result<Option<Value>, Error> {
        self.get_object(&format!("/{}", doc_path(id))).await
    }

    /// The JSON object at `path`, or `None` for a 404.
    async fn get_object(&self, path: &str) -> Result<Option<Value>, Error> {
        let answer = self.exchange("GET", path, None).await?;
        if answer.status == 404 {
            return Ok(None);
        }
        let doc = answer.json()?;
        if !doc.is_object() {
            return Err(Error::Malformed(format!("the answer to {}: not an object", answer.what)));
        }
        Ok(Some(doc))
    }

    /// Writes a document as an edit (`PUT /db/{id}`; `doc` carries the
    /// `_rev` it changes, if any): another writer first is
    /// [`Error::Conflict`]. Returns the new `_rev`.
    pub async fn put_doc(&self, id: &str, doc: &Value) -> Result<String, Error> {
        let answer = self.exchange("PUT", &format!("/{}", doc_path(id)), Some(doc)).await?;
        wire::saved_rev(&answer.json()?, &answer.what)
    }

    /// Logs in (`POST /_session`) and from then on uses the session: the
    /// `AuthSession` cookie where this client can see it, else the one
    /// the browser keeps. A wrong name or password is
    /// [`Error::Unauthorized`].
    pub async fn log_in(&self, name: &str, password: &str) -> Result<(), Error> {
        let answer = self.send(auth::session_login(&self.db, name, password), &self.abort).await?;
        answer.json()?;
        let session = answer.set_cookie.as_deref().and_then(auth::session_cookie);
        *self.auth.borrow_mut() = Auth::Cookie { session };
        Ok(())
    }

    /// Waits for changes after `since` (`feed=longpoll`, at most `limit`).
    /// The server sends a blank line every `heartbeat_ms` while nothing
    /// changes, which keeps proxies from closing the connection and is
    /// skipped as JSON whitespace. Servers do not reliably end a quiet
    /// long-poll (PouchDB Server never does), so the caller bounds the
    /// wait by aborting `abort`: the answer is then [`Error::Aborted`].
    pub async fn changes_longpoll(&self, since: &Seq, limit: usize, heartbeat_ms: u32, abort: &Abort) -> Result<ChangesBatch, Error> {
        let q = query(&[("style", "all_docs".into()), ("feed", "longpoll".into()), ("since", wire::seq_param(since)), ("limit", limit.max(1).to_string()), ("heartbeat", heartbeat_ms.to_string())]);
        let answer = self.send(self.request("GET", &format!("/_changes{q}"), None), abort).await?;
        wire::changes(&answer.json()?, &answer.what)
    }

    /// The revisions of `wanted` through `_bulk_get`, or `None` when the
    /// server has none.
    async fn bulk_get(&self, wanted: &[(String, Vec<Rev>)]) -> Result<Option<Vec<Value>>, Error> {
        let docs: Vec<Value> = wanted.iter().flat_map(|(id, revs)| revs.iter().map(move |r| json!({"id": id, "rev": r.to_string()}))).collect();
        let q = query(&[("revs", "true".into()), ("attachments", "true".into()), ("latest", "true".into())]);
        let answer = self.exchange("POST", &format!("/_bulk_get{q}"), Some(&json!({ "docs": docs }))).await?;
        let db_missing = answer.status == 404 && wire::reason(&answer.body).to_ascii_lowercase().contains("database does not exist");
        if NO_BULK_GET.contains(&answer.status) && !db_missing {
            self.no_bulk_get.set(true);
            return Ok(None);
        }
        wire::bulk_get(&answer.json()?, &answer.what).map(Some)
    }

    /// The revisions `revs` of one document (`GET /db/{id}?open_revs=…`),
    /// for servers without `_bulk_get`.
    async fn open_revs(&self, id: &str, revs: &[Rev]) -> Result<Vec<Value>, Error> {
        let list = Value::from(revs.iter().map(|r| Value::from(r.to_string())).collect::<Vec<_>>()).to_string();
        let q = query(&[("revs", "true".into()), ("latest", "true".into()), ("attachments", "true".into()), ("open_revs", list)]);
        let answer = self.exchange("GET", &format!("/{}{q}", doc_path(id)), None).await?;
        if answer.status == 404 {
            return Ok(Vec::new());
        }
        wire::open_revs(&answer.json()?, &answer.what)
    }
}

impl<H: HttpClient> Peer for CouchPeer<H> {
    fn id(&self) -> String {
        self.db.clone()
    }

    async fn info(&self) -> Result<DbInfo, Error> {
        let answer = self.exchange("GET", "", None).await?;
        if answer.status == 404 {
            return Err(Error::NotFound(format!("the database {} does not exist", self.db)));
        }
        wire::db_info(&answer.json()?, &answer.what)
    }

    async fn changes(&self, since: &Seq, limit: usize) -> Result<ChangesBatch, Error> {
        let q = query(&[("style", "all_docs".into()), ("since", wire::seq_param(since)), ("limit", limit.max(1).to_string())]);
        let answer = self.exchange("GET", &format!("/_changes{q}"), None).await?;
        wire::changes(&answer.json()?, &answer.what)
    }

    async fn revs_diff(&self, revs: BTreeMap<String, Vec<Rev>>) -> Result<BTreeMap<String, Missing>, Error> {
        if revs.is_empty() {
            return Ok(BTreeMap::new());
        }
        let body: serde_json::Map<String, Value> = revs.iter().map(|(id, revs)| (id.clone(), revs.iter().map(|r| Value::from(r.to_string())).collect())).collect();
        let answer = self.exchange("POST", "/_revs_diff", Some(&Value::Object(body))).await?;
        wire::revs_diff(&answer.json()?, &answer.what)
    }

    async fn get_revs(&self, wanted: &[(String, Vec<Rev>)]) -> Result<Vec<Value>, Error> {
        if wanted.iter().all(|(_, revs)| revs.is_empty()) {
            return Ok(Vec::new());
        }
        if !self.no_bulk_get.get()
            && let Some(docs) = self.bulk_get(wanted).await?
        {
            return Ok(docs);
        }
        let mut out = Vec::new();
        for (id, revs) in wanted.iter().filter(|(_, revs)| !revs.is_empty()) {
            out.extend(self.open_revs(id, revs).await?);
        }
        Ok(out)
    }

    async fn put_revs(&self, docs: Vec<Value>) -> Result<(), Error> {
        if docs.is_empty() {
            return Ok(());
        }
        let answer = self.exchange("POST", "/_bulk_docs", Some(&json!({"docs": docs, "new_edits": false}))).await?;
        wire::bulk_docs(&answer.json()?, &answer.what)
    }

    async fn get_local(&self, id: &str) -> Result<Option<Value>, Error> {
        self.get_object(&format!("/_local/{}", component(id))).await
    }

    async fn put_local(&self, id: &str, doc: Value) -> Result<String, Error> {
        let answer = self.exchange("PUT", &format!("/_local/{}", component(id)), Some(&doc)).await?;
        wire::saved_rev(&answer.json()?, &answer.what)
    }
}

#[cfg(test)]
#[path = "couch_tests.rs"]
mod tests;

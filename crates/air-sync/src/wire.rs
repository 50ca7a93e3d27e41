//! CouchDB's answers, read into this crate's types. Every shape is
//! checked: an answer that is not what the protocol says becomes
//! [`Error::Malformed`] naming the request and what was wrong, never a
//! panic. Written against CouchDB 3 and PouchDB Server 4 as recorded.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::Error;
use crate::peer::{Change, ChangesBatch, DbInfo, Missing, Seq};
use crate::rev::Rev;

/// `body` as JSON; `what` names the request in the error.
pub fn json(body: &str, what: &str) -> Result<Value, Error> {
    serde_json::from_str(body).map_err(|e| Error::Malformed(format!("the answer to {what} is not JSON ({e}): {}", excerpt(body))))
}

/// The first 200 characters of `body`, for an error message.
fn excerpt(body: &str) -> String {
    let body = body.trim();
    match body.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &body[..i]),
        None => body.to_owned(),
    }
}

/// What an error answer says: CouchDB's `{"error", "reason"}`, or the body.
pub fn reason(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    match (v.get("error").and_then(Value::as_str), v.get("reason").and_then(Value::as_str)) {
        (Some(e), Some(r)) => format!("{e}: {r}"),
        (Some(e), None) => e.to_owned(),
        _ if body.trim().is_empty() => "no details".to_owned(),
        _ => excerpt(body),
    }
}

/// The error a non-2xx answer to `what` means.
pub fn status_error(status: u16, body: &str, what: &str) -> Error {
    let reason = reason(body);
    match status {
        401 | 403 => Error::Unauthorized(format!("{what}: {reason}")),
        404 => Error::NotFound(format!("{what}: {reason}")),
        409 => Error::Conflict(format!("{what}: {reason}")),
        _ => Error::Server { status, reason: format!("{what}: {reason}") },
    }
}

fn malformed(what: &str, why: impl std::fmt::Display) -> Error {
    Error::Malformed(format!("the answer to {what}: {why}"))
}

/// A sequence as a query value: a string as it is, anything else as JSON.
pub fn seq_param(seq: &Seq) -> String {
    match seq {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `GET /db`.
pub fn db_info(v: &Value, what: &str) -> Result<DbInfo, Error> {
    let update_seq = v.get("update_seq").cloned().filter(|s| !s.is_null()).ok_or_else(|| malformed(what, "no update_seq"))?;
    Ok(DbInfo { update_seq, doc_count: v.get("doc_count").and_then(Value::as_u64) })
}

/// A list of `"N-hash"` strings.
fn rev_list(v: Option<&Value>, what: &str) -> Result<Vec<Rev>, Error> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let list = v.as_array().ok_or_else(|| malformed(what, "a list of revisions is not a list"))?;
    list.iter().map(|r| r.as_str().ok_or_else(|| malformed(what, "a revision is not a string")).and_then(Rev::parse)).collect()
}

/// `GET /db/_changes?style=all_docs` (also the long-poll feed).
pub fn changes(v: &Value, what: &str) -> Result<ChangesBatch, Error> {
    let list = v.get("results").and_then(Value::as_array).ok_or_else(|| malformed(what, "no results list"))?;
    let mut results = Vec::with_capacity(list.len());
    for c in list {
        let id = c.get("id").and_then(Value::as_str).ok_or_else(|| malformed(what, "a change has no id"))?;
        let seq = c.get("seq").cloned().filter(|s| !s.is_null()).ok_or_else(|| malformed(what, format!("the change of {id:?} has no seq")))?;
        let revs = c.get("changes").and_then(Value::as_array).ok_or_else(|| malformed(what, format!("the change of {id:?} has no changes list")))?;
        let revs =
            revs.iter().map(|r| r.get("rev").and_then(Value::as_str).ok_or_else(|| malformed(what, format!("a change of {id:?} has no rev"))).and_then(Rev::parse)).collect::<Result<Vec<_>, _>>()?;
        let deleted = c.get("deleted").and_then(Value::as_bool).unwrap_or(false);
        results.push(Change { id: id.to_owned(), seq, revs, deleted });
    }
    let last_seq = match v.get("last_seq").filter(|s| !s.is_null()) {
        Some(s) => s.clone(),
        None => results.last().map(|c| c.seq.clone()).ok_or_else(|| malformed(what, "no last_seq"))?,
    };
    Ok(ChangesBatch { results, last_seq, pending: v.get("pending").and_then(Value::as_u64) })
}

/// `POST /db/_revs_diff`.
pub fn revs_diff(v: &Value, what: &str) -> Result<BTreeMap<String, Missing>, Error> {
    let obj = v.as_object().ok_or_else(|| malformed(what, "not an object"))?;
    let mut out = BTreeMap::new();
    for (id, m) in obj {
        let missing = rev_list(m.get("missing"), what)?;
        let possible_ancestors = rev_list(m.get("possible_ancestors"), what)?;
        if !missing.is_empty() {
            out.insert(id.clone(), Missing { missing, possible_ancestors });
        }
    }
    Ok(out)
}

/// A document a read answered with: a JSON object with an `_id`.
fn doc(v: &Value, what: &str) -> Result<Value, Error> {
    if v.get("_id").and_then(Value::as_str).is_none() {
        return Err(malformed(what, "a document without _id"));
    }
    Ok(v.clone())
}

/// `POST /db/_bulk_get?revs=true`: the documents read. A revision the
/// server does not have (`not_found`) is left out; any other error
/// refuses the read.
pub fn bulk_get(v: &Value, what: &str) -> Result<Vec<Value>, Error> {
    let results = v.get("results").and_then(Value::as_array).ok_or_else(|| malformed(what, "no results list"))?;
    let mut out = Vec::new();
    for r in results {
        let docs = r.get("docs").and_then(Value::as_array).ok_or_else(|| malformed(what, "a result has no docs list"))?;
        for d in docs {
            if let Some(ok) = d.get("ok") {
                out.push(doc(ok, what)?);
            } else if let Some(e) = d.get("error") {
                let kind = e.get("error").and_then(Value::as_str).unwrap_or_default();
                if kind != "not_found" {
                    let id = e.get("id").or_else(|| r.get("id")).and_then(Value::as_str).unwrap_or_default().to_owned();
                    let reason = e.get("reason").and_then(Value::as_str).unwrap_or_default();
                    return Err(Error::Refused { id, reason: format!("{kind}: {reason}") });
                }
            } else {
                return Err(malformed(what, "a result neither ok nor error"));
            }
        }
    }
    Ok(out)
}

/// `GET /db/{id}?open_revs=[…]` with `Accept: application/json`: the
/// revisions found (`{"ok": doc}`); `{"missing": rev}` ones are left out.
pub fn open_revs(v: &Value, what: &str) -> Result<Vec<Value>, Error> {
    let list = v.as_array().ok_or_else(|| malformed(what, "not a list"))?;
    let mut out = Vec::new();
    for item in list {
        match (item.get("ok"), item.get("missing")) {
            (Some(ok), _) => out.push(doc(ok, what)?),
            (None, Some(_)) => {}
            (None, None) => return Err(malformed(what, "an entry neither ok nor missing")),
        }
    }
    Ok(out)
}

/// `POST /db/_bulk_docs` with `new_edits: false`: CouchDB answers `[]`
/// when everything was stored, PouchDB Server one `{ok, id, rev}` per
/// document; an entry with an `error` is a refusal.
pub fn bulk_docs(v: &Value, what: &str) -> Result<(), Error> {
    let list = v.as_array().ok_or_else(|| malformed(what, "not a list"))?;
    let refused: Vec<(String, String)> = list
        .iter()
        .filter_map(|r| {
            let error = r.get("error")?.as_str().unwrap_or("error");
            let id = r.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
            Some((id, format!("{error}: {}", r.get("reason").and_then(Value::as_str).unwrap_or_default())))
        })
        .collect();
    match refused.as_slice() {
        [] => Ok(()),
        [(id, reason)] => Err(Error::Refused { id: id.clone(), reason: reason.clone() }),
        [(id, reason), rest @ ..] => Err(Error::Refused { id: id.clone(), reason: format!("{reason} (and {} more documents)", rest.len()) }),
    }
}

/// A write's `{"ok": true, "id", "rev"}`: the new revision.
pub fn saved_rev(v: &Value, what: &str) -> Result<String, Error> {
    v.get("rev").and_then(Value::as_str).map(str::to_owned).ok_or_else(|| malformed(what, "no rev"))
}

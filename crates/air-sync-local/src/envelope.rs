//! The envelope: what the sync server holds of a device's records.
//!
//! A database starts with one plain document, [`CONFIG_ID`], written by
//! the first device: whether it is encrypted, the key derivation's salt
//! and cost, and a key check (a known text sealed with the key). Another
//! device joins with the passphrase: [`unlock`] opens the check before
//! anything is read or written, so a wrong passphrase is an error that
//! changes nothing.
//!
//! Every record then travels as one document whose id is an HMAC of its
//! kind and local id ([`wire_id`]: no title, no name, nothing guessable)
//! and whose body ([`Body`]) is sealed with AES-GCM, bound to that id (so
//! the server cannot move a body to another document). A deletion is
//! sealed the same way (its kind and local id, bound to its document id),
//! and every revision is named by an HMAC of its document, kind, parent,
//! deletion and content ([`rev_hash`]), its ancestry marked too
//! ([`ancestry_mark`]): whoever can write to the database but has no key
//! can neither delete, nor move, nor revert a record. Without a passphrase
//! the body is plain JSON, and the ids are still opaque, but the key is
//! the salt the configuration holds in the clear: no integrity then.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use thiserror::Error;

use crate::crypto::{Crypto, CryptoError, Keys, hex};

/// The id of the database's configuration document.
pub const CONFIG_ID: &str = "air-sync-config";
/// Its `format`.
pub const FORMAT: &str = "air-sync";
/// The envelope's version this code writes and reads. Version 1 named
/// revisions without their document and left deletions unsealed (anyone
/// who could write to the database could delete any record): a database
/// of that version is refused ([`EnvelopeError::Older`]).
pub const VERSION: u32 = 2;
/// What the key check seals.
pub const CHECK_TEXT: &[u8] = b"air-sync key check v1";
/// PBKDF2's iterations for a new database (OWASP's 2023 figure for
/// PBKDF2-HMAC-SHA-256).
pub const ITERATIONS: u32 = 600_000;
/// The fewest and the most PBKDF2 iterations a configuration may ask for:
/// the count is read from the server, and a huge one would hang the device.
/// (A lowered one cannot be slipped in: the key check opens only under the
/// key the passphrase gives at the database's own cost.)
pub const MIN_ITERATIONS: u32 = 1_000;
pub const MAX_ITERATIONS: u32 = 5_000_000;
/// Bytes of a salt.
pub const SALT_LEN: usize = 16;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EnvelopeError {
    #[error("this passphrase does not open this sync database; nothing was changed")]
    WrongPassphrase,
    #[error("this sync database is encrypted: enter its passphrase")]
    PassphraseNeeded,
    #[error(
        "this sync database is not encrypted, but a passphrase was given: nothing was sent. If it was encrypted before, its configuration was replaced on the server; to sync encrypted, use a new, empty database"
    )]
    NotEncrypted,
    #[error("this sync database was set up by a newer version of the app (format {0})")]
    Newer(u32),
    #[error(
        "this sync database was set up by an older version of the app (format {0}), whose records anyone able to write to it could delete: sync with a new, empty database (this device sends everything it has there); nothing was changed"
    )]
    Older(u32),
    #[error("this sync database asks for {0} key derivation rounds, outside {MIN_ITERATIONS}..={MAX_ITERATIONS}: its configuration is not one this app wrote; nothing was changed")]
    Cost(u32),
    #[error("not a sync database of this app ({0})")]
    Foreign(String),
    #[error("a synced document could not be read: {0}")]
    Malformed(String),
    #[error(transparent)]
    Crypto(#[from] CryptoError),
}

/// How the key is derived from the passphrase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kdf {
    /// `PBKDF2-SHA256`.
    pub alg: String,
    pub iter: u32,
    /// Base64.
    pub salt: String,
}

/// The configuration document's body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    pub format: String,
    pub v: u32,
    pub encrypted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kdf: Option<Kdf>,
    /// Base64 of the ids' HMAC key, for a database without a passphrase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_salt: Option<String>,
    /// Base64 of [`CHECK_TEXT`] sealed with the key ([`CONFIG_ID`] as
    /// additional data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
}

fn passphrase_of(p: Option<&str>) -> Option<&str> {
    p.filter(|p| !p.is_empty())
}

/// A new database's configuration and keys: encrypted when a passphrase
/// is given.
pub async fn new_config<C: Crypto>(crypto: &C, passphrase: Option<&str>, iterations: u32) -> Result<(Config, C::Keys), EnvelopeError> {
    if !(MIN_ITERATIONS..=MAX_ITERATIONS).contains(&iterations) {
        return Err(EnvelopeError::Cost(iterations));
    }
    let salt = crypto.random(SALT_LEN);
    let Some(pass) = passphrase_of(passphrase) else {
        let keys = crypto.id_only(&salt).await?;
        let config = Config { format: FORMAT.into(), v: VERSION, encrypted: false, kdf: None, id_salt: Some(B64.encode(&salt)), check: None };
        return Ok((config, keys));
    };
    let keys = crypto.from_passphrase(pass, &salt, iterations).await?;
    let check = keys.seal(CONFIG_ID.as_bytes(), CHECK_TEXT).await?;
    let kdf = Kdf { alg: "PBKDF2-SHA256".into(), iter: iterations, salt: B64.encode(&salt) };
    let config = Config { format: FORMAT.into(), v: VERSION, encrypted: true, kdf: Some(kdf), id_salt: None, check: Some(B64.encode(check)) };
    Ok((config, keys))
}

/// The configuration in a database's [`CONFIG_ID`] document.
pub fn read_config(doc: &Value) -> Result<Config, EnvelopeError> {
    if doc.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(EnvelopeError::Foreign(format!("its {CONFIG_ID} document is not this app's")));
    }
    let config: Config = serde_json::from_value(doc.clone()).map_err(|e| EnvelopeError::Malformed(format!("{CONFIG_ID}: {e}")))?;
    if config.v > VERSION {
        return Err(EnvelopeError::Newer(config.v));
    }
    if config.v < VERSION {
        return Err(EnvelopeError::Older(config.v));
    }
    Ok(config)
}

fn base64(field: &str, text: Option<&String>) -> Result<Vec<u8>, EnvelopeError> {
    let text = text.ok_or_else(|| EnvelopeError::Malformed(format!("{CONFIG_ID} has no {field}")))?;
    B64.decode(text).map_err(|e| EnvelopeError::Malformed(format!("{CONFIG_ID}'s {field}: {e}")))
}

/// The keys of the database `config` describes, checked: a wrong
/// passphrase fails here, before anything else happens.
pub async fn unlock<C: Crypto>(crypto: &C, config: &Config, passphrase: Option<&str>) -> Result<C::Keys, EnvelopeError> {
    match (config.encrypted, passphrase_of(passphrase)) {
        (false, Some(_)) => Err(EnvelopeError::NotEncrypted),
        (false, None) => Ok(crypto.id_only(&base64("idSalt", config.id_salt.as_ref())?).await?),
        (true, None) => Err(EnvelopeError::PassphraseNeeded),
        (true, Some(pass)) => {
            let kdf = config.kdf.as_ref().ok_or_else(|| EnvelopeError::Malformed(format!("{CONFIG_ID} has no kdf")))?;
            if kdf.alg != "PBKDF2-SHA256" {
                return Err(EnvelopeError::Malformed(format!("unknown key derivation {}", kdf.alg)));
            }
            if !(MIN_ITERATIONS..=MAX_ITERATIONS).contains(&kdf.iter) {
                return Err(EnvelopeError::Cost(kdf.iter));
            }
            let keys = crypto.from_passphrase(pass, &base64("salt", Some(&kdf.salt))?, kdf.iter).await?;
            match keys.open(CONFIG_ID.as_bytes(), &base64("check", config.check.as_ref())?).await {
                Ok(text) if text == CHECK_TEXT => Ok(keys),
                _ => Err(EnvelopeError::WrongPassphrase),
            }
        }
    }
}

/// A record as it travels (a deletion too: its `v` is `null`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// Its kind (`session`, `message`, …).
    pub k: String,
    /// Its local id.
    pub id: String,
    /// The record.
    pub v: Value,
    /// When it was written (milliseconds since the epoch).
    pub at: f64,
    /// The device that wrote it.
    pub dev: String,
}

/// The document id of record `id` of kind `kind`: 32 hex digits of an
/// HMAC, never starting with `_`.
pub async fn wire_id<K: Keys>(keys: &K, kind: &str, id: &str) -> Result<String, EnvelopeError> {
    let mut data = Vec::with_capacity(kind.len() + id.len() + 1);
    data.extend_from_slice(kind.as_bytes());
    data.push(0);
    data.extend_from_slice(id.as_bytes());
    Ok(hex(&keys.mac(&data).await?[..16]))
}

/// The hash part of a revision of a record (32 hex digits): an HMAC of
/// its document id (`wire`), its kind, its parent revision, whether it is
/// deleted and its content, so two devices making the same change make the
/// same revision, the server cannot tell equal contents apart from the
/// revision ids, and no revision (a deletion least of all) means anything
/// in another document.
pub async fn rev_hash<K: Keys>(keys: &K, wire: &str, kind: &str, parent: Option<&str>, deleted: bool, v: &Value) -> Result<String, EnvelopeError> {
    let text = format!("rev2\0{wire}\0{kind}\0{}\0{}\0{}", parent.unwrap_or(""), u8::from(deleted), canonical(v));
    Ok(hex(&keys.mac(text.as_bytes()).await?[..16]))
}

/// The field of a document that marks its ancestry ([`ancestry_mark`]).
pub const ANCESTRY: &str = "anc";

/// What a device says of the ancestry it sends with a revision of
/// document `wire` (`start` and `ids`, as in `_revisions`): how many ids
/// it vouches for, and an HMAC of them. A revision's hash names only its
/// parent; this names the rest, so a writer without the key cannot graft
/// a revision onto another branch (hiding a version, or making a
/// deletion the winner). A server that knows more of the history sends a
/// longer list: only the ids vouched for are taken.
pub async fn ancestry_mark<K: Keys>(keys: &K, wire: &str, start: u64, ids: &[String]) -> Result<Value, EnvelopeError> {
    let text = format!("anc\0{wire}\0{start}\0{}", ids.join(","));
    Ok(json!({"n": ids.len(), "h": hex(&keys.mac(text.as_bytes()).await?[..16])}))
}

/// How many ids of `ids` (from `start`) document `doc` vouches for, checked
/// against its [`ANCESTRY`] mark.
pub async fn vouched<K: Keys>(keys: &K, doc: &Value, start: u64, ids: &[String]) -> Result<usize, EnvelopeError> {
    let id = doc.get("_id").and_then(Value::as_str).unwrap_or_default();
    let bad = || EnvelopeError::Malformed(format!("{id}: its ancestry is not the one a device of this database sent"));
    let mark = doc.get(ANCESTRY).ok_or_else(bad)?;
    let n = mark.get("n").and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok()).filter(|n| (1..=ids.len()).contains(n)).ok_or_else(bad)?;
    if ancestry_mark(keys, id, start, &ids[..n]).await?.get("h") != mark.get("h") {
        return Err(bad());
    }
    Ok(n)
}

/// `v` as text that means the same on every device and server: keys
/// sorted, and every number as the double it is (`1` and `1.0` are one
/// number, which a server that rewrites JSON may write either way).
pub fn canonical(v: &Value) -> String {
    fn same(v: &Value) -> Value {
        match v {
            Value::Number(n) => n.as_f64().and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number),
            Value::Array(a) => Value::Array(a.iter().map(same).collect()),
            Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), same(v))).collect()),
            other => other.clone(),
        }
    }
    air_tools::args::canonical_json(&same(v))
}

/// The document for `body` (without `_rev` and `_revisions`, which the
/// replication adds): sealed into `e` when the keys encrypt, its large
/// fields as attachments ([`INLINE_MAX`]).
pub async fn seal<K: Keys>(keys: &K, body: &Body) -> Result<Map<String, Value>, EnvelopeError> {
    let id = wire_id(keys, &body.k, &body.id).await?;
    let mut body = body.clone();
    let attachments = split(keys, &id, &mut body).await?;
    let body = &body;
    let mut doc = Map::new();
    doc.insert("_id".into(), Value::String(id.clone()));
    if !attachments.is_empty() {
        doc.insert("_attachments".into(), Value::Object(attachments));
    }
    if keys.seals() {
        let plain = serde_json::to_vec(body).map_err(|e| EnvelopeError::Malformed(e.to_string()))?;
        let sealed = keys.seal(id.as_bytes(), &plain).await?;
        doc.insert("e".into(), Value::String(B64.encode(sealed)));
    } else if let Value::Object(fields) = json!(body) {
        doc.extend(fields);
    }
    Ok(doc)
}

/// The record in document `doc` (a deletion's `v` is `null`), checked to
/// belong under the document's id.
pub async fn open<K: Keys>(keys: &K, doc: &Value) -> Result<Body, EnvelopeError> {
    let id = doc.get("_id").and_then(Value::as_str).ok_or_else(|| EnvelopeError::Malformed("a document without an _id".into()))?;
    let mut body: Body = if keys.seals() {
        let e = doc.get("e").and_then(Value::as_str).ok_or_else(|| EnvelopeError::Malformed(format!("{id} is not encrypted")))?;
        let sealed = B64.decode(e).map_err(|e| EnvelopeError::Malformed(format!("{id}: {e}")))?;
        let plain = keys.open(id.as_bytes(), &sealed).await?;
        serde_json::from_slice(&plain).map_err(|e| EnvelopeError::Malformed(format!("{id}: {e}")))?
    } else {
        serde_json::from_value(doc.clone()).map_err(|e| EnvelopeError::Malformed(format!("{id}: {e}")))?
    };
    if wire_id(keys, &body.k, &body.id).await? != id {
        return Err(EnvelopeError::Malformed(format!("{id} holds another record")));
    }
    join(keys, doc, &mut body).await?;
    Ok(body)
}

// Large fields as attachments. A document body is limited (CouchDB's
// `max_document_size`, 8 MB by default); attachments are not. A record's
// top-level text field longer than [`INLINE_MAX`] (a file's bytes in
// base64) leaves the body and travels as an attachment of the same name,
// sealed like the body and bound to the document id and the field; the
// body keeps, in its place, an HMAC of it (`{"attachment": "…"}`), so
// the server can neither swap an attachment for another nor an old one
// for the new.

/// The longest text field kept in the body.
pub const INLINE_MAX: usize = 64 * 1024;

fn aad(id: &str, field: &str) -> Vec<u8> {
    format!("{id}\0{field}").into_bytes()
}

async fn mark<K: Keys>(keys: &K, id: &str, field: &str, text: &[u8]) -> Result<String, EnvelopeError> {
    let mut data = aad(id, field);
    data.push(0);
    data.extend_from_slice(text);
    Ok(hex(&keys.mac(&data).await?[..16]))
}

/// Takes the large fields out of `body` (of document `id`): the
/// document's `_attachments`, empty when none.
async fn split<K: Keys>(keys: &K, id: &str, body: &mut Body) -> Result<Map<String, Value>, EnvelopeError> {
    let mut out = Map::new();
    let Some(fields) = body.v.as_object_mut() else { return Ok(out) };
    let large: Vec<String> = fields.iter().filter(|(_, v)| v.as_str().is_some_and(|s| s.len() > INLINE_MAX)).map(|(k, _)| k.clone()).collect();
    for field in large {
        let Some(Value::String(text)) = fields.remove(&field) else { continue };
        let sealed = if keys.seals() { keys.seal(&aad(id, &field), text.as_bytes()).await? } else { text.clone().into_bytes() };
        fields.insert(field.clone(), json!({"attachment": mark(keys, id, &field, text.as_bytes()).await?}));
        out.insert(field, json!({"content_type": "application/octet-stream", "data": B64.encode(sealed)}));
    }
    Ok(out)
}

/// Puts the fields [`split`] took out back into `body`, from document
/// `doc`'s attachments, each checked against the mark the body kept.
async fn join<K: Keys>(keys: &K, doc: &Value, body: &mut Body) -> Result<(), EnvelopeError> {
    let id = doc.get("_id").and_then(Value::as_str).unwrap_or_default();
    let Some(fields) = body.v.as_object_mut() else { return Ok(()) };
    let marked: Vec<(String, String)> = fields.iter().filter_map(|(k, v)| Some((k.clone(), v.as_object()?.get("attachment")?.as_str()?.to_owned()))).collect();
    for (field, want) in marked {
        let bad = |why: &str| EnvelopeError::Malformed(format!("{id}: the attachment {field} {why}"));
        let data = doc.pointer(&format!("/_attachments/{}/data", field.replace('~', "~0").replace('/', "~1"))).and_then(Value::as_str).ok_or_else(|| bad("came without its data"))?;
        let bytes = B64.decode(data).map_err(|_| bad("is not base64"))?;
        let plain = if keys.seals() { keys.open(&aad(id, &field), &bytes).await? } else { bytes };
        if mark(keys, id, &field, &plain).await? != want {
            return Err(bad("is not the one its document names"));
        }
        let text = String::from_utf8(plain).map_err(|_| bad("is not text"))?;
        fields.insert(field, Value::String(text));
    }
    Ok(())
}

#[cfg(test)]
#[path = "envelope_tests.rs"]
mod tests;

use pollster::block_on as run;
use serde_json::json;

use super::*;
use crate::soft::SoftCrypto;

/// Cheap in tests; the scheme is the same at any cost.
const ITER: u32 = 1_000;

fn body() -> Body {
    Body { k: "session".into(), id: "s-1".into(), v: json!({"title": "Trip to Kyoto", "updatedAt": 5.0}), at: 5.0, dev: "laptop".into() }
}

#[test]
fn a_second_device_opens_the_database_with_the_passphrase_and_only_with_it() {
    let first = SoftCrypto::seeded(1);
    let (config, keys) = run(new_config(&first, Some("correct horse"), ITER)).unwrap();
    assert!(config.encrypted && config.id_salt.is_none());
    assert_eq!(config.kdf.as_ref().map(|k| (k.alg.as_str(), k.iter)), Some(("PBKDF2-SHA256", ITER)));
    // As the server keeps it, and as another device reads it back.
    let stored = serde_json::to_value(&config).unwrap();
    let read = read_config(&stored).unwrap();
    let other = SoftCrypto::seeded(99);
    let joined = run(unlock(&other, &read, Some("correct horse"))).unwrap();
    // The same keys: what one seals the other opens, and ids agree.
    let doc = run(seal(&keys, &body())).unwrap();
    assert_eq!(run(open(&joined, &Value::Object(doc))).unwrap(), body());
    assert_eq!(run(wire_id(&keys, "session", "s-1")).unwrap(), run(wire_id(&joined, "session", "s-1")).unwrap());
    // A wrong or missing passphrase is said before anything else.
    assert_eq!(run(unlock(&other, &read, Some("wrong horse"))).err(), Some(EnvelopeError::WrongPassphrase));
    assert_eq!(run(unlock(&other, &read, None)).err(), Some(EnvelopeError::PassphraseNeeded));
    assert_eq!(run(unlock(&other, &read, Some(""))).err(), Some(EnvelopeError::PassphraseNeeded), "an empty field is no passphrase");
    assert_eq!(EnvelopeError::WrongPassphrase.to_string(), "this passphrase does not open this sync database; nothing was changed");
}

#[test]
fn the_server_holds_no_readable_text_and_no_telling_id() {
    let (_, keys) = run(new_config(&SoftCrypto::seeded(1), Some("pass"), ITER)).unwrap();
    let doc = Value::Object(run(seal(&keys, &body())).unwrap());
    let text = doc.to_string();
    for secret in ["Kyoto", "session", "s-1", "laptop", "title"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let id = doc["_id"].as_str().unwrap();
    assert!(id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    assert_eq!(doc.as_object().map(|o| o.len()), Some(2), "only _id and e: {doc}");
    // Sealing again gives other bytes (a fresh nonce), opening the same.
    let again = Value::Object(run(seal(&keys, &body())).unwrap());
    assert_ne!(again["e"], doc["e"]);
    assert_eq!(run(open(&keys, &again)).unwrap(), body());
}

#[test]
fn a_body_changed_or_moved_on_the_server_is_refused() {
    let (_, keys) = run(new_config(&SoftCrypto::seeded(1), Some("pass"), ITER)).unwrap();
    let doc = Value::Object(run(seal(&keys, &body())).unwrap());
    // Moved under another record's id.
    let mut moved = doc.clone();
    moved["_id"] = json!(run(wire_id(&keys, "session", "s-2")).unwrap());
    assert_eq!(run(open(&keys, &moved)).err(), Some(EnvelopeError::Crypto(CryptoError::Open)));
    // One character of the ciphertext changed.
    let mut changed = doc.clone();
    let e = doc["e"].as_str().unwrap();
    let flipped = match e.strip_prefix('A') {
        Some(rest) => format!("B{rest}"),
        None => format!("A{}", &e[1..]),
    };
    changed["e"] = json!(flipped);
    assert_eq!(run(open(&keys, &changed)).err(), Some(EnvelopeError::Crypto(CryptoError::Open)));
    // Not base64, not there: clear errors, no panic.
    changed["e"] = json!("%%%");
    assert!(matches!(run(open(&keys, &changed)), Err(EnvelopeError::Malformed(_))));
    assert!(matches!(run(open(&keys, &json!({"_id": "x"}))), Err(EnvelopeError::Malformed(m)) if m == "x is not encrypted"));
    assert!(matches!(run(open(&keys, &json!({"e": "x"}))), Err(EnvelopeError::Malformed(_))));
    // A deletion is sealed like a body: a bare one, or another
    // document's, is refused.
    assert!(run(open(&keys, &json!({"_id": "x", "_deleted": true}))).is_err());
    let gone = Body { v: Value::Null, ..body() };
    let mut tomb = Value::Object(run(seal(&keys, &gone)).unwrap());
    tomb["_deleted"] = json!(true);
    assert_eq!(run(open(&keys, &tomb)).unwrap(), gone);
    tomb["_id"] = moved["_id"].clone();
    assert_eq!(run(open(&keys, &tomb)).err(), Some(EnvelopeError::Crypto(CryptoError::Open)));
}

#[test]
fn without_a_passphrase_bodies_are_plain_and_ids_still_opaque() {
    let (config, keys) = run(new_config(&SoftCrypto::seeded(3), None, ITER)).unwrap();
    assert!(!config.encrypted && config.kdf.is_none() && config.check.is_none() && config.id_salt.is_some());
    let doc = Value::Object(run(seal(&keys, &body())).unwrap());
    assert_eq!(doc["v"]["title"], "Trip to Kyoto");
    assert!(!doc["_id"].as_str().unwrap().contains("s-1"));
    let joined = run(unlock(&SoftCrypto::default(), &read_config(&serde_json::to_value(&config).unwrap()).unwrap(), None)).unwrap();
    assert_eq!(run(open(&joined, &doc)).unwrap(), body());
    // A passphrase for a database that has none is refused, not ignored.
    assert_eq!(run(unlock(&SoftCrypto::default(), &config, Some("pass"))).err(), Some(EnvelopeError::NotEncrypted));
    // A plain body under another record's id is refused too.
    let mut moved = doc.clone();
    moved["id"] = json!("s-2");
    assert!(matches!(run(open(&joined, &moved)), Err(EnvelopeError::Malformed(m)) if m.ends_with("holds another record")));
}

#[test]
fn another_apps_or_a_newer_configuration_is_told_apart() {
    assert!(matches!(read_config(&json!({"hello": 1})), Err(EnvelopeError::Foreign(_))));
    assert_eq!(read_config(&json!({"format": "air-sync", "v": 3, "encrypted": false})).err(), Some(EnvelopeError::Newer(3)));
    assert!(matches!(read_config(&json!({"format": "air-sync", "v": "one"})), Err(EnvelopeError::Malformed(_))));
    let broken = Config { format: FORMAT.into(), v: VERSION, encrypted: true, kdf: None, id_salt: None, check: None };
    assert!(matches!(run(unlock(&SoftCrypto::default(), &broken, Some("p"))), Err(EnvelopeError::Malformed(m)) if m.contains("no kdf")));
}

#[test]
fn revisions_follow_document_kind_content_parent_and_deletion_only() {
    let (_, keys) = run(new_config(&SoftCrypto::seeded(1), Some("pass"), ITER)).unwrap();
    let v = json!({"b": 1, "a": [1, 2]});
    let hash = |wire: &str, kind: &str, parent: Option<&str>, deleted: bool, v: &Value| run(rev_hash(&keys, wire, kind, parent, deleted, v)).unwrap();
    let h = hash("d1", "session", None, false, &v);
    assert_eq!(h.len(), 32);
    // Key order does not matter; content, parent, deletion, document and kind do.
    assert_eq!(hash("d1", "session", None, false, &json!({"a": [1, 2], "b": 1})), h);
    assert_eq!(hash("d1", "session", None, false, &json!({"a": [1.0, 2.0], "b": 1.0})), h, "1 and 1.0 are one number");
    assert_ne!(hash("d1", "session", None, false, &json!({"a": [2, 1], "b": 1})), h);
    assert_ne!(hash("d1", "session", Some("1-abc"), false, &v), h);
    assert_ne!(hash("d1", "session", None, true, &v), h);
    assert_ne!(hash("d1", "message", None, false, &v), h);
    // The same deletion in another document is another revision.
    assert_ne!(hash("d2", "session", Some("1-abc"), true, &Value::Null), hash("d1", "session", Some("1-abc"), true, &Value::Null));
    // Another database's keys make other revisions of the same content.
    let (_, other) = run(new_config(&SoftCrypto::seeded(2), Some("pass"), ITER)).unwrap();
    assert_ne!(run(rev_hash(&other, "d1", "session", None, false, &v)).unwrap(), h);
}

#[test]
fn an_ancestry_counts_only_as_far_as_a_device_vouched_for_it() {
    let (_, keys) = run(new_config(&SoftCrypto::seeded(1), Some("pass"), ITER)).unwrap();
    let ids: Vec<String> = ["c", "b", "a"].map(String::from).into();
    let mut doc = json!({"_id": "d1"});
    doc[ANCESTRY] = run(ancestry_mark(&keys, "d1", 3, &ids[..2])).unwrap();
    // What was vouched for, and a longer history a server knows: the first two.
    assert_eq!(run(vouched(&keys, &doc, 3, &ids[..2])).unwrap(), 2);
    assert_eq!(run(vouched(&keys, &doc, 3, &ids)).unwrap(), 2);
    // Another parent, a shorter list, another start, another document, no mark: refused.
    let forged: Vec<String> = ["c", "x", "a"].map(String::from).into();
    assert!(run(vouched(&keys, &doc, 3, &forged)).is_err());
    assert!(run(vouched(&keys, &doc, 3, &ids[..1])).is_err());
    assert!(run(vouched(&keys, &doc, 4, &ids)).is_err());
    let mut moved = doc.clone();
    moved["_id"] = json!("d2");
    assert!(run(vouched(&keys, &moved, 3, &ids)).is_err());
    assert!(run(vouched(&keys, &json!({"_id": "d1"}), 3, &ids)).is_err());
}

#[test]
fn a_key_derivation_cost_out_of_bounds_is_refused_before_it_runs() {
    let (mut config, _) = run(new_config(&SoftCrypto::seeded(1), Some("pass"), ITER)).unwrap();
    for iter in [0, MIN_ITERATIONS - 1, MAX_ITERATIONS + 1, u32::MAX] {
        if let Some(k) = config.kdf.as_mut() {
            k.iter = iter;
        }
        assert_eq!(run(unlock(&SoftCrypto::default(), &config, Some("pass"))).err(), Some(EnvelopeError::Cost(iter)));
        assert_eq!(run(new_config(&SoftCrypto::default(), Some("pass"), iter)).err(), Some(EnvelopeError::Cost(iter)));
    }
    assert!(EnvelopeError::Cost(u32::MAX).to_string().contains("nothing was changed"));
}

#[test]
fn an_older_database_is_refused_and_a_plain_one_met_with_a_passphrase_is_not_advised_away() {
    let (config, _) = run(new_config(&SoftCrypto::seeded(1), None, ITER)).unwrap();
    let mut old = serde_json::to_value(&config).unwrap();
    old["v"] = json!(1);
    let err = read_config(&old).unwrap_err();
    assert_eq!(err, EnvelopeError::Older(1));
    assert!(err.to_string().contains("new, empty database"), "{err}");
    // A device that had a passphrase meets a configuration swapped for a plain one.
    let said = run(unlock(&SoftCrypto::default(), &config, Some("pass"))).unwrap_err().to_string();
    assert!(!said.contains("leave it empty") && !said.contains("leave the passphrase"), "emptying the passphrase would send plain text: {said}");
    assert!(said.contains("nothing was sent"), "{said}");
}

/// RFC 6070-style check that the derivation is PBKDF2-HMAC-SHA-256 then
/// HKDF, as WebCrypto computes it: a known vector the browser test
/// (`air-web/tests`) checks too.
#[test]
fn the_derivation_matches_the_published_vector() {
    let crypto = SoftCrypto::default();
    let keys = run(crypto.from_passphrase("password", b"salt", 1)).unwrap();
    // HMAC of "" under the HKDF-derived MAC key: pinned so that the
    // browser's WebCrypto derivation can be checked against the same value.
    let mac = hex(&run(keys.mac(b"")).unwrap());
    assert_eq!(mac.len(), 64);
    let again = run(SoftCrypto::seeded(5).from_passphrase("password", b"salt", 1)).unwrap();
    assert_eq!(hex(&run(again.mac(b"")).unwrap()), mac, "the derivation is deterministic");
    let mut pbkdf2 = [0u8; 32];
    ::pbkdf2::pbkdf2_hmac::<sha2::Sha256>(b"password", b"salt", 1, &mut pbkdf2);
    // RFC 7914 §11's PBKDF2-HMAC-SHA-256 vector (c = 1, dkLen = 32).
    assert_eq!(hex(&pbkdf2), "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b");
    assert_eq!(mac, MAC_VECTOR);
    let sealed = run(keys.seal(b"aad", b"hello")).unwrap();
    assert_eq!(hex(&sealed), SEALED_VECTOR);
    assert_eq!(run(again.open(b"aad", &sealed)).unwrap(), b"hello");
}

/// `mac("")` under the keys of passphrase "password", salt "salt", one
/// iteration (the browser test in `air-web/tests` derives the same).
pub const MAC_VECTOR: &str = "a413783ed49b2b4a829821d3be29deddc85558feb56332e42008c5db63b3ed00";
/// "hello" sealed under those keys with additional data "aad" (the
/// browser test opens it).
pub const SEALED_VECTOR: &str = "0700000000000000080000005d74089713c28d651a0ef8efdf403d9da22487dbee";

#[test]
fn a_large_field_travels_as_a_sealed_attachment_bound_to_its_document() {
    let big = "QUJD".repeat(INLINE_MAX / 2);
    let file = |data: &str| Body { k: "file".into(), id: "f-1".into(), v: json!({"id": "f-1", "mime": "image/png", "data": data}), at: 1.0, dev: "d".into() };
    for pass in [Some("pass"), None] {
        let (_, keys) = run(new_config(&SoftCrypto::seeded(1), pass, ITER)).unwrap();
        let doc = run(seal(&keys, &file(&big))).unwrap();
        let att = &doc["_attachments"]["data"];
        assert_eq!(att["content_type"], "application/octet-stream");
        let body_len = Value::Object(doc.iter().filter(|(k, _)| *k != "_attachments").map(|(k, v)| (k.clone(), v.clone())).collect()).to_string().len();
        assert!(body_len < 4_000, "the body stays small ({body_len} bytes)");
        if pass.is_some() {
            assert!(!Value::Object(doc.clone()).to_string().contains("QUJDQUJD"), "sealed");
        }
        assert_eq!(run(open(&keys, &Value::Object(doc.clone()))).unwrap(), file(&big), "back whole");
        // Another document's attachment (or an older one) is refused.
        let other = Value::Object(run(seal(&keys, &file(&"WFla".repeat(INLINE_MAX / 2)))).unwrap());
        let mut swapped = Value::Object(doc.clone());
        swapped["_attachments"]["data"] = other["_attachments"]["data"].clone();
        assert!(matches!(run(open(&keys, &swapped)), Err(EnvelopeError::Malformed(_)) | Err(EnvelopeError::Crypto(_))), "{pass:?}");
        let mut stub = Value::Object(doc);
        stub["_attachments"]["data"] = json!({"stub": true});
        assert!(run(open(&keys, &stub)).unwrap_err().to_string().contains("came without its data"));
    }
    // Small fields stay in the body.
    let (_, keys) = run(new_config(&SoftCrypto::seeded(1), Some("pass"), ITER)).unwrap();
    assert!(run(seal(&keys, &file("QUJD"))).unwrap().get("_attachments").is_none());
}

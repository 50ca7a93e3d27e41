//! Apache CouchDB's replication protocol, sans-IO: the same offline-first
//! sync CouchDB, Cloudant, PouchDB Server and PouchDB speak, so a user's
//! chats follow them to every device through a database they run. The
//! device's side (its store as a peer, the envelope) is `air-sync-local`;
//! when to sync is `air_workspace::sync`.
//!
//! * [`rev`]: revisions ([`Rev`], `N-hash`), `Revisions` (`_revisions`) and
//!   a document's revision tree ([`RevTree`]: `merge` of a revision with
//!   its ancestry, `leaves`, the deterministic `winner` (not deleted, then
//!   longest, then greatest hash), `conflicts`, `missing` and
//!   `possible_ancestors` for `_revs_diff`, stemming at `REVS_LIMIT`).
//! * [`peer`]: what replication needs from either side ([`Peer`]: `info`,
//!   `changes` in `style=all_docs`, `revs_diff`, `get_revs` with ancestry,
//!   `put_revs` as `new_edits: false`, `_local` documents), and the shapes
//!   it speaks in. Sequences are opaque JSON values (CouchDB 3's strings,
//!   PouchDB Server's integers), compared only for equality.
//! * [`memory`]: [`MemoryPeer`], a CouchDB-like database in memory: the
//!   reference model the tests replicate with, and the pattern a
//!   browser-store peer follows.
//! * [`couch`]: [`CouchPeer`], a remote database over `air_http`:
//!   `_changes`, `_revs_diff`, `_bulk_get` (with `attachments=true`, falling
//!   back to `GET ?open_revs=` where a server lacks it, remembered),
//!   `_bulk_docs`, `_local`, `create`, `_session` sign-in, and
//!   `changes_longpoll`, whose reader takes PouchDB Server's blank heartbeat
//!   lines and ends only when the caller aborts it. With [`auth`] (`Auth`:
//!   none, Basic, a session cookie; its `Debug` hides secrets), [`escape`]
//!   (ids in paths and queries) and [`wire`] (each answer read and checked;
//!   statuses to errors: 401/403 `Unauthorized`, 5xx/408/429 retryable).
//! * [`checkpoint`], [`replicate`]: `replication_id` (SHA-256 of what
//!   defines the replication) and `replicate`, one pass: the checkpoint
//!   `_local/<id>` is read on both sides, the pass resumes at the newest
//!   session both histories share (else from the start, which `_revs_diff`
//!   makes harmless), and after each batch the target's checkpoint is
//!   written before the source's, so a pass interrupted at any step sends
//!   again nothing checkpointed and loses nothing (host test
//!   `replicate_tests.rs`: each of a pass's calls failed in turn, before and
//!   after it reached the database). `replicate_watching` tells its caller
//!   the report after each batch, with what the source says is left
//!   (`pending`: CouchDB's `_changes` field, the memory peer's count, the
//!   device's journal count), for a first sync's "about N to go".
//!
//! Architecture invariant: no clock, no randomness, no IO of its own;
//! requests go through an injected `HttpClient`. Everything read from the
//! network is data: a bad answer is an [`Error`] ([`error`]), never a panic.
//!
//! Checked against real peers by `tests/sync/protocol.test.mjs` (through
//! `air-sync-cli`).
//!
//! Module order (each uses only those before it): `error`, `rev`, `peer`,
//! `memory`, `escape`, `auth`, `wire`, `couch`, `checkpoint`, `replicate`.

pub mod auth;
pub mod checkpoint;
pub mod couch;
pub mod error;
pub mod escape;
pub mod memory;
pub mod peer;
pub mod replicate;
pub mod rev;
pub mod wire;

pub use auth::Auth;
pub use couch::CouchPeer;
pub use error::Error;
pub use memory::MemoryPeer;
pub use peer::{Change, ChangesBatch, DbInfo, DocMeta, Missing, Peer, Seq};
pub use replicate::{Options, Report, replicate, replicate_watching, replication_id};
pub use rev::{Leaf, REVS_LIMIT, Rev, RevTree, Revisions};

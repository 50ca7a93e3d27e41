//! Apache CouchDB's replication protocol, sans-IO: the same offline-first
//! sync CouchDB, Cloudant, PouchDB Server and PouchDB speak, so a user's
//! chats follow them to every device through a database they run.
//!
//! * [`rev`]: revisions (`N-hash`) and a document's revision tree
//!   ([`RevTree`]: merge, winner, conflicts, stemming, `_revs_diff`).
//! * [`peer`]: what replication needs from either side ([`Peer`]), and
//!   the shapes it speaks in (changes, missing revisions, sequences).
//! * [`memory`]: [`MemoryPeer`], a CouchDB-like database in memory: the
//!   reference model, and the pattern a browser-store peer follows.
//! * [`couch`]: [`CouchPeer`], a remote database over `air_http`
//!   (CouchDB 3 and PouchDB Server; `_bulk_get` or its fallback; the
//!   long-poll feed), with [`auth`] (Basic, session cookie), [`escape`]
//!   (ids in URLs) and [`wire`] (the answers, checked).
//! * [`checkpoint`], [`replicate`]: one replication pass that resumes
//!   where the last one stopped.
//!
//! Architecture invariant: no clock, no randomness, no IO of its own;
//! requests go through an injected `HttpClient`. Everything read from the
//! network is data: a bad answer is an [`Error`], never a panic.
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

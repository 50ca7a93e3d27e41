//! What a device puts on the sync server, without IO: the device's store
//! as an `air_sync::Peer`, the end-to-end envelope over an injected cipher,
//! and how two versions written apart end. What syncs is decided by the
//! app (`air_workspace::sync_store`'s `AppKinds`, `sync_prefs`).
//!
//! - [`crypto`]: the cipher, injected: [`crypto::Crypto`] (random bytes;
//!   keys from a passphrase: PBKDF2-HMAC-SHA-256, then HKDF-SHA-256 into an
//!   AES-GCM key and an HMAC key; or an HMAC key alone for a database
//!   without a passphrase) and [`crypto::Keys`] (`seal`/`open`: AES-GCM with
//!   a fresh 96-bit nonce and additional data; `mac`). WebCrypto implements
//!   it in the page (`air_web::crypto`); [`soft`]'s `SoftCrypto` (feature
//!   `test-support`, on RustCrypto) in host tests, so no cipher code reaches
//!   the bundle. Both are held to the same vectors (host
//!   `envelope_tests.rs`, browser
//!   `webcrypto_derives_seals_and_opens_as_the_host_cipher_does`).
//! - [`envelope`]: the database's plain `air-sync-config` document
//!   (encrypted or not, the salt and cost, a key check) made by `new_config`
//!   and opened by `unlock`, which refuses a wrong passphrase before
//!   anything is read or written; `wire_id` (32 hex digits of an HMAC of
//!   kind and local id: no title or name reaches the server); `seal`/`open`
//!   of a record's `Body` (sealed into `e`, bound to its document id; a
//!   top-level text field over 64 KiB, or a file's bytes, leaves the body
//!   as an attachment of its name, sealed and bound to the id and the
//!   field, with an HMAC of it left in the body, so CouchDB's 8 MB body
//!   limit never stops a file and the server cannot swap one); `rev_hash`
//!   (revisions as an HMAC of document id, kind, parent, deletion and
//!   content, so equal edits on two devices converge, the server cannot
//!   compare contents, and no revision counts in another document);
//!   `ancestry_mark`/`vouched` (the ids of `_revisions` a device vouches
//!   for, as an HMAC: only those are merged, so no revision is grafted onto
//!   another branch); the PBKDF2 cost read bounded (`MIN_ITERATIONS`,
//!   `MAX_ITERATIONS`). The envelope is versioned in the configuration: a
//!   database of version 1 (revisions not bound to their document) is
//!   refused with a message to sync with a new, empty database.
//! - [`records`]: what the local peer needs of the device's store
//!   ([`records::Records`]: the journal, reading a record, applying what was
//!   pulled, the per-record bookkeeping [`records::RevEntry`] kept outside
//!   the journal, `_local` documents), and what syncs and how
//!   ([`records::Kinds`]: which records, what of them travels, how a pulled
//!   one keeps this device's own fields, and the `Rule` two versions written
//!   apart end by: `KeepBoth` for words, `Newest` for settings-like
//!   records).
//! - [`store_peer`]: [`StorePeer`], the store as one side of a replication.
//!   The journal is its changes feed; a record whose content no longer
//!   hashes to what was last synced was edited here and gets one revision
//!   then (so a streamed answer's checkpoints make one), sealed when it
//!   leaves. A pulled winner is written with its hash kept, so the journal
//!   entry that write makes is not sent back; what a pull writes is also
//!   journaled with the database's mark (`Change::from`: its URL and its
//!   configuration's random salt, hashed), and the feed passes such entries
//!   by when pushing to that database (`Entry::pulled`), so a device that
//!   has just pulled 200,000 records does not read them all again to find
//!   nothing to send. An edit here replaces the entry without the mark; a
//!   pulled record whose revisions grew here (an edit made a revision, a
//!   conflict settled, a branch made of a lost text) is journaled again
//!   after the write (`Write::Touch`), so what the database lacks is always
//!   sent. It works a batch at a time: a batch's records and bookkeeping are
//!   read in one request each (`Records::read_many`, `rev_entries`), and its
//!   ids, hashes, seals and openings go to the cipher at once (`join_all`:
//!   WebCrypto works on them in parallel).
//! - [`settle`]: merging a pulled revision, and ending conflicts: an edit
//!   made here and not sent yet becomes a revision first (it meets what
//!   arrives as a conflict instead of being overwritten); `KeepBoth` makes
//!   each text the winner lacks a record of its own beside it (a branch) and
//!   closes its leaf; `Newest` makes the version edited last the winner and
//!   keeps the others as `superseded` for the user. Every revision it makes
//!   is named by its content, so two devices settling the same conflict
//!   meet without a new one (host tests `store_peer_tests.rs`: two devices
//!   and a server in memory).
//! - [`memory`] (feature `test-support`): `MemoryRecords`, a store with a
//!   journal in memory, the device of host tests.
//!
//! Module order (each uses only those before it): `crypto`, `envelope`,
//! `records`, `store_peer`, `settle`, then `soft` and `memory`.

pub mod crypto;
pub mod envelope;
#[cfg(feature = "test-support")]
pub mod memory;
pub mod records;
pub mod settle;
#[cfg(feature = "test-support")]
pub mod soft;
pub mod store_peer;

pub use store_peer::StorePeer;

//! What a device puts on the sync server, without IO.
//!
//! - [`crypto`]: the cipher, injected ([`crypto::Crypto`], [`crypto::Keys`]).
//! - [`envelope`]: a database's configuration and key check, opaque
//!   document ids, sealed bodies, revision hashes.
//! - [`records`]: what the local peer needs of the device's store
//!   ([`records::Records`]), what it keeps per record
//!   ([`records::RevEntry`]), and what syncs and how ([`records::Kinds`]).
//! - [`store_peer`]: the store as one side of a replication
//!   ([`StorePeer`]), with [`settle`] (how versions written apart end).
//! - [`soft`], [`memory`] (feature `test-support`): a software cipher and
//!   a store in memory, for host tests.
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

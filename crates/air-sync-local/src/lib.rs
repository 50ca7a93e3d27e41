//! What a device puts on the sync server, without IO.
//!
//! - [`crypto`]: the cipher, injected ([`crypto::Crypto`], [`crypto::Keys`]).
//! - [`envelope`]: a database's configuration and key check, opaque
//!   document ids, sealed bodies, revision hashes.
//! - [`soft`] (feature `test-support`): a software cipher for host tests.

pub mod crypto;
pub mod envelope;
#[cfg(feature = "test-support")]
pub mod soft;

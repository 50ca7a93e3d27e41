//! The cipher the envelope runs on, injected: WebCrypto in the browser
//! (`air_web::crypto`), a software one in host tests ([`crate::soft`]).
//! Both derive the same keys from the same passphrase and salt, and each
//! opens what the other sealed.
//!
//! The scheme: PBKDF2-HMAC-SHA-256 turns the passphrase and the database's
//! salt into 32 bytes; HKDF-SHA-256 (no salt) turns those into an AES-GCM
//! key (info [`AES_INFO`]) and an HMAC-SHA-256 key (info [`MAC_INFO`]). A
//! database without a passphrase has only the HMAC key, taken from its id
//! salt as it is, so its document ids say nothing either.

use thiserror::Error;

/// HKDF `info` of the AES-GCM key.
pub const AES_INFO: &[u8] = b"air-sync aes";
/// HKDF `info` of the HMAC key.
pub const MAC_INFO: &[u8] = b"air-sync id";
/// Bytes of an AES-GCM nonce, sealed text's first bytes.
pub const IV_LEN: usize = 12;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CryptoError {
    /// The sealed text is not what these keys sealed (a wrong key, or it
    /// was changed).
    #[error("the data could not be decrypted with this passphrase (or it was changed)")]
    Open,
    /// These keys only make ids: the database has no passphrase.
    #[error("this database is not encrypted")]
    NoCipher,
    /// The platform's cipher failed (WebCrypto missing, say).
    #[error("encryption is not available here: {0}")]
    Unavailable(String),
}

/// Makes keys.
#[allow(async_fn_in_trait)]
pub trait Crypto {
    type Keys: Keys;

    /// `n` random bytes (salts).
    fn random(&self, n: usize) -> Vec<u8>;

    /// Both keys from a passphrase (see the module's scheme).
    #[allow(clippy::wrong_self_convention, reason = "the provider makes keys from a passphrase: not a constructor of the provider")]
    async fn from_passphrase(&self, passphrase: &str, salt: &[u8], iterations: u32) -> Result<Self::Keys, CryptoError>;

    /// Only the HMAC key, `raw` as it is (a database without a passphrase).
    async fn id_only(&self, raw: &[u8]) -> Result<Self::Keys, CryptoError>;
}

/// A database's keys.
#[allow(async_fn_in_trait)]
pub trait Keys {
    /// Whether these keys encrypt (a passphrase was given).
    fn seals(&self) -> bool;

    /// `iv ‖ ciphertext ‖ tag` of `plain`, bound to `aad`, under a fresh
    /// random nonce.
    async fn seal(&self, aad: &[u8], plain: &[u8]) -> Result<Vec<u8>, CryptoError>;

    /// The plain text of what [`Keys::seal`] made with the same `aad`.
    async fn open(&self, aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, CryptoError>;

    /// HMAC-SHA-256 of `data`.
    async fn mac(&self, data: &[u8]) -> Result<[u8; 32], CryptoError>;
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

//! A software cipher, the same scheme as WebCrypto's (see [`crate::crypto`]),
//! for host tests. Its nonces come from a counter: deterministic, and
//! never reused within one instance.

use std::cell::Cell;

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::crypto::{AES_INFO, Crypto, CryptoError, IV_LEN, Keys, MAC_INFO};

/// Makes [`SoftKeys`]; `random` counts up from a seed.
#[derive(Debug, Default)]
pub struct SoftCrypto {
    next: Cell<u64>,
}

impl SoftCrypto {
    pub fn seeded(seed: u64) -> Self {
        Self { next: Cell::new(seed) }
    }

    fn bytes(next: &Cell<u64>, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let v = next.get();
            next.set(v.wrapping_add(1));
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.truncate(n);
        out
    }
}

#[derive(Debug)]
pub struct SoftKeys {
    aes: Option<[u8; 32]>,
    mac: Vec<u8>,
    next: Cell<u64>,
}

impl Crypto for SoftCrypto {
    type Keys = SoftKeys;

    fn random(&self, n: usize) -> Vec<u8> {
        Self::bytes(&self.next, n)
    }

    async fn from_passphrase(&self, passphrase: &str, salt: &[u8], iterations: u32) -> Result<SoftKeys, CryptoError> {
        let mut master = [0u8; 32];
        pbkdf2::pbkdf2_hmac::<Sha256>(passphrase.as_bytes(), salt, iterations, &mut master);
        let hk = hkdf::Hkdf::<Sha256>::new(None, &master);
        let (mut aes, mut mac) = ([0u8; 32], [0u8; 32]);
        hk.expand(AES_INFO, &mut aes).map_err(|e| CryptoError::Unavailable(e.to_string()))?;
        hk.expand(MAC_INFO, &mut mac).map_err(|e| CryptoError::Unavailable(e.to_string()))?;
        Ok(SoftKeys { aes: Some(aes), mac: mac.to_vec(), next: Cell::new(self.next.get().wrapping_mul(31).wrapping_add(7)) })
    }

    async fn id_only(&self, raw: &[u8]) -> Result<SoftKeys, CryptoError> {
        Ok(SoftKeys { aes: None, mac: raw.to_vec(), next: Cell::new(0) })
    }
}

impl Keys for SoftKeys {
    fn seals(&self) -> bool {
        self.aes.is_some()
    }

    async fn seal(&self, aad: &[u8], plain: &[u8]) -> Result<Vec<u8>, CryptoError> {
        let key = self.aes.ok_or(CryptoError::NoCipher)?;
        let cipher = Aes256Gcm::new_from_slice(&key).map_err(|e| CryptoError::Unavailable(e.to_string()))?;
        let iv = SoftCrypto::bytes(&self.next, IV_LEN);
        let sealed = cipher.encrypt(Nonce::from_slice(&iv), Payload { msg: plain, aad }).map_err(|_| CryptoError::Open)?;
        Ok([iv, sealed].concat())
    }

    async fn open(&self, aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, CryptoError> {
        let key = self.aes.ok_or(CryptoError::NoCipher)?;
        if sealed.len() < IV_LEN + 16 {
            return Err(CryptoError::Open);
        }
        let cipher = Aes256Gcm::new_from_slice(&key).map_err(|e| CryptoError::Unavailable(e.to_string()))?;
        let (iv, body) = sealed.split_at(IV_LEN);
        cipher.decrypt(Nonce::from_slice(iv), Payload { msg: body, aad }).map_err(|_| CryptoError::Open)
    }

    async fn mac(&self, data: &[u8]) -> Result<[u8; 32], CryptoError> {
        let mut m = <Hmac<Sha256> as Mac>::new_from_slice(&self.mac).map_err(|e| CryptoError::Unavailable(e.to_string()))?;
        m.update(data);
        Ok(m.finalize().into_bytes().into())
    }
}

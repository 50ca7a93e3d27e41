//! The sync envelope's cipher on WebCrypto (`crypto.subtle`): PBKDF2,
//! HKDF, AES-GCM and HMAC as `air_sync_local::crypto` describes them. The
//! keys are non-extractable `CryptoKey`s: the page's script can use them,
//! never read them.
//!
//! `crypto.subtle` exists only in a secure context (https, or this
//! machine): elsewhere every call says so.

use air_sync_local::crypto::{AES_INFO, Crypto, CryptoError, IV_LEN, Keys, MAC_INFO};
use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{CryptoKey, SubtleCrypto};

/// Makes [`WebKeys`].
#[derive(Debug, Clone, Copy, Default)]
pub struct WebCrypto;

/// A database's keys: AES-GCM (none without a passphrase) and HMAC.
#[derive(Debug, Clone)]
pub struct WebKeys {
    aes: Option<CryptoKey>,
    mac: CryptoKey,
}

fn unavailable(e: impl std::fmt::Debug) -> CryptoError {
    CryptoError::Unavailable(format!("{e:?}"))
}

fn subtle() -> Result<SubtleCrypto, CryptoError> {
    let window = web_sys::window().ok_or_else(|| unavailable("no window"))?;
    if !window.is_secure_context() {
        return Err(CryptoError::Unavailable("the page is not served over https".into()));
    }
    Ok(window.crypto().map_err(unavailable)?.subtle())
}

/// A plain object of `fields`.
fn object(fields: &[(&str, JsValue)]) -> Result<Object, CryptoError> {
    let o = Object::new();
    for (k, v) in fields {
        Reflect::set(&o, &JsValue::from_str(k), v).map_err(unavailable)?;
    }
    Ok(o)
}

fn bytes(b: &[u8]) -> JsValue {
    Uint8Array::from(b).into()
}

fn usages(list: &[&str]) -> JsValue {
    list.iter().map(|u| JsValue::from_str(u)).collect::<Array>().into()
}

async fn wait(promise: Result<js_sys::Promise, JsValue>) -> Result<JsValue, CryptoError> {
    JsFuture::from(promise.map_err(unavailable)?).await.map_err(unavailable)
}

async fn wait_key(promise: Result<js_sys::Promise, JsValue>) -> Result<CryptoKey, CryptoError> {
    wait(promise).await?.dyn_into::<CryptoKey>().map_err(unavailable)
}

fn to_vec(buffer: JsValue) -> Vec<u8> {
    Uint8Array::new(&buffer).to_vec()
}

/// An HKDF-derived key (`info`) of algorithm `alg` for `use_for`.
async fn hkdf(s: &SubtleCrypto, base: &CryptoKey, info: &[u8], alg: &Object, use_for: &[&str]) -> Result<CryptoKey, CryptoError> {
    let params = object(&[("name", "HKDF".into()), ("hash", "SHA-256".into()), ("salt", bytes(&[])), ("info", bytes(info))])?;
    wait_key(s.derive_key_with_object_and_object(&params, base, alg, false, &usages(use_for))).await
}

impl Crypto for WebCrypto {
    type Keys = WebKeys;

    fn random(&self, n: usize) -> Vec<u8> {
        let mut b = vec![0u8; n];
        if let Some(c) = web_sys::window().and_then(|w| w.crypto().ok()) {
            // Fills at most 65,536 bytes at a time; salts are 16.
            for part in b.chunks_mut(65_536) {
                let _ = c.get_random_values_with_u8_array(part);
            }
        }
        b
    }

    async fn from_passphrase(&self, passphrase: &str, salt: &[u8], iterations: u32) -> Result<WebKeys, CryptoError> {
        let s = subtle()?;
        let pass = Uint8Array::from(passphrase.as_bytes());
        let base = wait_key(s.import_key_with_str("raw", &pass, "PBKDF2", false, &usages(&["deriveBits"]))).await?;
        let params = object(&[("name", "PBKDF2".into()), ("hash", "SHA-256".into()), ("salt", bytes(salt)), ("iterations", iterations.into())])?;
        let master = wait(s.derive_bits_with_object(&params, &base, 256)).await?;
        let master = Uint8Array::new(&master);
        let hk = wait_key(s.import_key_with_str("raw", &master, "HKDF", false, &usages(&["deriveKey"]))).await?;
        let aes_alg = object(&[("name", "AES-GCM".into()), ("length", 256.into())])?;
        let aes = hkdf(&s, &hk, AES_INFO, &aes_alg, &["encrypt", "decrypt"]).await?;
        let mac_alg = object(&[("name", "HMAC".into()), ("hash", "SHA-256".into()), ("length", 256.into())])?;
        let mac = hkdf(&s, &hk, MAC_INFO, &mac_alg, &["sign"]).await?;
        Ok(WebKeys { aes: Some(aes), mac })
    }

    async fn id_only(&self, raw: &[u8]) -> Result<WebKeys, CryptoError> {
        let s = subtle()?;
        let alg = object(&[("name", "HMAC".into()), ("hash", "SHA-256".into())])?;
        let mac = wait_key(s.import_key_with_object("raw", &Uint8Array::from(raw), &alg, false, &usages(&["sign"]))).await?;
        Ok(WebKeys { aes: None, mac })
    }
}

impl Keys for WebKeys {
    fn seals(&self) -> bool {
        self.aes.is_some()
    }

    async fn seal(&self, aad: &[u8], plain: &[u8]) -> Result<Vec<u8>, CryptoError> {
        let key = self.aes.as_ref().ok_or(CryptoError::NoCipher)?;
        let iv = WebCrypto.random(IV_LEN);
        if iv.iter().all(|b| *b == 0) {
            return Err(unavailable("no random numbers"));
        }
        let params = object(&[("name", "AES-GCM".into()), ("iv", bytes(&iv)), ("additionalData", bytes(aad))])?;
        let sealed = wait(subtle()?.encrypt_with_object_and_u8_array(&params, key, plain)).await?;
        Ok([iv, to_vec(sealed)].concat())
    }

    async fn open(&self, aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, CryptoError> {
        let key = self.aes.as_ref().ok_or(CryptoError::NoCipher)?;
        if sealed.len() < IV_LEN + 16 {
            return Err(CryptoError::Open);
        }
        let (iv, body) = sealed.split_at(IV_LEN);
        let params = object(&[("name", "AES-GCM".into()), ("iv", bytes(iv)), ("additionalData", bytes(aad))])?;
        // A wrong key or changed bytes reject the promise: that is `Open`.
        let promise = subtle()?.decrypt_with_object_and_u8_array(&params, key, body).map_err(unavailable)?;
        JsFuture::from(promise).await.map(to_vec).map_err(|_| CryptoError::Open)
    }

    async fn mac(&self, data: &[u8]) -> Result<[u8; 32], CryptoError> {
        let signed = to_vec(wait(subtle()?.sign_with_str_and_u8_array("HMAC", &self.mac, data)).await?);
        signed.try_into().map_err(|_| unavailable("an HMAC of another length"))
    }
}

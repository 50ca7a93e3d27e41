//! How an attached file is kept: `{id, sessionId, type, blob}`, its bytes
//! a Blob (read without a copy into wasm, and a part of it at a time).
//! A browser that refuses Blobs in IndexedDB (WebKit's ephemeral
//! sessions, as in a private window) gets them as an ArrayBuffer instead,
//! once a write of a Blob has failed; readers take either.

use air_store::{FileRecord, StoreError};
use wasm_bindgen::{JsCast, JsValue};

use super::IdbStore;

/// `file` as it is stored: its bytes as a Blob, or as an ArrayBuffer.
pub(super) fn file_value(file: &FileRecord, as_blob: bool) -> air_store::Result<JsValue> {
    let fail = |e: JsValue| StoreError::Other(format!("{e:?}"));
    let bytes: JsValue = if as_blob { crate::bytes_blob(&file.bytes, &file.mime).map_err(fail)?.into() } else { js_sys::Uint8Array::from(file.bytes.as_slice()).buffer().into() };
    let o = js_sys::Object::new();
    for (k, v) in [("id", JsValue::from_str(&file.id)), ("sessionId", JsValue::from_str(&file.session_id)), ("type", JsValue::from_str(&file.mime)), ("blob", bytes)] {
        js_sys::Reflect::set(&o, &JsValue::from_str(k), &v).map_err(fail)?;
    }
    Ok(o.into())
}

/// A stored file's bytes as a Blob (of its type), whichever way they were kept.
pub(super) fn stored_blob(v: &JsValue) -> Option<web_sys::Blob> {
    let bytes = js_sys::Reflect::get(v, &JsValue::from_str("blob")).ok()?;
    if let Some(blob) = bytes.dyn_ref::<web_sys::Blob>() {
        return Some(blob.clone());
    }
    let buffer = bytes.dyn_into::<js_sys::ArrayBuffer>().ok()?;
    let mime = js_sys::Reflect::get(v, &JsValue::from_str("type")).ok().and_then(|t| t.as_string()).unwrap_or_default();
    crate::bytes_blob(&js_sys::Uint8Array::new(&buffer).to_vec(), &mime).ok()
}

/// A stored file's bytes, at most the first `max` (only those are read).
pub(super) async fn stored_bytes(v: &JsValue, max: Option<usize>) -> air_store::Result<Option<Vec<u8>>> {
    let other = |e: JsValue| StoreError::Other(format!("{e:?}"));
    let Ok(bytes) = js_sys::Reflect::get(v, &JsValue::from_str("blob")) else { return Ok(None) };
    if let Some(buffer) = bytes.dyn_ref::<js_sys::ArrayBuffer>() {
        let all = js_sys::Uint8Array::new(buffer);
        let end = max.map_or(all.length(), |m| all.length().min(u32::try_from(m).unwrap_or(u32::MAX)));
        return Ok(Some(all.subarray(0, end).to_vec()));
    }
    let Ok(mut blob) = bytes.dyn_into::<web_sys::Blob>() else { return Ok(None) };
    if let Some(max) = max.filter(|m| (*m as f64) < blob.size()) {
        blob = blob.slice_with_f64_and_f64(0.0, max as f64).map_err(other)?;
    }
    // Read after the transaction: a Blob outlives it.
    let buffer = wasm_bindgen_futures::JsFuture::from(blob.array_buffer()).await.map_err(other)?;
    Ok(Some(js_sys::Uint8Array::new(&buffer).to_vec()))
}

impl IdbStore {
    /// Stores `file` (`put` writes one value): as a Blob unless this
    /// browser has refused one, then as an ArrayBuffer from now on.
    pub(super) async fn put_file_kept<F, Fut>(&self, file: &FileRecord, put: F) -> air_store::Result<()>
    where
        F: Fn(JsValue) -> Fut,
        Fut: std::future::Future<Output = air_store::Result<()>>,
    {
        if !self.blobs.get() {
            return put(file_value(file, false)?).await;
        }
        let Err(first) = put(file_value(file, true)?).await else { return Ok(()) };
        // A full disk fails the same way as bytes: then the first error stands.
        put(file_value(file, false)?).await.map_err(|_| first)?;
        self.blobs.set(false);
        Ok(())
    }

    /// Whether files are written as Blobs (see [`IdbStore::put_file_kept`]).
    pub(super) fn files_as_blobs(&self) -> bool {
        self.blobs.get()
    }
}

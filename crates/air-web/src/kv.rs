//! `localStorage` as an [`air_store::KeyValue`].

use air_store::{KeyValue, StoreError};

/// The page's `localStorage`. Reads fail soft (`None`); writes report
/// quota and availability errors.
#[derive(Debug, Clone, Default)]
pub struct LocalStorageKv;

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

impl KeyValue for LocalStorageKv {
    fn get(&self, key: &str) -> Option<String> {
        storage()?.get_item(key).ok().flatten()
    }

    fn set(&self, key: &str, value: &str) -> air_store::Result<()> {
        let s = storage().ok_or_else(|| StoreError::Unavailable("localStorage is disabled".into()))?;
        s.set_item(key, value).map_err(|e| {
            let text = format!("{e:?}");
            if text.contains("Quota") { StoreError::QuotaExceeded(format!("localStorage is full while saving \"{key}\"")) } else { StoreError::Other(text) }
        })
    }

    fn remove(&self, key: &str) -> air_store::Result<()> {
        let s = storage().ok_or_else(|| StoreError::Unavailable("localStorage is disabled".into()))?;
        s.remove_item(key).map_err(|e| StoreError::Other(format!("{e:?}")))
    }
}

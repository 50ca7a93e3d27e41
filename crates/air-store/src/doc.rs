//! Typed documents kept beside the conversations ([`Store::get_doc`]): one
//! [`Doc`] names a document and the type it holds, so reading it (absent or
//! unreadable: the default) and writing it are written once.

use std::borrow::Cow;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{Store, StoreError};

/// A document of the store and the type of its value.
#[derive(Debug, Clone)]
pub struct Doc<T> {
    key: Cow<'static, str>,
    form: PhantomData<fn() -> T>,
}

impl<T: Serialize + DeserializeOwned + Default> Doc<T> {
    /// A document with a fixed key.
    pub const fn fixed(key: &'static str) -> Self {
        Self { key: Cow::Borrowed(key), form: PhantomData }
    }

    /// A document whose key is made (one per conversation, say).
    pub fn keyed(key: String) -> Self {
        Self { key: Cow::Owned(key), form: PhantomData }
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    /// The document; absent, unreadable or out of reach: the default (a
    /// document is derived or re-learnt data, never the only copy of
    /// something the user wrote).
    pub async fn read(&self, store: &impl Store) -> T {
        store.get_doc(&self.key).await.ok().flatten().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
    }

    pub async fn write(&self, store: &impl Store, value: &T) -> crate::Result<()> {
        let text = serde_json::to_string(value).map_err(|e| StoreError::Other(e.to_string()))?;
        store.put_doc(&self.key, &text).await
    }

    pub async fn delete(&self, store: &impl Store) -> crate::Result<()> {
        store.delete_doc(&self.key).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;

    #[test]
    fn a_document_reads_back_and_falls_back_to_its_default() {
        pollster::block_on(async {
            let store = MemoryStore::default();
            let doc: Doc<Vec<String>> = Doc::keyed(format!("list/{}", 1));
            assert_eq!(doc.read(&store).await, Vec::<String>::new());
            doc.write(&store, &vec!["a".into()]).await.unwrap();
            assert_eq!(store.get_doc("list/1").await.unwrap().as_deref(), Some(r#"["a"]"#));
            assert_eq!(doc.read(&store).await, vec!["a".to_owned()]);
            store.put_doc("list/1", "{not json").await.unwrap();
            assert_eq!(doc.read(&store).await, Vec::<String>::new());
            doc.delete(&store).await.unwrap();
            assert_eq!(store.get_doc("list/1").await.unwrap(), None);
            const FIXED: Doc<u32> = Doc::fixed("n");
            assert_eq!(FIXED.key(), "n");
        });
    }
}

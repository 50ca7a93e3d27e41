//! The small key/value store (localStorage) and its typed keys: a [`Key`]
//! names a value and the type it holds, so the name and the form are
//! written once ([`crate::keys`] lists them all).
//!
//! Reading never loses anything: text that cannot be read as the key's type
//! is kept aside under `{name}.corrupt` and the default is used, and the
//! caller is told ([`Kept`]).

use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A value that is not in its key's form.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct CodecError(#[from] serde_json::Error);

/// How a key's value is written as text.
pub trait Codec<T> {
    fn decode(text: &str) -> Result<T, CodecError>;
    /// The text to keep; `None` removes the key.
    fn encode(value: &T) -> Result<Option<String>, CodecError>;
}

/// JSON (serde).
#[derive(Debug)]
pub struct Json;

impl<T: Serialize + DeserializeOwned> Codec<T> for Json {
    fn decode(text: &str) -> Result<T, CodecError> {
        Ok(serde_json::from_str(text)?)
    }
    fn encode(value: &T) -> Result<Option<String>, CodecError> {
        Ok(Some(serde_json::to_string(value)?))
    }
}

/// The text as it is (written by a page outside the app, such as the
/// sign-in callback).
#[derive(Debug)]
pub struct Raw;

impl Codec<String> for Raw {
    fn decode(text: &str) -> Result<String, CodecError> {
        Ok(text.to_owned())
    }
    fn encode(value: &String) -> Result<Option<String>, CodecError> {
        Ok(Some(value.clone()))
    }
}

/// Present or not: any text is `true`; `true` is kept as `"1"`, `false`
/// removes the key.
#[derive(Debug)]
pub struct Flag;

impl Codec<bool> for Flag {
    fn decode(_: &str) -> Result<bool, CodecError> {
        Ok(true)
    }
    fn encode(value: &bool) -> Result<Option<String>, CodecError> {
        Ok(value.then(|| "1".to_owned()))
    }
}

/// A key of the key/value store and the type of its value.
#[derive(Debug)]
pub struct Key<T, C = Json> {
    pub name: &'static str,
    form: PhantomData<fn() -> (T, C)>,
}

impl<T, C> Clone for Key<T, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, C> Copy for Key<T, C> {}

/// Stored text that could not be read: it is kept under `aside` (when that
/// could be written), and the default is in use.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    pub key: &'static str,
    pub error: String,
    /// Where the text was kept (`None`: it could not be written there).
    pub aside: Option<String>,
}

/// A value read, and what was kept aside on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Read<T> {
    pub value: T,
    pub kept: Option<Kept>,
}

impl<T, C: Codec<T>> Key<T, C> {
    pub const fn new(name: &'static str) -> Self {
        Self { name, form: PhantomData }
    }

    /// The value, or the default when there is none; unreadable text is
    /// kept aside, never lost.
    pub fn read(&self, kv: &impl KeyValue) -> Read<T>
    where
        T: Default,
    {
        let Some(raw) = kv.get(self.name) else { return Read { value: T::default(), kept: None } };
        match C::decode(&raw) {
            Ok(value) => Read { value, kept: None },
            Err(error) => {
                let aside = format!("{}.corrupt", self.name);
                let aside = kv.set(&aside, &raw).is_ok().then_some(aside);
                Read { value: T::default(), kept: Some(Kept { key: self.name, error: error.to_string(), aside }) }
            }
        }
    }

    /// The value (the default when there is none or it cannot be read).
    pub fn get(&self, kv: &impl KeyValue) -> T
    where
        T: Default,
    {
        self.read(kv).value
    }

    /// The value, if one is kept and readable (nothing is kept aside).
    pub fn get_opt(&self, kv: &impl KeyValue) -> Option<T> {
        C::decode(&kv.get(self.name)?).ok()
    }

    /// Whether anything is kept under the key.
    pub fn is_set(&self, kv: &impl KeyValue) -> bool {
        kv.get(self.name).is_some()
    }

    pub fn set(&self, kv: &impl KeyValue, value: &T) -> crate::Result<()> {
        match C::encode(value).map_err(|e| crate::StoreError::Other(e.to_string()))? {
            Some(text) => kv.set(self.name, &text),
            None => kv.remove(self.name),
        }
    }

    pub fn remove(&self, kv: &impl KeyValue) -> crate::Result<()> {
        kv.remove(self.name)
    }
}

/// A synchronous string key/value store (localStorage).
pub trait KeyValue {
    fn get(&self, key: &str) -> Option<String>;
    fn set(&self, key: &str, value: &str) -> crate::Result<()>;
    fn remove(&self, key: &str) -> crate::Result<()>;
}

/// A [`KeyValue`] in memory, for tests.
#[derive(Debug, Default)]
pub struct MemoryKv(pub std::cell::RefCell<std::collections::BTreeMap<String, String>>);

impl KeyValue for MemoryKv {
    fn get(&self, key: &str) -> Option<String> {
        self.0.borrow().get(key).cloned()
    }
    fn set(&self, key: &str, value: &str) -> crate::Result<()> {
        self.0.borrow_mut().insert(key.to_owned(), value.to_owned());
        Ok(())
    }
    fn remove(&self, key: &str) -> crate::Result<()> {
        self.0.borrow_mut().remove(key);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_text_is_kept_as_it_is() {
        const RETURN: Key<String, Raw> = Key::new("r");
        let kv = MemoryKv::default();
        assert_eq!(RETURN.get_opt(&kv), None);
        RETURN.set(&kv, &"https://x.test/?code=1".to_owned()).unwrap();
        assert_eq!(kv.get("r").as_deref(), Some("https://x.test/?code=1"));
        assert_eq!(RETURN.get(&kv), "https://x.test/?code=1");
    }
}

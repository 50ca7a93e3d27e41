//! Upgrading records stored in an older format ([`IdbStore::migrate`]):
//! run by [`IdbStore::open`], or by the page in a part of its own when
//! [`IdbStore::needs_migration`], so a first visit does not carry the
//! records' reader.

use air_store::MessageRecord;
use rexie::TransactionMode;
use wasm_bindgen::JsValue;

use super::{IdbStore, err, from_js, to_js};
use air_store::{FORMAT_KEY, MESSAGES, META, RECORD_FORMAT};

impl IdbStore {
    /// The record format the stored records are in (1 before `meta` existed).
    pub async fn record_format(&self) -> air_store::Result<u32> {
        let tx = self.db.transaction(&[META], TransactionMode::ReadOnly).map_err(err)?;
        let v = tx.store(META).map_err(err)?.get(JsValue::from_str(FORMAT_KEY)).await.map_err(err)?;
        Ok(v.and_then(|v| v.as_f64()).map_or(1, |f| f as u32))
    }

    /// Rewrites records stored in an older format in the current one
    /// ([`air_store::migrate`]: structured errors, parent links), in one
    /// transaction (all or nothing), then records the format. A record
    /// that cannot be read is left as it is (reading it reports it).
    pub async fn migrate(&self) -> air_store::Result<()> {
        if !self.needs_migration().await? {
            return Ok(());
        }
        self.write(&[MESSAGES, META], |tx| async move {
            let messages = tx.store(MESSAGES).map_err(err)?;
            let read = messages.get_all(None, None).await.map_err(err)?.into_iter().filter_map(|v| from_js::<MessageRecord>(v).ok()).collect();
            for record in air_store::migrate::messages(read) {
                messages.put(&to_js(&record)?, None).await.map_err(err)?;
            }
            let format = JsValue::from_f64(f64::from(RECORD_FORMAT));
            tx.store(META).map_err(err)?.put(&format, Some(&JsValue::from_str(FORMAT_KEY))).await.map_err(err)?;
            Ok(tx)
        })
        .await
    }

    /// Records are stored in an older format. A database with no message
    /// has nothing to migrate (its records are written in the current
    /// format from the start; its first session written marks it so,
    /// `put_session`).
    pub async fn needs_migration(&self) -> air_store::Result<bool> {
        if self.record_format().await? >= RECORD_FORMAT {
            return Ok(false);
        }
        let tx = self.db.transaction(&[MESSAGES], TransactionMode::ReadOnly).map_err(err)?;
        Ok(tx.store(MESSAGES).map_err(err)?.count(None).await.map_err(err)? > 0)
    }
}

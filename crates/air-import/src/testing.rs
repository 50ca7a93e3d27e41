//! What the formats' tests share: hostile variations of a sample, and
//! imports into a store in memory.

use air_store::MemoryStore;
use air_store::export::Export;
use serde_json::{Value, json};

use crate::Summary;

/// A format's converter.
pub type Convert = fn(&[Value], f64) -> (Export, Summary);

/// Every broken variation of each of `samples` ([`each_broken`]) converts
/// without a panic, into what its summary counts, and passes `check`; how
/// many were tried.
pub fn converts_every_broken(samples: &[Value], convert: Convert, check: &dyn Fn(&Export, &Summary)) -> usize {
    let mut runs = 0;
    for sample in samples {
        each_broken(sample, &mut |v| {
            let (export, summary) = convert(&[v], 5.0);
            assert_eq!(export.sessions.len(), summary.conversations);
            assert_eq!(export.sessions.iter().map(|s| s.messages.len()).sum::<usize>(), summary.messages);
            check(&export, &summary);
            runs += 1;
        });
    }
    runs
}

/// `files` imported, then the same again and converted again later: what
/// the first import added (conversations, messages); the others add nothing.
pub fn imported_once(files: &[Value], convert: Convert) -> (usize, usize) {
    let mut store = Importer::default();
    let (export, _) = convert(files, 5.0);
    let first = store.import(&export);
    assert_eq!(store.import(&export), (0, 0), "the same export again");
    assert_eq!(store.import(&convert(files, 9.0).0), (0, 0), "converted again, still the same");
    first
}

/// Each value of `v` (at every depth) replaced in turn by each value of
/// another type (and a date no calendar has), as `f` sees them.
pub fn each_broken(v: &Value, f: &mut dyn FnMut(Value)) {
    fn paths(v: &Value, at: &str, out: &mut Vec<String>) {
        out.push(at.to_owned());
        match v {
            Value::Object(o) => o.iter().for_each(|(k, c)| paths(c, &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out)),
            Value::Array(a) => a.iter().enumerate().for_each(|(i, c)| paths(c, &format!("{at}/{i}"), out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    paths(v, "", &mut all);
    for p in all {
        for wrong in [json!(null), json!(-1.5), json!(1e300), json!("\u{0}"), json!("2024/13/45 99:99:99 PM"), json!([]), json!({}), json!(true), json!([{"a": 1}])] {
            let mut broken = v.clone();
            if let Some(slot) = broken.pointer_mut(&p) {
                *slot = wrong;
            }
            f(broken);
        }
    }
}

/// A store in memory that exports are imported into, as the app does.
#[derive(Default)]
pub struct Importer {
    store: MemoryStore,
    ids: usize,
}

impl Importer {
    /// The store imported into.
    pub fn store(&self) -> &MemoryStore {
        &self.store
    }

    /// (conversations, messages) written.
    pub fn import(&mut self, export: &Export) -> (usize, usize) {
        let ids = &mut self.ids;
        let mut new_id = || {
            *ids += 1;
            format!("new-{ids}")
        };
        pollster::block_on(air_store::import::import(&self.store, export, &mut new_id)).unwrap_or_else(|e| panic!("import: {e}"))
    }
}

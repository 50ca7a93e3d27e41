//! One replication pass from a source [`Peer`] to a target, as CouchDB's
//! replication protocol describes it: find the checkpoint, then for each
//! batch of the source's changes ask the target what it lacks, copy just
//! that, and record the checkpoint on both sides.
//!
//! A pass that fails part-way leaves nothing to repair: the next pass
//! resumes after the last batch recorded on both sides, and `_revs_diff`
//! skips whatever was copied after it.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use crate::checkpoint::{self, Checkpoint, Entry};
use crate::error::Error;
use crate::peer::{ChangesBatch, Peer, Seq, seq_zero};
use crate::rev::Rev;

/// How a pass runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Changes read per batch (and checkpoint interval).
    pub batch_size: usize,
    /// Anything else that makes this replication different from another
    /// between the same databases (a filter, a key); part of its id.
    pub extra: String,
}

impl Default for Options {
    fn default() -> Self {
        Self { batch_size: 100, extra: String::new() }
    }
}

/// What a pass did.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Revisions read from the source.
    pub docs_read: u64,
    /// Revisions written to the target.
    pub docs_written: u64,
    /// Where the source's changes were copied up to (where the next pass
    /// starts).
    pub last_seq: Seq,
    /// Batches of changes copied.
    pub batches: u64,
    /// Changes the source said remain after the last batch.
    pub pending: Option<u64>,
}

/// The id of the replication from `source_id` to `target_id`: the name of
/// its checkpoint documents. Stable across runs and devices; differs with
/// the direction and with `extra`.
pub fn replication_id(source_id: &str, target_id: &str, extra: &str) -> String {
    hex32(&format!("air-sync/1\n{source_id}\n{target_id}\n{extra}"))
}

/// The first 128 bits of SHA-256, in hex.
fn hex32(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Both sides' checkpoints for one replication, as last read or written.
struct Checkpoints {
    id: String,
    session: String,
    start: Seq,
    source: Checkpoint,
    target: Checkpoint,
}

impl Checkpoints {
    async fn read(source: &impl Peer, target: &impl Peer, id: String) -> Result<Self, Error> {
        let source_doc = source.get_local(&id).await?;
        let target_doc = target.get_local(&id).await?;
        let (source_cp, target_cp) = (Checkpoint::read(source_doc.as_ref()), Checkpoint::read(target_doc.as_ref()));
        let start = checkpoint::start_seq(&source_cp, &target_cp).unwrap_or_else(seq_zero);
        // No clock and no randomness here: a session is named by the state
        // it starts from, which every pass that wrote anything changed.
        let session = hex32(&format!("{id}\n{:?}\n{:?}\n{start}", source_cp.rev, target_cp.rev));
        Ok(Self { id, session, start, source: source_cp, target: target_cp })
    }

    /// Records `report` on the target, then on the source. A source that
    /// refuses (read-only for this user) is left without one: the next
    /// pass starts over, and `_revs_diff` makes that cheap.
    async fn write(&mut self, source: &impl Peer, target: &impl Peer, report: &Report) -> Result<(), Error> {
        let entry =
            Entry { session_id: self.session.clone(), recorded_seq: report.last_seq.clone(), start_last_seq: self.start.clone(), docs_read: report.docs_read, docs_written: report.docs_written };
        save(target, &self.id, &mut self.target, entry.clone()).await?;
        match save(source, &self.id, &mut self.source, entry).await {
            Err(Error::Unauthorized(_)) | Ok(()) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// Writes `side` with `entry` recorded; `side` changes only once written.
async fn save(peer: &impl Peer, id: &str, side: &mut Checkpoint, entry: Entry) -> Result<(), Error> {
    let mut next = side.clone();
    next.record(entry);
    next.rev = Some(peer.put_local(id, next.doc()).await?);
    *side = next;
    Ok(())
}

/// Copies what the target lacks of one batch of changes.
async fn copy_batch(source: &impl Peer, target: &impl Peer, batch: &ChangesBatch, report: &mut Report) -> Result<(), Error> {
    let mut asked: BTreeMap<String, Vec<Rev>> = BTreeMap::new();
    for change in &batch.results {
        let revs = asked.entry(change.id.clone()).or_default();
        for rev in &change.revs {
            if !revs.contains(rev) {
                revs.push(rev.clone());
            }
        }
    }
    let missing = target.revs_diff(asked.clone()).await?;
    // Only what was asked about, whatever else the answer holds.
    let wanted: Vec<(String, Vec<Rev>)> = missing
        .into_iter()
        .filter_map(|(id, m)| {
            let asked = asked.get(&id)?;
            let revs: Vec<Rev> = m.missing.into_iter().filter(|r| asked.contains(r)).collect();
            (!revs.is_empty()).then_some((id, revs))
        })
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let docs = source.get_revs(&wanted).await?;
    report.docs_read += docs.len() as u64;
    let n = docs.len() as u64;
    target.put_revs(docs).await?;
    report.docs_written += n;
    Ok(())
}

/// One pass: copies every change of `source` since the last checkpoint to
/// `target`, recording a checkpoint after each batch, until the source
/// has no more. Run it again to pick up later changes (or after an error:
/// nothing is lost, and what was recorded is not read again).
pub async fn replicate(source: &impl Peer, target: &impl Peer, options: &Options) -> Result<Report, Error> {
    replicate_watching(source, target, options, &mut |_| {}).await
}

/// [`replicate`], telling `watch` the report so far after each batch (a
/// first sync's progress).
pub async fn replicate_watching(source: &impl Peer, target: &impl Peer, options: &Options, watch: &mut dyn FnMut(&Report)) -> Result<Report, Error> {
    source.info().await?;
    target.info().await?;
    let id = replication_id(&source.id(), &target.id(), &options.extra);
    let mut checkpoints = Checkpoints::read(source, target, id).await?;
    let limit = options.batch_size.max(1);
    let mut report = Report { docs_read: 0, docs_written: 0, last_seq: checkpoints.start.clone(), batches: 0, pending: None };
    loop {
        let batch = source.changes(&report.last_seq, limit).await?;
        if batch.results.is_empty() {
            break;
        }
        copy_batch(source, target, &batch, &mut report).await?;
        report.batches += 1;
        report.last_seq = batch.last_seq.clone();
        report.pending = batch.pending;
        checkpoints.write(source, target, &report).await?;
        watch(&report);
        if batch.results.len() < limit {
            break;
        }
    }
    Ok(report)
}

#[cfg(test)]
#[path = "replicate_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "replicate_http_tests.rs"]
mod http_tests;

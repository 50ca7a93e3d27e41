//! Bringing records stored by an older version up to the format this one
//! writes ([`crate::RECORD_FORMAT`]): the rule, in one place, that each
//! store applies (`IdbStore::migrate` in the browser, [`MemoryStore::migrate`]).
//!
//! [`MemoryStore::migrate`]: crate::MemoryStore::migrate

use crate::{MessageRecord, branches};

/// Messages as read from storage (any sessions', in any order), brought up
/// to date: a message stored before parent links existed (format 3) gets
/// the parent its path implies ([`branches::link`]), session by session.
/// (Format 2, structured errors, needs nothing here: reading a record
/// converts it, and writing it back stores the new form.) Returned grouped
/// by session, in order.
pub fn messages(mut all: Vec<MessageRecord>) -> Vec<MessageRecord> {
    all.sort_by(|a, b| a.session_id.cmp(&b.session_id).then_with(|| a.seq.total_cmp(&b.seq)).then_with(|| a.id.cmp(&b.id)));
    for session in all.chunk_by_mut(|a, b| a.session_id == b.session_id) {
        branches::link(session);
    }
    all
}

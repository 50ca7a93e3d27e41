//! Searching every message and title: a query runs after a pause in
//! typing, and only the latest query's answer is shown; an index that
//! cannot be read is built again (the search asked again once it is), and
//! a store from before the index gets one shortly after start-up.

use air_store::search::SearchResults;
use air_store::{Store, StoreError};

use crate::{Command, Missing, Notice, Platform, StoreOp, Timer, Update, Workspace};

/// Pause in typing before a search runs.
pub const SEARCH_DELAY_MS: u64 = 150;

/// Hits shown first, and at most: each hit is a few reads, so the best
/// ones (a screenful) are on screen sooner, and the rest follow from a
/// second query, once the first are drawn.
pub const FIRST_HITS: usize = 12;
pub const ALL_HITS: usize = 50;
pub const MORE_HITS_DELAY_MS: u64 = 50;

/// How long after start-up the index is checked (and built if it must be):
/// the first screen is drawn first.
pub const INDEX_CHECK_DELAY_MS: u64 = 1500;

/// The search's state.
#[derive(Debug, Default)]
pub struct Search {
    query: String,
    /// The query under way: its answer must name it.
    ticket: u64,
    indexing: bool,
}

/// What the search is asked, and the answers of its tasks.
#[derive(Debug)]
pub enum Action {
    /// The sidebar's search text changed.
    Query(String),
    Searched {
        ticket: u64,
        limit: usize,
        result: Result<Result<SearchResults, StoreError>, Missing>,
    },
    IndexChecked {
        complete: bool,
    },
    IndexRebuilt(Result<Result<(), StoreError>, Missing>),
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Query(query) => search(w, query),
        Action::Searched { ticket, limit, result } => searched(w, ticket, limit, result),
        Action::IndexChecked { complete } => {
            if !complete {
                rebuild(w);
            }
        }
        Action::IndexRebuilt(result) => rebuilt(w, result),
    }
}

fn search<P: Platform>(w: &mut Workspace<P>, query: String) {
    w.search.ticket += 1;
    w.search.query = query;
    if w.search.query.trim().is_empty() {
        w.emit(Update::SearchResults(None));
        return;
    }
    // After a pause in typing.
    let ticket = w.search.ticket;
    w.after(SEARCH_DELAY_MS, Timer::Search(ticket, FIRST_HITS));
}

/// The pause after query `ticket` is over (its first `limit` hits), or
/// its first hits are drawn (all of them): asked for, if still the latest.
pub(crate) fn run<P: Platform>(w: &mut Workspace<P>, ticket: u64, limit: usize) {
    if ticket != w.search.ticket {
        return;
    }
    if limit == FIRST_HITS {
        w.emit(Update::SearchStarted);
    }
    let asked = w.p.search(w.search.query.clone(), limit);
    w.spawn(async move { Some(Command::Search(Action::Searched { ticket, limit, result: asked.await })) });
}

fn searched<P: Platform>(w: &mut Workspace<P>, ticket: u64, limit: usize, result: Result<air_store::Result<SearchResults>, crate::Missing>) {
    // Only the latest query's answer counts.
    if ticket != w.search.ticket {
        return;
    }
    match result {
        Ok(Ok(results)) => {
            // The first hits are shown; with as many ranked as asked
            // for, there may be more: all of them follow.
            let more = limit < ALL_HITS && results.more;
            w.emit(Update::SearchResults(Some(results)));
            if more {
                w.after(MORE_HITS_DELAY_MS, Timer::Search(ticket, ALL_HITS));
            }
        }
        // The index cannot be read: it is built again (and the search
        // asked again once it is).
        Ok(Err(_)) => rebuild(w),
        Err(crate::Missing) => w.emit(Update::Notice(Notice::PartMissing)),
    }
}

/// Start-up's check: a store with sessions and no complete index gets one.
pub(crate) fn check<P: Platform>(w: &mut Workspace<P>) {
    // Nothing stored, nothing to index (a new store starts its index with
    // its first write).
    let Some(store) = w.p.store().filter(|_| !w.sessions.list.is_empty()) else { return };
    w.spawn(async move {
        let complete = matches!(store.index_stats().await, Ok(Some(stats)) if stats.complete);
        Some(Command::Search(Action::IndexChecked { complete }))
    });
}

fn rebuild<P: Platform>(w: &mut Workspace<P>) {
    if w.search.indexing {
        return;
    }
    w.search.indexing = true;
    w.emit(Update::Indexing(true));
    let built = w.p.rebuild_index();
    w.spawn(async move { Some(Command::Search(Action::IndexRebuilt(built.await))) });
}

fn rebuilt<P: Platform>(w: &mut Workspace<P>, result: Result<air_store::Result<()>, crate::Missing>) {
    w.search.indexing = false;
    w.emit(Update::Indexing(false));
    match result {
        Ok(Ok(())) => {
            if !w.search.query.trim().is_empty() {
                let query = w.search.query.clone();
                search(w, query);
            }
        }
        Ok(Err(error)) => w.emit(Update::Notice(Notice::Store { op: StoreOp::ReadMessages, error })),
        Err(crate::Missing) => w.emit(Update::Notice(Notice::PartMissing)),
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;

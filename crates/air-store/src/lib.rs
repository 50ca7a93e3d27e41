//! The storage model, with no browser in sight: the records, the
//! [`Store`] interface a backing store provides (IndexedDB in the browser,
//! `air_web::IdbStore`; [`MemoryStore`] here and in tests), and the small
//! key/value store (localStorage) with everything kept there.
//!
//! Conversations:
//!
//! * [`records`]: `SessionRecord` and `MessageRecord`. A message is a record
//!   of its own, keyed by id, ordered by `seq` within its session; fields
//!   are camelCase in storage (`sessionId`, `toolCalls`, `incomplete`…).
//!   `kind` is a `MessageKind` (`transitive-thought`, `round-limit`; unknown
//!   kinds from newer versions read as `Unknown`, shown but never sent). A
//!   `tool` message carries a `ToolRun` (name, server, arguments as
//!   written, status, the whole output, duration). `rev` goes up at every
//!   save, so views keyed on (id, rev) re-render exactly the records that
//!   changed.
//! * [`Store`]: the async interface: sessions (a page of the list after a
//!   `SessionCursor`, newest activity first and ties by larger id first;
//!   `touch_session` changes only the time, read and written at once, so a
//!   rename meanwhile is kept), a session's messages and pages of them,
//!   files, small JSON documents by key (and `doc_keys` under a prefix), the
//!   search index, and the journal. `conformance::run` (feature
//!   `test-support`) is the behaviour every implementation must have, run
//!   against memory on the host and against IndexedDB in Chromium.
//! * [`batch`]: many records at once, what a first sync and an import do
//!   thousands of times: `Store::put_batch` writes a `Batch` (sessions, then
//!   files, then messages; an id twice: the later) as the single puts
//!   would, each record journaled once and indexed; `Store::get_batch`
//!   reads the records `Ids` name. The defaults (`put_each`, `get_each`) go
//!   one record at a time; IndexedDB does each in one transaction.
//! * [`branches`]: alternatives. Nothing is deleted when an answer is
//!   regenerated or a question edited: a *fork* (the id of the message
//!   after which the conversation went on in more than one way, or `ROOT`)
//!   gets another *alternative*; each message carries its path, and the
//!   session record, per fork, how many alternatives there are and which is
//!   shown (`forks`). `shown` is the branch on screen and in the request;
//!   `tip` the path of a new message; `fork_at` makes the current way
//!   alternative 0 the first time and shows a new, empty one; `switch_at`
//!   is where ‹ 2 / 3 › goes; `reveal` shows the branch of a search hit.
//!   Switching is a write of the session record only, so another tab
//!   follows it as a session change. Each message also names the message it
//!   follows (`parent`, set once), so paths and forks can be made again
//!   from the links alone (`derive`): two devices that went on from the
//!   same message while apart end with two alternatives, not one
//!   interleaved line. `link` gives records stored before the links existed
//!   the parent their path implies (run by [`migrate`]).
//! * [`files`]: what an attached file becomes (`classify`): an image of a
//!   type vision models take (PNG, JPEG, GIF, WebP; at most 20 MB, after one
//!   larger than `MAX_IMAGE_SIDE` (2048) on its longer side was drawn again
//!   at the size `fit` gives, in the type `scaled_type` gives; a GIF is not
//!   scaled as it may be animated), text (UTF-8 without NUL; at most 10 MB
//!   read) put into the message as a fenced block after the user's text,
//!   cut at 50,000 characters with a note saying so (`text_block`; the
//!   fence is longer than any backtick run inside), or refused with a
//!   `Refusal`. A message's images are `Attachment`s on the record and
//!   `FileRecord`s of their own; `to_chat` names them as `ImagePart`s, and
//!   the turn reads each file into a `data:` URL just before the request is
//!   sent. Shown in the page, a stored file is a `blob:` URL typed by
//!   `records::shown_image_type` (an image type that runs nothing, else
//!   `image/png`), so an imported `text/html` or SVG file never renders as
//!   the app.
//! * [`journal`]: the change feed. Every record a write puts or removes
//!   gets one `Entry`: a sequence number, strictly increasing on this
//!   device, and which record; a record keeps only its latest entry, and a
//!   removed one a tombstone (deleting a session leaves one for it and each
//!   of its messages and files). `Store::journal_since(after, limit)` reads
//!   it. Records written before the journal (database version 4) have none.
//! * [`sync_meta`]: `SyncMeta`, what sync keeps beside the records (each
//!   record's revisions, the replication's checkpoints) under `sync:` keys,
//!   never journaled; `rejournal` (records noted again, unchanged, when only
//!   their revisions changed) and `journal_last`.
//! * [`search`] and [`segments`]: full-text search over every message and
//!   title. The store keeps the index itself, in the same write as the
//!   message it describes, so every tab's writes are indexed as they
//!   happen; titles are indexed by the next search (`Store::index_pending`:
//!   `put_session` leaves a mark), which keeps the index's code out of the
//!   first page. `search` is its logic without IO: `doc_terms`,
//!   `title_terms`, `message_terms` and `query_terms` (`air-search`'s
//!   tokenizer), `rank` (BM25 over document numbers; every word of the
//!   query must match; at most 20,000 of a term's most recent entries are
//!   read; single Chinese characters only when the query has no word or
//!   character pair), `snippet` (the text around the first match, the
//!   matching words marked, never markup) and `run` (a query to hits with
//!   titles, snippets and the message's `seq`: only the best hits' ids
//!   resolved). An index of another format, or with a record that cannot be
//!   read, is rebuilt (`rebuild_index`: page by page, each page one
//!   transaction of about 25 ms of work, a cursor in the totals so a write
//!   meanwhile is indexed once; searches meanwhile say "still indexing");
//!   merging (`compact_index`) runs afterwards in the background, a bounded
//!   step per task, in the one tab holding the Web Lock
//!   `air-search-compact`. `segments` (the design, with its figures, is
//!   `docs/SEARCH-SEGMENTS.md`) is the format both stores keep the index in:
//!   posting lists encoded compactly (varints, deltas, most recent first;
//!   malformed bytes an error, never a panic), a batch's segments built at
//!   once (rare terms sharing 256 buckets), one document appended to its
//!   buckets' growing segments (sealed at 256 entries), dead documents as
//!   tombstones, `DocBlock`s from numbers to ids, a tiered merge in bounded
//!   steps. `MemSegments` runs the whole algorithm in memory; a model test
//!   checks it against a naive index over random writes, deletes, merges
//!   and sweeps.
//! * [`export`]: the export document (the stored records themselves, so a
//!   round trip is lossless; format 2 carries each session's files, base64,
//!   and format 1 exports still import; settings only for "export all", the
//!   API key only when asked), `collect`, and `Export::parse` with reasons a
//!   person can act on; `markdown`, one conversation as Markdown with its
//!   tool calls summarised.
//! * [`import`]: an export written into the store as data from outside. A
//!   conversation whose ids are all new goes in as it was; one already here
//!   exactly as in the file is left alone; any other clash gets the
//!   conversation new ids (forks, branch paths and files following), so an
//!   import never replaces a record. Tool calls the file left unfinished
//!   come in as `ToolStatus::Interrupted`, and every imported call is
//!   marked `imported`: nothing resumes on opening, and Run again asks
//!   first whatever the tool's policy.
//! * [`doc`]: typed documents beside the conversations (`Doc<T>`, fixed or
//!   keyed per conversation): absent or unreadable reads as the default,
//!   since a document is derived or re-learnt data. Dynamic loading's are
//!   `air_dynamic::docs`.
//! * [`log`]: the event log's data: an `Entry` (time, `Level`, a closed
//!   `Kind`: turn started and ended, tools offered, a call asked, called,
//!   done, refused, denied, failed, a tool loaded or invalidated, an MCP
//!   session's connect, retry or error, tools listed again; an unknown kind
//!   reads as `Other`) and the `EventLog` ring (the last `MAX_ENTRIES`,
//!   1,000), kept as one document (`LOG`) and exported as JSON Lines.
//!   `redact` takes the secrets out of every text before it is kept: `sk-…`
//!   keys, `Bearer` and `Basic` tokens, what follows `Authorization:`, and
//!   the values of names like a key, token, password or secret in JSON
//!   (also JSON quoted in JSON), in `name=value` text and in query strings.
//! * [`migrate`]: records stored by an older version brought to the format
//!   this one writes (`RECORD_FORMAT`), the rule each store applies.
//! * [`memory`]: [`MemoryStore`], for host tests and for the page when the
//!   browser refuses IndexedDB.
//!
//! The key/value store:
//!
//! * [`kv`]: the `KeyValue` interface (localStorage) and typed keys: a
//!   `Key<T, Codec>` names a value and its form (`Json`, `Raw` text written
//!   by a page outside the app, `Flag` for presence), reads it with
//!   unreadable text kept aside under `{name}.corrupt` (`Kept` says so) and
//!   the default used, writes and removes it. [`keys`] names every key the
//!   app keeps (settings, servers, each chat's servers, assistants, the
//!   sidebar, whether sessions exist, the add form kept over a sign-in).
//! * [`settings`]: the `Settings` record (one JSON value under
//!   `air-agent-settings`, a corrupt value kept aside, never lost).
//!   `Profile`s are other providers (name, base URL, key, model):
//!   `Profile::apply` replaces base URL, key and model together, so a key
//!   only ever goes with its own base URL, and `edit_base_url` drops the key
//!   when the URL moves to another origin (so does switching `PRESETS`).
//!   Exports leave profile keys out unless secrets are asked for.
//!   `Settings::vision` remembers, per provider and model, whether a request
//!   with images was answered or refused; with `probed_tool_calling` it can
//!   also be set by hand (`known_models`, `known_tools`, `known_images`,
//!   `set_known_model` for Settings → Models). A finding made later replaces
//!   a value set by hand; a hand-set tool-calling way is kept, since auto
//!   only probes when it knows none. `ModelLists` are the top bar's model
//!   lists, one per provider, asked once while the page is open.
//! * [`providers`]: the providers a choice can name (the settings' own and
//!   each profile), the models known for each, and the MCP summarizer's
//!   pick among them (`mcp_summarizer_profile`, empty for the settings' own
//!   provider).
//! * [`language`]: the UI language (`UiLanguage`): the one picked in
//!   Settings, else the browser's (`resolve`: a `zh`/`zh-*` first entry of
//!   `navigator.languages` is Chinese, anything else English), followed at
//!   every start. Only a pick is saved; older settings (which always named
//!   one) keep theirs, and a `null` or unknown value is no pick.
//! * [`assistants`]: the assistants and each chat's choice (localStorage
//!   `air-agent-assistants`); `for_chat` layers a turn's settings: the
//!   settings, the chat's assistant (its prompt, model, temperature and
//!   provider profile), the provider profile picked for the chat, then the
//!   model picked for it (picking a profile drops the chat's model pick).
//! * [`mcp`]: the MCP servers the user added (`air-agent-mcp-servers`): a
//!   stable id (the name, for servers saved before ids), name, URL, headers,
//!   enabled, whether the user trusts its read-only hints, the tools as
//!   listed when added (a tool no longer offered is kept, marked `gone`;
//!   one switched off is kept, `disabled`, with its policy, and never
//!   offered) and the ones the user left out; `resync` merges a new listing
//!   (a changed tool keeps the face the user `accepted`, a new one is
//!   `pending`); `accept` takes a tool as it is now; `SavedTool::def` is its
//!   registry definition with its place. `ChatServers`: which servers each
//!   chat uses (every enabled one unless switched off in it).
//! * [`http_tools`]: the HTTP tools the user saved (`air-agent-http-tools`),
//!   each with its switch (`SavedHttpTool`); secret header values are kept
//!   as the API key is, and an export carries them only with secrets
//!   (`without_secrets`). They are kept as text until first needed
//!   (`Saved::Text`, read into `Saved::Read` by `read`, in a part: start-up
//!   parses none of it; unreadable text is kept aside, `keep_aside`, before
//!   anything is written over it). This crate depends on `air-http-tools`
//!   for the stored form only.
//! * [`sync`]: `SyncEvent`, what one tab tells the others.
//!
//! The IndexedDB schema is versioned by [`DB_VERSION`] (6); its history is
//! written beside it.
//!
//! Architecture invariant: ids and times are passed in; nothing here reads
//! a clock or makes ids, so every behaviour is deterministic on the host.

pub mod assistants;
pub mod batch;
pub mod branches;
#[cfg(any(test, feature = "test-support"))]
pub mod conformance;
pub mod doc;
pub mod export;
pub mod files;
pub mod http_tools;
pub mod import;
pub mod journal;
pub mod keys;
pub mod kv;
pub mod language;
pub mod log;
pub mod mcp;
pub mod memory;
pub mod migrate;
pub mod providers;
pub mod records;
pub mod search;
pub mod segments;
pub mod settings;
pub mod sync;
pub mod sync_meta;

pub use kv::KeyValue;
pub use memory::MemoryStore;
pub use records::{Attachment, FileRecord, MessageRecord, SessionRecord, TITLE_CHARS};
pub use settings::Settings;
pub use sync_meta::SyncMeta;

/// Name and version of the database. Bump the version together with a
/// migration step in the browser store.
pub const DB_NAME: &str = "air-agent-db";
///
/// * 1: `sessions` and `messages` (index `by_session`).
/// * 2: adds `meta` (out-of-line keys) holding the record format in use
///   under [`FORMAT_KEY`], and the `by_updated` index of `sessions`; the
///   records are rewritten in the current format (errors as structured
///   values instead of text).
/// * 3: adds the `by_activity` index of `sessions`, on `[updatedAt, id]`,
///   which pages of the session list are read through, and the search
///   index: `terms` (key `[t, d]`: a term and a document, index
///   `by_term_at` on `[t, at]`) with its totals in `meta` under
///   [`INDEX_KEY`].
/// * 4: adds `files` (key `id`, index `by_session` on `sessionId`): the
///   bytes of attached files, as Blobs.
/// * 5: adds `journal` (key `seq`, index `by_record` on `[kind, id]`): the
///   change feed ([`journal`]), its last sequence number in `meta` under
///   [`JOURNAL_SEQ_KEY`]. Records written before it have no entry.
/// * 6: the search index in segments: `segs` and `searchDocs` (index
///   `by_id`) replace `terms` ([`segments`]); the index is rebuilt.
pub const DB_VERSION: u32 = 6;
/// The change feed's entries ([`journal::Entry`]).
pub const JOURNAL: &str = "journal";
/// Index of `journal` on `[kind, id]`: a record's entry.
pub const BY_RECORD: &str = "by_record";
/// Key in `meta` of the last sequence number the journal gave out.
pub const JOURNAL_SEQ_KEY: &str = "journalSeq";
/// Attached files' bytes ([`FileRecord`]s).
pub const FILES: &str = "files";
pub const SESSIONS: &str = "sessions";
pub const MESSAGES: &str = "messages";
pub const META: &str = "meta";
/// Index of `messages` on `[sessionId, seq]`.
pub const BY_SESSION: &str = "by_session";
/// Index of `sessions` on `updatedAt` (last activity).
pub const BY_UPDATED: &str = "by_updated";
/// Index of `sessions` on `[updatedAt, id]`: the list's order, exactly.
pub const BY_ACTIVITY: &str = "by_activity";
/// The search index's segments ([`segments`]), key `[k, i]`: a term or
/// bucket, and a segment id.
pub const SEGS: &str = "segs";
/// The search index's document blocks ([`segments::DocBlock`]), key `n`.
pub const SEARCH_DOCS: &str = "searchDocs";
/// Multi-entry index of `searchDocs` on `ids`: a document's block.
pub const BY_ID: &str = "by_id";
/// Key in `meta` of the numbers of documents no longer indexed
/// ([`segments::Tombstones`], as bytes).
pub const DEAD_KEY: &str = "searchDead";
/// Prefix of the keys in `meta` of the keys whose segments may need
/// merging, one entry each.
pub const WORK_KEY: &str = "searchWork";
/// Prefix of the keys in `meta` of the sessions whose title is yet to be
/// indexed ([`Store::index_pending`]), one entry each.
pub const TITLE_KEY: &str = "searchTitle";
/// Key in `meta` of the search index's totals ([`search::IndexStats`], as JSON).
pub const INDEX_KEY: &str = "searchIndex";
/// Key in `meta` of the record format the stored records are in.
pub const FORMAT_KEY: &str = "recordFormat";
/// The record format this version writes ([`migrate`] brings older
/// records up to it).
///
/// * 1: errors as text.
/// * 2: errors as structured values.
/// * 3: messages name the message they follow (`parent`).
pub const RECORD_FORMAT: u32 = 3;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StoreError {
    #[error("storage is not available: {0}")]
    Unavailable(String),
    #[error("storage is full: {0}")]
    QuotaExceeded(String),
    #[error("a stored record could not be read: {0}")]
    Corrupt(String),
    #[error("storage error: {0}")]
    Other(String),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// A position in the session list: the list is ordered by last activity,
/// newest first, and among sessions of the same moment by id, larger
/// first ([`activity_order`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionCursor {
    pub updated_at: f64,
    pub id: String,
}

impl SessionCursor {
    pub fn of(session: &SessionRecord) -> Self {
        Self { updated_at: session.updated_at, id: session.id.clone() }
    }

    /// The session comes after this position in the list.
    pub fn is_before(&self, session: &SessionRecord) -> bool {
        activity_order(&self.updated_at, &self.id, &session.updated_at, &session.id) == std::cmp::Ordering::Less
    }
}

/// The session list's order: newest activity first, then larger id first.
pub fn activity_order(a_updated: &f64, a_id: &str, b_updated: &f64, b_id: &str) -> std::cmp::Ordering {
    b_updated.total_cmp(a_updated).then_with(|| b_id.cmp(a_id))
}

/// Sorts sessions into the list's order.
pub fn sort_by_activity(list: &mut [SessionRecord]) {
    list.sort_by(|a, b| activity_order(&a.updated_at, &a.id, &b.updated_at, &b.id));
}

/// Where sessions and messages live.
///
/// Invariants every implementation keeps (checked by [`conformance`]):
/// sessions list newest `updated_at` first (ties: larger id first), and a
/// page of them reads only that page; messages of a session come in
/// `seq` order (ties by id); writing a message never touches another
/// message; deleting a session deletes its messages; every record a write
/// puts or removes gets one journal entry with a sequence number above all
/// before it, in place of its earlier one.
#[allow(async_fn_in_trait)]
pub trait Store {
    async fn list_sessions(&self) -> Result<Vec<SessionRecord>>;
    /// The `limit` sessions that follow `after` in the list (from its
    /// start when `None`), in the list's order.
    async fn sessions_page(&self, after: Option<&SessionCursor>, limit: usize) -> Result<Vec<SessionRecord>>;
    async fn get_session(&self, id: &str) -> Result<Option<SessionRecord>>;
    async fn put_session(&self, session: &SessionRecord) -> Result<()>;
    /// Marks a session as active at `at`, changing nothing else of it
    /// (read and written at once, so a rename meanwhile is kept); returns
    /// it as stored (`None`: there is no such session).
    async fn touch_session(&self, id: &str, at: f64) -> Result<Option<SessionRecord>>;
    /// Deletes the session, all its messages and their files.
    async fn delete_session(&self, id: &str) -> Result<()>;
    async fn messages(&self, session_id: &str) -> Result<Vec<MessageRecord>>;
    /// The last `limit` messages of a session with `seq` below `before`
    /// (all, when `None`), in order: one page of a long session.
    async fn messages_page(&self, session_id: &str, before: Option<f64>, limit: usize) -> Result<Vec<MessageRecord>>;
    /// The first `limit` messages of a session with `seq` above `after`,
    /// in order: the page after those shown (reading on from a search hit).
    async fn messages_after(&self, session_id: &str, after: f64, limit: usize) -> Result<Vec<MessageRecord>>;
    async fn get_message(&self, id: &str) -> Result<Option<MessageRecord>>;
    /// Inserts or replaces one message (by id), and its terms in the
    /// search index (a session's title is, with `put_session` or, in a store
    /// that defers it, by `index_pending`).
    async fn put_message(&self, message: &MessageRecord) -> Result<()>;
    /// [`Store::put_message`] for a message whose text is `parts`, one after
    /// another (its `content` is not read): a long answer kept in pieces
    /// while it streams is saved without first being copied into one
    /// string. A store that cannot do better joins them.
    async fn put_message_parts(&self, message: &MessageRecord, parts: &[&str]) -> Result<()> {
        self.put_message(&message.with_text(parts)).await
    }
    /// Deletes one message, and the files it names that no other message
    /// of its session names.
    async fn delete_message(&self, id: &str) -> Result<()>;
    /// Inserts or replaces an attached file's bytes (by id).
    async fn put_file(&self, file: &FileRecord) -> Result<()>;
    async fn get_file(&self, id: &str) -> Result<Option<FileRecord>>;
    /// [`Store::get_file`] with at most the first `max` bytes (a store
    /// that keeps a file as a Blob reads no more than that).
    async fn get_file_head(&self, id: &str, max: usize) -> Result<Option<FileRecord>> {
        Ok(self.get_file(id).await?.map(|mut f| {
            f.bytes.truncate(max);
            f
        }))
    }
    /// A small document kept beside the conversations, as JSON text, by
    /// key (the MCP tool catalog, a conversation's loaded tools).
    async fn get_doc(&self, key: &str) -> Result<Option<String>>;
    async fn put_doc(&self, key: &str, json: &str) -> Result<()>;
    async fn delete_doc(&self, key: &str) -> Result<()>;
    /// The keys of the documents whose key begins with `prefix`, in key
    /// order (every conversation's loaded tools: `mcp-loaded/`).
    async fn doc_keys(&self, prefix: &str) -> Result<Vec<String>>;
    /// The search index's totals (`None`: there is no index yet, or it
    /// cannot be read: it must be rebuilt).
    async fn index_stats(&self) -> Result<Option<search::IndexStats>>;
    /// The search index's entries for `term`, most recent first (ties:
    /// the later indexed first), at most `max`; those of documents no
    /// longer indexed are left out.
    async fn postings(&self, term: &str, max: usize) -> Result<Vec<segments::Entry>>;
    /// The id and session of indexed documents, by number (`None`: no
    /// longer indexed).
    async fn index_docs(&self, docs: &[segments::DocNo]) -> Result<Vec<Option<(String, String)>>>;
    /// The documents numbered `docs` as [`Store::index_docs`] finds them,
    /// with the sessions and messages they name: a search's hits, which a
    /// store may read together.
    async fn index_hits(&self, docs: &[segments::DocNo]) -> Result<(Vec<Option<(String, String)>>, batch::Batch)> {
        let refs = self.index_docs(docs).await?;
        let read = self.get_batch(&search::hit_ids(&refs)).await?;
        Ok((refs, read))
    }
    /// Indexes what a write left for the index to take in later (the
    /// IndexedDB store indexes titles so, sparing the first page load the
    /// index's code); [`search::run`] calls it as it reads, and reads
    /// again when it returns true (something was indexed).
    async fn index_pending(&self) -> Result<bool> {
        Ok(false)
    }
    /// Builds the search index again from every stored message and title.
    async fn rebuild_index(&self) -> Result<()>;
    /// One step of the search index's background work (merging its
    /// segments), about `budget` entries; false when none is left.
    async fn compact_index(&self, _budget: usize) -> Result<bool> {
        Ok(false)
    }
    /// The journal's entries after `after`, oldest first, at most `limit`:
    /// every record a write put or removed since, once, by its latest
    /// change ([`journal`]).
    async fn journal_since(&self, after: journal::Seq, limit: usize) -> Result<Vec<journal::Entry>>;
    /// Writes every record of `batch` as `put_session`, `put_file` and
    /// `put_message` would (in that order; an id twice: the later), at
    /// once where the store can.
    async fn put_batch(&self, batch: &batch::Batch) -> Result<()> {
        batch::put_each(self, batch).await
    }
    /// Reads the records named, at once where the store can; those that
    /// do not exist are left out.
    async fn get_batch(&self, ids: &batch::Ids) -> Result<batch::Batch> {
        batch::get_each(self, ids).await
    }
}

#[cfg(test)]
mod search_tests {
    use super::*;
    use air_chat::Role;

    #[test]
    fn search_matches_titles_and_message_text_case_insensitively() {
        pollster::block_on(async {
            let store = MemoryStore::new();
            let mut a = SessionRecord::new("a", 1.0);
            a.rename("Trip to Kyoto", 1.0);
            let b = SessionRecord::new("b", 2.0);
            let c = SessionRecord::new("c", 3.0);
            for s in [&a, &b, &c] {
                store.put_session(s).await.ok();
            }
            store.put_message(&MessageRecord::new("m1", "b", 1.0, Role::Assistant, "The KYOTO temples are old")).await.ok();
            store.put_message(&MessageRecord::new("m2", "c", 1.0, Role::User, "unrelated")).await.ok();
            let found = |q: &'static str| {
                let store = &store;
                async move { search::run(store, q, 10).await.ok().map(|r| r.hits.into_iter().map(|h| h.session_id).collect::<Vec<_>>()) }
            };
            // Both match once; the title is shorter, so it ranks first.
            assert_eq!(found("kyoto").await, Some(vec!["a".to_owned(), "b".to_owned()]));
            assert_eq!(found("nothing like this").await, Some(vec![]));
        });
    }
}

//! Writing an export into the store, as data from outside: it never
//! replaces what is there, and nothing in it runs.
//!
//! - A conversation whose ids are all new is written as it was exported
//!   (a round trip is lossless). One already here exactly as in the file
//!   is left alone (importing a file twice changes nothing). Any other
//!   clash of ids gets the conversation new ids (a copy), so an import can
//!   never overwrite a message, a session or a file.
//! - A tool call the file left unfinished (waiting for approval, running,
//!   or with no result at all) becomes [`ToolStatus::Interrupted`], with a
//!   result saying it did not run: opening the conversation resumes
//!   nothing, and every imported call is marked so that running it again
//!   asks the user first. A call counts as answered only by a result on
//!   its own branch (one on another branch is not shown with it).
//! - The file's references stay inside it: an attachment naming a file the
//!   export does not carry names nothing (`missing:…`), never a file of
//!   another conversation; a parent link to a message not in the file is
//!   dropped; an id the file uses twice in a conversation is given to the
//!   first only, the others get new ones (nothing in the file overwrites
//!   anything else in it).
//! - A message with no parent link (an export made before links existed)
//!   gets the one its branch path implies, as stored records do when they
//!   are migrated ([`crate::branches::link`]).

use std::collections::HashMap;

use air_chat::Role;

use crate::batch::{Batch, Ids};
use crate::export::{Export, ExportedSession};
use crate::records::{ToolRun, ToolStatus};
use crate::{FileRecord, MessageRecord, Store, StoreError};

/// What the model and the card are told of a call that came unfinished.
pub const INTERRUPTED: &str = "Interrupted: this call came unfinished in an imported conversation and did not run.";

/// Writes `export` into `store`; `new_id` makes the ids of conversations
/// that must be copied. Returns (sessions, messages) written.
pub async fn import<S: Store>(store: &S, export: &Export, new_id: &mut dyn FnMut() -> String) -> Result<(usize, usize), StoreError> {
    import_with(store, export, new_id, &mut |_, _| {}).await
}

/// Messages written per transaction at most (a conversation is never
/// split): thousands of conversations are a few hundred writes, and each
/// write's documents are indexed as one batch.
const GROUP_MESSAGES: usize = 500;

/// [`import`], telling `progress` (conversations done, of how many) after
/// each conversation.
pub async fn import_with<S: Store>(store: &S, export: &Export, new_id: &mut dyn FnMut() -> String, progress: &mut dyn FnMut(usize, usize)) -> Result<(usize, usize), StoreError> {
    let (mut sessions, mut messages) = (0, 0);
    let total = export.sessions.len();
    let (mut next, mut done) = (0, 0);
    while next < total {
        // A group of conversations, their ids looked up in one read.
        let mut group = Vec::new();
        let mut size = 0;
        while let Some(exported) = export.sessions.get(next).filter(|_| group.is_empty() || size < GROUP_MESSAGES) {
            let s = settle(contained(exported.clone(), new_id));
            size += s.messages.len() + 1;
            group.push(s);
            next += 1;
        }
        let ids = Ids {
            sessions: group.iter().map(|s| s.session.id.clone()).collect(),
            files: group.iter().flat_map(|s| s.files.iter().map(|f| f.id.clone())).collect(),
            messages: group.iter().flat_map(|s| s.messages.iter().map(|m| m.id.clone())).collect(),
        };
        let found = store.get_batch(&ids).await?;
        let stored: std::collections::HashSet<&str> =
            (found.sessions.iter().map(|s| s.id.as_str())).chain(found.files.iter().map(|f| f.id.as_str())).chain(found.messages.iter().map(|m| m.id.as_str())).collect();
        // Ids the group's earlier conversations take (a file may hold one
        // twice: the later gets new ids, or is left out if the same).
        let mut taken: HashMap<String, usize> = HashMap::new();
        let mut batch = Batch::default();
        let mut kept: Vec<ExportedSession> = Vec::new();
        for s in group {
            progress(done, total);
            done += 1;
            let own = || std::iter::once(s.session.id.as_str()).chain(s.files.iter().map(|f| f.id.as_str())).chain(s.messages.iter().map(|m| m.id.as_str()));
            let earlier = own().find_map(|id| taken.get(id).copied());
            let s = match earlier {
                Some(i) if kept.get(i).is_some_and(|k| same(k, &s)) => continue,
                Some(_) => with_new_ids(s, new_id),
                None if own().any(|id| stored.contains(id)) => match clash(store, &s).await? {
                    Clash::None => s,
                    Clash::Same => continue,
                    Clash::Other => with_new_ids(s, new_id),
                },
                None => s,
            };
            for id in std::iter::once(&s.session.id).chain(s.files.iter().map(|f| &f.id)).chain(s.messages.iter().map(|m| &m.id)) {
                taken.insert(id.clone(), kept.len());
            }
            // Its files before its messages (one write), so a message is
            // never there without its files.
            batch.sessions.push(s.session.clone());
            batch.files.extend(s.files.iter().map(|f| FileRecord { id: f.id.clone(), session_id: s.session.id.clone(), mime: f.mime.clone(), bytes: f.data.clone() }));
            batch.messages.extend(s.messages.iter().cloned());
            messages += s.messages.len();
            sessions += 1;
            kept.push(s);
        }
        if !batch.is_empty() {
            store.put_batch(&batch).await?;
        }
    }
    Ok((sessions, messages))
}

/// Two conversations of one file are the same (a file holding one twice).
fn same(a: &ExportedSession, b: &ExportedSession) -> bool {
    a.session == b.session && a.messages.len() == b.messages.len() && a.messages.iter().zip(&b.messages).all(|(x, y)| x == y)
}

enum Clash {
    /// None of its ids is in the store.
    None,
    /// It is in the store exactly as in the file.
    Same,
    /// Some id is taken by something else.
    Other,
}

async fn clash<S: Store>(store: &S, s: &ExportedSession) -> Result<Clash, StoreError> {
    let ids = Ids { sessions: vec![s.session.id.clone()], files: s.files.iter().map(|f| f.id.clone()).collect(), messages: s.messages.iter().map(|m| m.id.clone()).collect() };
    let found = store.get_batch(&ids).await?;
    let stored = found.sessions.into_iter().next();
    let taken = stored.is_some() || !found.files.is_empty() || !found.messages.is_empty();
    if !taken {
        return Ok(Clash::None);
    }
    if stored.as_ref() == Some(&s.session) {
        let same = |a: &MessageRecord, b: &MessageRecord| MessageRecord { rev: 0, ..a.clone() } == MessageRecord { rev: 0, ..b.clone() };
        let here = store.messages(&s.session.id).await?;
        if here.len() == s.messages.len() && here.iter().zip(&s.messages).all(|(a, b)| same(a, b)) {
            return Ok(Clash::Same);
        }
    }
    Ok(Clash::Other)
}

/// Every tool call of the conversation finished and marked imported.
fn settle(mut s: ExportedSession) -> ExportedSession {
    for m in &mut s.messages {
        if let Some(run) = m.tool.as_mut() {
            run.imported = true;
            if !run.status.is_final() {
                run.status = ToolStatus::Interrupted;
                run.output = vec![air_tools::Content::Text { text: INTERRUPTED.into() }];
                m.content = INTERRUPTED.into();
            }
        }
    }
    // Calls with no result at all get one, just after their answer, each
    // following the one before; what followed the answer on its branch
    // follows the last of them (one line, no alternatives). Its card names
    // the server another call of the same tool in the conversation named.
    let servers: HashMap<String, String> = s.messages.iter().filter_map(|m| m.tool.as_ref()).filter_map(|t| Some((t.name.clone(), t.server.clone()?))).collect();
    let mut added = Vec::new();
    let mut moved = Vec::new();
    for (i, m) in s.messages.iter().enumerate().filter(|(_, m)| m.role == Role::Assistant) {
        let answered = |c: &air_chat::ToolCall| s.messages.iter().any(|r| r.tool_call_id.as_deref() == Some(c.id.as_str()) && r.branch == m.branch);
        let open: Vec<_> = m.tool_calls.iter().filter(|c| !answered(c)).collect();
        let next = s.messages.get(i + 1).map_or(m.seq + 1.0, |n| n.seq);
        let mut last = m.id.clone();
        for (k, call) in open.iter().enumerate() {
            let seq = m.seq + (next - m.seq) * (k as f64 + 1.0) / (open.len() as f64 + 1.0);
            let mut r = MessageRecord::new(format!("{}-interrupted-{k}", m.id), &m.session_id, seq, Role::Tool, INTERRUPTED);
            r.timestamp = m.timestamp;
            r.tool_call_id = Some(call.id.clone());
            r.name = Some(call.name.clone());
            r.branch = m.branch.clone();
            r.parent = Some(std::mem::replace(&mut last, r.id.clone()));
            r.tool = Some(ToolRun {
                output: vec![air_tools::Content::Text { text: INTERRUPTED.into() }],
                imported: true,
                ..ToolRun::new(call.name.clone(), servers.get(&call.name).cloned(), call.arguments.clone(), ToolStatus::Interrupted)
            });
            added.push(r);
        }
        if !open.is_empty() {
            moved.push((m.id.clone(), m.branch.clone(), last));
        }
    }
    for (answer, branch, last) in moved {
        for m in s.messages.iter_mut().filter(|m| m.parent.as_deref() == Some(answer.as_str()) && m.branch == branch) {
            m.parent = Some(last.clone());
        }
    }
    s.messages.extend(added);
    s.messages.sort_by(|a, b| a.seq.total_cmp(&b.seq));
    s
}

/// Prefix of an attachment's id that named a file the export does not
/// carry.
pub const MISSING: &str = "missing:";

/// The conversation with every reference inside it: ids used twice get
/// new ones after the first, attachments of files not in the export name
/// nothing, parent links to messages not in it are dropped; and with
/// parent links where the file had none.
fn contained(mut s: ExportedSession, new_id: &mut dyn FnMut() -> String) -> ExportedSession {
    let mut seen = std::collections::HashSet::new();
    for m in &mut s.messages {
        if !seen.insert(m.id.clone()) {
            m.id = new_id();
        }
    }
    for m in &mut s.messages {
        if m.parent.as_ref().is_some_and(|p| !seen.contains(p)) {
            m.parent = None;
        }
    }
    crate::branches::link(&mut s.messages);
    for f in &mut s.files {
        if !seen.insert(f.id.clone()) {
            f.id = new_id();
        }
    }
    let carried: std::collections::HashSet<String> = s.files.iter().map(|f| f.id.clone()).collect();
    for a in s.messages.iter_mut().flat_map(|m| m.attachments.iter_mut()) {
        if !carried.contains(&a.id) && !a.id.starts_with(MISSING) {
            a.id = format!("{MISSING}{}", a.id);
        }
    }
    s
}

/// The conversation with a new id for the session, each message and each
/// file, every reference between them (forks, branch paths, parent links,
/// attachments) following.
fn with_new_ids(mut s: ExportedSession, new_id: &mut dyn FnMut() -> String) -> ExportedSession {
    let mut ids: HashMap<String, String> = HashMap::new();
    for m in &s.messages {
        ids.insert(m.id.clone(), new_id());
    }
    for f in &s.files {
        ids.insert(f.id.clone(), new_id());
    }
    let map = |id: &str| ids.get(id).cloned().unwrap_or_else(|| id.to_owned());
    s.session.id = new_id();
    s.session.forks = std::mem::take(&mut s.session.forks).into_iter().map(|(k, v)| (map(&k), v)).collect();
    for m in &mut s.messages {
        m.id = map(&m.id);
        m.session_id = s.session.id.clone();
        for step in &mut m.branch {
            step.fork = map(&step.fork);
        }
        m.parent = m.parent.as_deref().map(map);
        for a in &mut m.attachments {
            a.id = map(&a.id);
        }
    }
    for f in &mut s.files {
        f.id = map(&f.id);
    }
    s
}

#[cfg(test)]
#[path = "import_tests.rs"]
mod tests;

//! A conversation as another app kept it (messages with parents), made a
//! session of this app: messages numbered parents first, linked, siblings
//! made branches, and the branch the app showed shown.

use std::collections::HashMap;

use air_chat::{Role, ToolCall};
use air_store::branches::{self, Forks};
use air_store::export::{ExportedFile, ExportedSession};
use air_store::records::ToolRun;
use air_store::{Attachment, MessageRecord, SessionRecord};

/// A file attached to a kept message, with its bytes when the export has
/// them.
pub type KeptFile = (Attachment, Option<Vec<u8>>);

/// A message kept, before it is numbered.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// Its id in the other app's file (unique in the conversation).
    pub node: String,
    /// The kept message it answers or follows; `None` for a first one.
    pub parent: Option<String>,
    pub role: Role,
    pub text: String,
    /// Milliseconds since the Unix epoch (0 when the file did not say).
    pub at: f64,
    pub model: Option<String>,
    pub reasoning: Option<String>,
    /// Files attached to it, with their bytes when the export has them
    /// (ids unique in the conversation, made the session's here).
    pub files: Vec<KeptFile>,
    /// The tool calls an answer made (never run here).
    pub tool_calls: Vec<ToolCall>,
    /// On a `tool` message: the call it answers, and the call with its
    /// result for the card.
    pub tool: Option<(String, ToolRun)>,
}

impl Kept {
    pub fn new(node: impl Into<String>, parent: Option<String>, role: Role, text: String, at: f64) -> Self {
        Self { node: node.into(), parent, role, text, at, model: None, reasoning: None, files: Vec::new(), tool_calls: Vec::new(), tool: None }
    }
}

/// One conversation of another app.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    /// The app's name, the first part of every id (`chatgpt`, `claude`…).
    pub source: &'static str,
    /// The conversation's id in the file.
    pub id: String,
    pub title: String,
    /// Milliseconds; 0 when the file did not say.
    pub created: f64,
    pub kept: Vec<Kept>,
    /// The kept message the shown branch ends at; else the newest branch
    /// at each fork (as `branches::derive` leaves it).
    pub shown_end: Option<String>,
}

/// The id of a session imported from `source`.
pub fn session_id(source: &str, id: &str) -> String {
    format!("{source}-{id}")
}

/// The session: messages numbered parents first (then by time), linked,
/// branches made, the branch ending at `shown_end` shown. A parent not
/// kept (or a cycle) makes a message a first one.
pub fn session(c: Conversation) -> ExportedSession {
    let Conversation { source, id, title, created, mut kept, shown_end } = c;
    kept.sort_by(|a, b| a.at.total_cmp(&b.at).then_with(|| a.node.cmp(&b.node)));
    let index: HashMap<String, usize> = kept.iter().enumerate().map(|(i, k)| (k.node.clone(), i)).collect();
    let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    for (i, k) in kept.iter().enumerate() {
        let parent = k.parent.as_ref().and_then(|p| index.get(p)).copied().filter(|p| *p != i);
        children.entry(parent).or_default().push(i);
    }
    // Parents before children, siblings by time; what a cycle hides from
    // the roots comes last, as first messages.
    let mut order = Vec::with_capacity(kept.len());
    let mut placed = vec![false; kept.len()];
    let mut stack: Vec<usize> = children.get(&None).cloned().unwrap_or_default().into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut placed[i], true) {
            continue;
        }
        order.push(i);
        stack.extend(children.get(&Some(i)).into_iter().flatten().rev());
    }
    let orphans: Vec<usize> = (0..kept.len()).filter(|i| !placed[*i]).collect();
    for &i in &orphans {
        kept[i].parent = None;
    }
    order.extend(orphans);
    let sid = session_id(source, &id);
    let mid = |node: &str| format!("{sid}-{node}");
    let mut messages: Vec<MessageRecord> = order
        .iter()
        .enumerate()
        .map(|(n, &i)| {
            let k = &kept[i];
            let mut m = MessageRecord::new(mid(&k.node), sid.clone(), (n + 1) as f64, k.role, k.text.clone());
            m.timestamp = if k.at > 0.0 { k.at } else { created };
            m.parent = k.parent.as_deref().filter(|p| index.contains_key(*p)).map(mid);
            m.model.clone_from(&k.model);
            m.reasoning.clone_from(&k.reasoning);
            m.attachments = k.files.iter().map(|(a, _)| Attachment { id: format!("{sid}-{}", a.id), ..a.clone() }).collect();
            m.tool_calls.clone_from(&k.tool_calls);
            if let Some((call, run)) = &k.tool {
                m.tool_call_id = Some(call.clone());
                m.name = Some(run.name.clone());
                m.tool = Some(run.clone());
            }
            m
        })
        .collect();
    let files = order.iter().flat_map(|&i| &kept[i].files).filter_map(|(a, bytes)| Some(ExportedFile { id: format!("{sid}-{}", a.id), mime: a.mime.clone(), data: bytes.clone()? })).collect();
    let mut forks = Forks::new();
    branches::derive(&mut messages, &mut forks);
    show(&messages, &mut forks, shown_end.filter(|e| index.contains_key(e)).map(|e| mid(&e)));
    let updated = messages.iter().map(|m| m.timestamp).fold(created, f64::max);
    let mut s = SessionRecord::new(sid, if created > 0.0 { created } else { updated });
    let first_user = title_text(&messages);
    let title = title.trim();
    if title.is_empty() {
        s.auto_title(&first_user, updated);
    } else {
        s.rename(title, updated);
    }
    s.updated_at = updated;
    s.forks = forks;
    ExportedSession { session: s, messages, files }
}

/// What an untitled conversation is titled from: the text of its first
/// user message that has some, without the lines saying what could not
/// be carried (`[An image: …]`); else the first user message as it is.
fn title_text(messages: &[MessageRecord]) -> String {
    let users = || messages.iter().filter(|m| m.role == Role::User);
    let text = |m: &MessageRecord| m.content.split("\n\n").filter(|p| !placeholder(p)).collect::<Vec<_>>().join("\n\n");
    users().map(text).find(|t| !t.trim().is_empty()).or_else(|| users().next().map(|m| m.content.clone())).unwrap_or_default()
}

/// A paragraph every format writes for what it could not carry: one line
/// in square brackets (`[A file: map.png (…)]`), no link.
fn placeholder(paragraph: &str) -> bool {
    let p = paragraph.trim();
    p.starts_with('[') && p.ends_with(']') && !p.contains('\n') && !p.contains("](")
}

/// Shows, at every fork on the way to `end`, the branch that leads there.
fn show(messages: &[MessageRecord], forks: &mut Forks, end: Option<String>) {
    let Some(end) = end else { return };
    let Some(last) = messages.iter().find(|m| m.id == end) else { return };
    for step in &last.branch {
        if let Some(f) = forks.get_mut(&step.fork) {
            f.shown = step.alt;
        }
    }
}

/// The kept message nearest `from` on its way to the root (`from` itself
/// when kept), never `not`; a cycle ends the walk with none.
pub fn nearest_kept<'a>(from: Option<&'a str>, not: Option<&'a str>, kept: &dyn Fn(&str) -> bool, parent: &dyn Fn(&'a str) -> Option<&'a str>) -> Option<String> {
    let mut at = from;
    let mut visited: std::collections::HashSet<&str> = not.into_iter().collect();
    while let Some(n) = at.filter(|n| visited.insert(n)) {
        if kept(n) {
            return Some(n.to_owned());
        }
        at = parent(n);
    }
    None
}

/// `text` without NUL characters (which IndexedDB keeps but nothing shows).
pub fn clean(text: &str) -> String {
    text.replace('\u{0}', "")
}

//! ChatGPT's export (`conversations.json`, or the split
//! `conversations-NNN.json`; a list, `{conversations: […]}`, or one
//! conversation).
//!
//! A conversation is a tree (`mapping`: nodes with a `parent`; slim
//! exports leave out `children`, so only parents are read). Nodes without
//! a message, system prompts, hidden context and messages of weight 0 are
//! left out and their children hang from the nearest message kept;
//! thinking (`thoughts`, `reasoning_recap`) becomes the reasoning of the
//! answer that follows. Text is read from each content type; what has no
//! text here (an image without its bytes, a browsing display) becomes a
//! line saying what it was. Siblings are branches; the branch ending at
//! `current_node` (else the newest leaf) is the one shown. Citation marks
//! (`【…】`, and the newer private-use ones) become Markdown links to
//! their pages ([`cite`]). An untitled conversation is titled from its
//! first question's text.

use std::collections::{HashMap, HashSet};

use air_chat::Role;
use air_store::export::{Export, ExportedSession};
use serde_json::Value;

use crate::Summary;
use crate::skipped::Skipped;
use crate::tree::{self, Conversation, Kept};

mod cite;

/// The conversations of `v`, if it is a ChatGPT export.
pub fn conversations(v: &Value) -> Option<Vec<&Value>> {
    let list: Vec<&Value> = match v {
        Value::Array(a) => a.iter().collect(),
        Value::Object(o) if o.contains_key("mapping") => vec![v],
        Value::Object(o) => o.get("conversations")?.as_array()?.iter().collect(),
        _ => return None,
    };
    list.first().is_some_and(|c| c.get("mapping").is_some()).then_some(list)
}

/// The export of every conversation in `files` (one, or the split files).
pub fn convert(files: &[Value], now_ms: f64) -> (Export, Summary) {
    crate::convert_each(files, now_ms, conversations, conversation)
}

fn seconds(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64).filter(|t| t.is_finite() && *t > 0.0).map(|t| t * 1000.0)
}

fn conversation(c: &Value, summary: &mut Summary) -> Result<ExportedSession, Skipped> {
    let title = c.get("title").and_then(Value::as_str).unwrap_or_default().trim().to_owned();
    let Some(id) = c.get("conversation_id").or(c.get("id")).and_then(Value::as_str) else { return Err(Skipped::NoId { title, field: "conversation_id" }) };
    let Some(mapping) = c.get("mapping").and_then(Value::as_object) else { return Err(Skipped::NoMessages { title, field: "mapping" }) };
    let created = seconds(c.get("create_time")).unwrap_or(0.0);
    let model = c.get("default_model_slug").and_then(Value::as_str);
    // Every node's parent, and what each kept node becomes.
    let parent: HashMap<&str, &str> = mapping.iter().filter_map(|(k, n)| Some((k.as_str(), n.get("parent")?.as_str()?))).collect();
    let mut kept: HashMap<&str, Kept> = HashMap::new();
    let mut thinking: HashMap<&str, String> = HashMap::new();
    for (k, node) in mapping {
        let Some(m) = node.get("message").filter(|m| m.is_object()) else { continue };
        match message(m, summary) {
            Read::Kept(role, text) => {
                let at = seconds(m.get("create_time")).unwrap_or(created);
                let model = m.pointer("/metadata/model_slug").and_then(Value::as_str).or(model).filter(|_| role == Role::Assistant).map(str::to_owned);
                kept.insert(k, Kept { model, ..Kept::new(k.clone(), None, role, text, at) });
            }
            Read::Thinking(text) => {
                thinking.insert(k, text);
            }
            Read::Hidden => summary.hidden += 1,
        }
    }
    // Each kept message hangs from its nearest kept ancestor; thinking on
    // the way is the reasoning of an answer.
    let keys: Vec<&str> = kept.keys().copied().collect();
    for k in keys {
        let mut up = parent.get(k).copied();
        let mut visited = HashSet::from([k]);
        let mut reasoning = Vec::new();
        while let Some(p) = up.filter(|p| visited.insert(*p)) {
            if kept.contains_key(p) {
                break;
            }
            reasoning.extend(thinking.get(p).cloned());
            up = parent.get(p).copied();
        }
        // (A cycle ends the walk at a message not kept: no parent then.)
        let up = up.filter(|p| *p != k && kept.contains_key(p)).map(str::to_owned);
        if let Some(entry) = kept.get_mut(k) {
            entry.parent = up;
            if entry.role == Role::Assistant && !reasoning.is_empty() {
                reasoning.reverse();
                entry.reasoning = Some(reasoning.join("\n\n"));
            }
        }
    }
    let shown_end = c.get("current_node").and_then(Value::as_str).and_then(|n| tree::nearest_kept(Some(n), None, &|x| kept.contains_key(x), &|x| parent.get(x).copied()));
    let kept = kept.into_values().collect();
    Ok(tree::session(Conversation { source: "chatgpt", id: id.to_owned(), title, created, kept, shown_end }))
}

/// What a node's message is here.
enum Read {
    Kept(Role, String),
    Thinking(String),
    Hidden,
}

fn message(m: &Value, summary: &mut Summary) -> Read {
    let role = match m.pointer("/author/role").and_then(Value::as_str) {
        Some("user") => Role::User,
        Some("assistant") | Some("tool") => Role::Assistant,
        _ => return Read::Hidden,
    };
    let hidden = m.get("weight").and_then(Value::as_f64) == Some(0.0) || m.pointer("/metadata/is_visually_hidden_from_conversation").and_then(Value::as_bool) == Some(true);
    let content = m.get("content").cloned().unwrap_or(Value::Null);
    let kind = content.get("content_type").and_then(Value::as_str).unwrap_or("text");
    if hidden || kind == "user_editable_context" {
        return Read::Hidden;
    }
    let text = match kind {
        "thoughts" => {
            return Read::Thinking(
                content.get("thoughts").and_then(Value::as_array).map(|t| t.iter().filter_map(|x| x.get("content").and_then(Value::as_str)).collect::<Vec<_>>().join("\n\n")).unwrap_or_default(),
            );
        }
        "reasoning_recap" => return Read::Thinking(content.get("content").and_then(Value::as_str).unwrap_or_default().to_owned()),
        "text" | "multimodal_text" => parts(&content, summary),
        "code" => {
            let lang = content.get("language").and_then(Value::as_str).filter(|l| *l != "unknown").unwrap_or_default();
            format!("```{lang}\n{}\n```", content.get("text").and_then(Value::as_str).unwrap_or_default())
        }
        "execution_output" => format!("Output:\n```\n{}\n```", content.get("text").and_then(Value::as_str).unwrap_or_default()),
        other => match content.get("text").or(content.get("result")).and_then(Value::as_str) {
            Some(t) => t.to_owned(),
            None => {
                summary.as_text += 1;
                format!("[{other}: not carried over from ChatGPT]")
            }
        },
    };
    let text = tree::clean(&cite::cited(&text, m.get("metadata")));
    let by = m.pointer("/author/name").and_then(Value::as_str).filter(|_| m.pointer("/author/role").and_then(Value::as_str) == Some("tool"));
    let text = match by {
        Some(name) if !text.trim().is_empty() => format!("**{name}**\n\n{text}"),
        _ => text,
    };
    if text.trim().is_empty() { Read::Hidden } else { Read::Kept(role, text) }
}

/// The text of `parts`: strings as they are, an image as a line saying so.
fn parts(content: &Value, summary: &mut Summary) -> String {
    let mut out = Vec::new();
    for p in content.get("parts").and_then(Value::as_array).into_iter().flatten() {
        match p {
            Value::String(s) if !s.is_empty() => out.push(s.clone()),
            Value::Object(o) if o.get("content_type").and_then(Value::as_str) == Some("image_asset_pointer") => {
                summary.as_text += 1;
                out.push("[An image: its file is not in the ChatGPT export]".to_owned());
            }
            Value::Object(o) => {
                if let Some(t) = o.get("text").and_then(Value::as_str) {
                    out.push(t.to_owned());
                }
            }
            _ => {}
        }
    }
    out.join("\n\n")
}

#[cfg(test)]
mod tests;

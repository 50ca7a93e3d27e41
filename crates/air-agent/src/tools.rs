//! Running the tool calls of an answer: check, approve, run in parallel,
//! store each result as a `tool` message.

use std::pin::pin;
use std::rc::Rc;

use air_chat::{Role, ToolCall};
use air_store::records::{ToolRun, ToolStatus, next_seq};
use air_store::{Attachment, FileRecord, MessageRecord, Store};
use air_tools::policy::Policy;
use air_tools::{CallContext, CallHost, Content, ElicitAnswer, Elicitation, Progress, Tool, ToolDef, ToolOutput, ToolSource, args, schema};
use futures_util::future::LocalBoxFuture;
use futures_util::future::{Either, join_all, select};
use serde_json::Value;

use air_store::sync::SyncEvent;

use crate::env::{Approval, Env, Event};
use crate::turn::Turn;

/// The most characters of one tool output given to the model; the card
/// keeps the whole output.
pub const MAX_TOOL_TEXT: usize = 16_000;

/// The most calls of one answer that run; the rest are answered "not run"
/// (a model, or a server's tool description, asking for hundreds at once
/// would otherwise open as many requests and cards).
pub const MAX_CALLS_PER_ROUND: usize = 16;

/// The most bytes of one call's output kept on its card (the text for the
/// model is cut far shorter); what goes past is replaced by a note.
pub const MAX_STORED_OUTPUT: usize = 4 * 1024 * 1024;

/// How long a stopped call may take to cancel its work elsewhere (an MCP
/// server is told) before the turn stops waiting for it.
const CANCEL_GRACE_MS: u64 = 2_000;

/// What to do with one call, decided before anything runs.
enum Plan {
    Run { args: Value },
    Answer { status: ToolStatus, text: String },
}

impl<E: Env> Turn<'_, E> {
    /// Runs calls concurrently, each into its `tool` record, and stores
    /// their results. `seen` holds the calls already run in this turn
    /// (name + canonical arguments): a repeat is not run again.
    /// Returns how many of the calls were answered here (not by another
    /// tab that picked up the same round).
    pub(crate) async fn run_calls(&self, calls: Vec<(ToolCall, MessageRecord)>, seen: &mut Vec<String>) -> usize {
        let (calls, mut records): (Vec<ToolCall>, Vec<MessageRecord>) = calls.into_iter().unzip();
        let mut plans = Vec::with_capacity(calls.len());
        for (i, call) in calls.iter().enumerate() {
            if i >= MAX_CALLS_PER_ROUND {
                let text = format!("Not run: at most {MAX_CALLS_PER_ROUND} tools are called at once. Call it again in your next step if it is still needed.");
                plans.push(Plan::Answer { status: ToolStatus::Error, text });
                continue;
            }
            let server = records.get(i).and_then(|r| r.tool.as_ref()).and_then(|t| t.server.clone());
            let plan = self.plan(call, server.as_deref());
            if let Plan::Run { args } = &plan {
                let key = format!("{}\u{0}{}", call.name, args::canonical_json(args));
                if seen.contains(&key) {
                    plans.push(Plan::Answer {
                        status: ToolStatus::Error,
                        text: format!(
                            "Repeated call: `{}` was already called with these same arguments in this answer, and its result is above. Do not call it again with the same arguments: use that result, or change the arguments.",
                            call.name
                        ),
                    });
                    continue;
                }
                seen.push(key);
            }
            plans.push(plan);
        }
        let runs = records.iter_mut().zip(plans).map(|(record, plan)| self.run_one(record, plan));
        join_all(runs).await.into_iter().filter(|here| *here).count()
    }

    /// The calls are answered without running (round limit): each gets a
    /// result that says why.
    pub(crate) async fn answer_without_running(&self, answer: &MessageRecord, calls: &[ToolCall], why: &str) {
        for mut record in self.tool_records(answer, calls).await {
            self.finish(&mut record, ToolStatus::Denied, ToolOutput::error(why)).await;
        }
    }

    /// One `tool` record per call, in order after the answer, each
    /// following the one before (the first follows the answer, or the
    /// results already there): one line, not alternatives.
    pub(crate) async fn tool_records(&self, answer: &MessageRecord, calls: &[ToolCall]) -> Vec<MessageRecord> {
        let env = self.env;
        let mut seq = answer.seq;
        let mut records = Vec::with_capacity(calls.len());
        for call in calls {
            seq = next_seq(Some(seq), env.now_ms());
            let mut r = MessageRecord::new(env.new_id(), answer.session_id.clone(), seq, Role::Tool, "");
            self.follow(&mut r).await;
            // On the answer's branch, whatever is shown.
            r.branch = answer.branch.clone();
            records.push(self.tool_record(r, call));
        }
        records
    }

    /// `r` made the record of `call`: its call id, tool and server, running.
    fn tool_record(&self, mut r: MessageRecord, call: &ToolCall) -> MessageRecord {
        r.tool_call_id = Some(call.id.clone());
        let source = self.tools.get(&call.name).map(|t| t.def().source.clone());
        let server = match &source {
            Some(ToolSource::Mcp { server }) => Some(server.clone()),
            Some(ToolSource::BuiltIn | ToolSource::Http) | None => None,
        };
        let http = source == Some(ToolSource::Http);
        r.tool = Some(ToolRun { http, ..ToolRun::new(call.name.clone(), server, call.arguments.clone(), ToolStatus::Running) });
        r
    }

    /// The tool a call of `name` runs. A call that names the MCP server it
    /// was made on (an imported one: its tool's own name, and the server's)
    /// runs only that server's tool of that name, never another tool that
    /// shares the name: what its card shows is what runs.
    fn tool_of(&self, name: &str, server: Option<&str>) -> Option<&Rc<dyn Tool>> {
        let Some(server) = server else { return self.tools.get(name) };
        let on_server = |d: &ToolDef| matches!(&d.source, ToolSource::Mcp { server: s } if s == server);
        match self.tools.get(name) {
            Some(t) if on_server(t.def()) => Some(t),
            _ => self.tools.definitions().find(|d| on_server(d) && d.mcp.as_ref().is_some_and(|m| m.tool == name)).and_then(|d| self.tools.get(&d.name)),
        }
    }

    /// Checks a call (made on `server`, where its record says): the tool
    /// exists, its arguments parse and match the schema, and the policy
    /// does not forbid it.
    fn plan(&self, call: &ToolCall, server: Option<&str>) -> Plan {
        let error = |text: String| Plan::Answer { status: ToolStatus::Error, text };
        if call.name.is_empty() {
            // A call written as text whose JSON could not be read.
            return error(format!(
                "Your tool call could not be read: {}\nWrite each call as <tool_call>{{\"name\": \"TOOL_NAME\", \"arguments\": {{...}}}}</tool_call> with valid JSON.",
                call.arguments
            ));
        }
        let offered = self.offer.as_ref().map(|o| o.offered(self.tools));
        let Some(tool) = self.tool_of(&call.name, server) else {
            if let Some(server) = server {
                return error(format!("Not run: `{}` was called on the MCP server “{server}”, which offers no such tool here.", call.name));
            }
            let names: Vec<&str> = match &offered {
                Some(defs) => defs.iter().map(|d| d.name.as_str()).collect(),
                None => self.tools.definitions().map(|d| d.name.as_str()).collect(),
            };
            return error(if names.is_empty() {
                format!("Unknown tool `{}`: no tools are available.", call.name)
            } else {
                format!("Unknown tool `{}`. The available tools are: {}.", call.name, names.join(", "))
            });
        };
        let def = tool.def();
        // Not offered (not loaded): the offer says whether it may run.
        if let (Some(offer), Some(defs)) = (&self.offer, &offered)
            && !defs.iter().any(|d| d.name == def.name)
            && let Err(text) = offer.admit(&def.name)
        {
            return error(text);
        }
        let value = match args::parse_arguments(&call.arguments) {
            Ok(v) => v,
            Err(e) => return error(format!("Invalid arguments for `{}`: {e}. Call it again with a JSON object.", call.name)),
        };
        if let Err(violations) = schema::validate(&def.input_schema, &value) {
            return error(format!("Invalid arguments for `{}`: {}", call.name, schema::describe(&violations)));
        }
        if self.policies.borrow().decide(def) == Policy::Deny {
            return Plan::Answer { status: ToolStatus::Denied, text: format!("The user does not allow the tool `{}`.", call.name) };
        }
        Plan::Run { args: value }
    }

    /// Answers one call; `false` if another tab had answered it already.
    async fn run_one(&self, record: &mut MessageRecord, plan: Plan) -> bool {
        let env = self.env;
        let args = match plan {
            Plan::Answer { status, text } => {
                self.finish(record, status, ToolOutput::error(text)).await;
                return true;
            }
            Plan::Run { args } => args,
        };
        let name = record.tool.as_ref().map(|t| t.name.clone()).unwrap_or_default();
        let server = record.tool.as_ref().and_then(|t| t.server.clone());
        let Some(tool) = self.tool_of(&name, server.as_deref()).cloned() else { return true };
        // A call an imported file made is the user's only once they say so.
        let imported = record.tool.as_ref().is_some_and(|t| t.imported);
        let policy = if imported { Policy::Ask } else { self.policies.borrow().decide(tool.def()) };
        if policy == Policy::Ask {
            set_status(record, ToolStatus::AwaitingApproval);
            self.save_tool(record).await;
            let approval = {
                let asked = record.clone();
                let ask = pin!(env.approve(&asked, tool.def()));
                match select(ask, self.abort.aborted()).await {
                    Either::Left((a, _)) => Some(a),
                    Either::Right(_) => None,
                }
            };
            let Some(approval) = approval else {
                self.finish(record, ToolStatus::Stopped, ToolOutput::error("The user stopped the turn before answering.")).await;
                return true;
            };
            match approval {
                Approval::Deny => {
                    let text = format!("The user denied this call of `{name}`.");
                    self.finish(record, ToolStatus::Denied, ToolOutput::error(text)).await;
                    return true;
                }
                Approval::Always => {
                    // Later calls of this turn run without asking too.
                    self.policies.borrow_mut().set(tool.def(), Some(Policy::Allow));
                    env.always_allow(tool.def());
                }
                Approval::Once => {}
            }
        }
        // Picking up a closed tab's round: another tab may have answered
        // the same question meanwhile. A call runs once.
        if self.resuming.get() && self.finished_elsewhere(record).await {
            return false;
        }
        self.run_approved(record, &*tool, args).await;
        true
    }

    /// Runs a call that may run, into its record: its result, or Stopped.
    async fn run_approved(&self, record: &mut MessageRecord, tool: &dyn air_tools::Tool, args: Value) {
        let env = self.env;
        set_status(record, ToolStatus::Running);
        if let Some(t) = record.tool.as_mut() {
            t.started_at = Some(env.now_ms());
        }
        self.save_tool(record).await;
        let stopped = || ToolOutput::error("Stopped by the user before it finished.");
        let output = {
            let host = Reporter { env, record: record.clone(), tool: tool.def() };
            let call = pin!(tool.call(args, CallContext { abort: &self.abort, host: &host }));
            match select(call, self.abort.aborted()).await {
                Either::Left((output, _)) => output,
                Either::Right((_, call)) => {
                    // The call saw the same Stop: give it a moment to tell
                    // its server, then stop waiting.
                    let _ = select(call, pin!(env.sleep(CANCEL_GRACE_MS))).await;
                    return self.finish(record, ToolStatus::Stopped, stopped()).await;
                }
            }
        };
        // Stop means Stopped, whatever the call was doing when it came (a
        // server that restarted is being connected to again, and that ends
        // at once with an error of its own); a result that came is kept.
        if output.is_error && self.abort.is_aborted() {
            return self.finish(record, ToolStatus::Stopped, stopped()).await;
        }
        let status = if output.is_error { ToolStatus::Error } else { ToolStatus::Done };
        self.finish(record, status, output).await;
    }

    /// Saves a tool record, shows it, and tells other tabs: while it waits
    /// or runs, a heartbeat like a streaming answer's (so another tab shows
    /// it as live, not interrupted, and does not pick it up); then that it
    /// ended.
    async fn save_tool(&self, record: &mut MessageRecord) {
        self.save(record, "tool").await;
        let live = record.tool.as_ref().is_some_and(|t| !t.status.is_final());
        self.env.emit(Event::Broadcast(SyncEvent::Streaming { session_id: record.session_id.clone(), message_id: record.id.clone(), active: live }));
    }

    /// Whether the stored copy of `record` already has a result (another
    /// tab ran it); if so, `record` becomes that copy.
    async fn finished_elsewhere(&self, record: &mut MessageRecord) -> bool {
        let Ok(all) = self.env.store().messages(&record.session_id).await else { return false };
        match all.into_iter().find(|m| m.id == record.id) {
            Some(stored) if stored.tool.as_ref().is_some_and(|t| t.status.is_final()) => {
                *record = stored;
                true
            }
            _ => false,
        }
    }

    /// Stores the result: the whole output for the card, a text of at most
    /// [`MAX_TOOL_TEXT`] characters for the model, and the files it gave
    /// back as files of the conversation (each stored before the record
    /// that names it).
    async fn finish(&self, record: &mut MessageRecord, status: ToolStatus, mut output: ToolOutput) {
        for f in std::mem::take(&mut output.files) {
            self.keep_file(record, f).await;
        }
        let now = self.env.now_ms();
        let (text, full) = cut(&output.model_text(), MAX_TOOL_TEXT);
        record.content = text;
        if let Some(t) = record.tool.as_mut() {
            t.status = status;
            t.full_chars = full;
            t.duration_ms = t.started_at.map(|s| (now - s).max(0.0));
            t.output = bounded(output.content, MAX_STORED_OUTPUT);
            t.structured = output.structured.filter(|v| v.to_string().len() <= MAX_STORED_OUTPUT);
        }
        self.save_tool(record).await;
    }

    /// Stores a file a tool gave back and names it in `record`; one that
    /// cannot be stored is left out (the user is told the store failed).
    async fn keep_file(&self, record: &mut MessageRecord, f: air_tools::OutputFile) {
        let (id, size) = (self.env.new_id(), f.bytes.len() as u64);
        let file = FileRecord { id: id.clone(), session_id: record.session_id.clone(), mime: f.mime.clone(), bytes: f.bytes };
        match self.env.store().put_file(&file).await {
            Ok(()) => record.attachments.push(Attachment { id, name: f.name, mime: f.mime, size }),
            Err(error) => self.env.emit(Event::StoreFailed { what: "write", error }),
        }
    }
}

/// `content` holding at most about `budget` bytes: a text past it is cut,
/// and whatever comes after is left out, with a note saying how much.
fn bounded(content: Vec<Content>, budget: usize) -> Vec<Content> {
    let size = |c: &Content| serde_json::to_string(c).map_or(0, |s| s.len());
    let total: usize = content.iter().map(size).sum();
    if total <= budget {
        return content;
    }
    let mut out = Vec::new();
    let mut left = budget;
    for c in content {
        let n = size(&c);
        if n <= left {
            left -= n;
            out.push(c);
        } else if let (Content::Text { text }, true) = (&c, left > 0) {
            let mut end = left.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            out.push(Content::Text { text: text[..end].to_owned() });
            left = 0;
        } else {
            left = 0;
        }
    }
    out.push(Content::Text { text: format!("[The output was {total} bytes; only the first {budget} are kept.]") });
    out
}

/// Passes a running call's progress and questions on to the environment.
struct Reporter<'a, E> {
    env: &'a E,
    record: MessageRecord,
    tool: &'a ToolDef,
}

impl<E: Env> CallHost for Reporter<'_, E> {
    fn progress(&self, progress: Progress) {
        self.env.emit(Event::ToolProgress { session_id: self.record.session_id.clone(), message_id: self.record.id.clone(), progress });
    }

    fn elicit(&self, request: Elicitation) -> LocalBoxFuture<'_, ElicitAnswer> {
        Box::pin(self.env.elicit(&self.record, self.tool, request))
    }

    fn session(&self) -> Option<&str> {
        Some(&self.record.session_id)
    }
}

fn set_status(record: &mut MessageRecord, status: ToolStatus) {
    if let Some(t) = record.tool.as_mut() {
        t.status = status;
    }
}

/// At most `max` characters of `text`, with a note saying it was cut; the
/// full length when it was.
fn cut(text: &str, max: usize) -> (String, Option<usize>) {
    let total = text.chars().count();
    if total <= max {
        return (text.to_owned(), None);
    }
    let kept: String = text.chars().take(max).collect();
    (format!("{kept}\n\n[Output cut to the first {max} of {total} characters.]"), Some(total))
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_outputs_are_cut_with_a_note() {
        assert_eq!(super::cut("short", 10), ("short".to_owned(), None));
        let (text, full) = super::cut(&"é".repeat(30), 10);
        assert_eq!(full, Some(30));
        assert!(text.starts_with(&"é".repeat(10)) && text.ends_with("[Output cut to the first 10 of 30 characters.]"));
    }
}

#[cfg(test)]
mod bounded_tests {
    use super::*;

    #[test]
    fn a_huge_output_is_kept_only_in_part() {
        let small = vec![Content::Text { text: "ok".into() }];
        assert_eq!(bounded(small.clone(), 100), small);
        let big = vec![Content::Text { text: "é".repeat(100) }, Content::Image { mime: "image/png".into(), data: "A".repeat(500) }];
        let kept = bounded(big, 120);
        let bytes: usize = kept.iter().map(|c| serde_json::to_string(c).map_or(0, |s| s.len())).sum();
        assert!(bytes < 250, "{kept:?}");
        assert!(matches!(kept.last(), Some(Content::Text { text }) if text.contains("only the first 120")));
        assert!(!kept.iter().any(|c| matches!(c, Content::Image { .. })), "the image past the budget is left out");
    }
}

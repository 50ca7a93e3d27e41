//! From stored records to a chat request, and the checkpoint rhythm of a
//! streaming answer.

use air_chat::{CallReasoning, ChatMessage, ChatRequest, Role};

use air_store::{MessageRecord, Settings};
use serde_json::{Map, Value};

/// Values for the system prompt template, supplied by the caller (this
/// crate reads no clock and no browser state).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TemplateVars {
    /// e.g. `2026-11-21`
    pub date: String,
    /// e.g. `20:15`
    pub time: String,
    /// e.g. `en-US`
    pub locale: String,
}

/// Expands `{{date}}`, `{{time}}`, `{{model}}` and `{{locale}}`. Unknown
/// placeholders are left as they are.
pub fn expand_template(template: &str, vars: &TemplateVars, model: &str) -> String {
    template.replace("{{date}}", &vars.date).replace("{{time}}", &vars.time).replace("{{model}}", model).replace("{{locale}}", &vars.locale)
}

/// What the extra Transitive Thinking request asks for.
pub const THOUGHT_INSTRUCTION: &str = "Before anyone answers, think through the user's last message step by step: what is asked, what is known, what could go wrong, and how to answer well. Write only this reasoning chain, not the final answer.";

/// The request for the next answer: the system prompt (if any) followed by
/// every stored message the model should see, in order. If the last record
/// is a Transitive Thinking chain, it is given to the model in the system
/// prompt. The answers of the turn in progress that called tools carry
/// their reasoning back (see [`turn_reasoning`]).
pub fn build_request(settings: &Settings, history: &[MessageRecord], vars: &TemplateVars) -> ChatRequest {
    let mut messages = Vec::with_capacity(history.len() + 1);
    let mut system = expand_template(settings.system_prompt.trim(), vars, &settings.model);
    if let Some(thought) = history.last().filter(|m| m.is_thought())
        && !thought.content.trim().is_empty()
    {
        if !system.is_empty() {
            system.push_str("\n\n");
        }
        system.push_str("A reasoning chain prepared for the user's last message (use it, do not repeat it):\n");
        system.push_str(thought.content.trim());
    }
    if !system.is_empty() {
        messages.push(ChatMessage::text(Role::System, system));
    }
    messages.extend(paired(history));
    let mut req = ChatRequest::streaming(settings.model.trim(), messages);
    req.reasoning = turn_reasoning(history);
    req.temperature = settings.temperature;
    req.max_tokens = settings.max_tokens;
    // The local and in-browser presets' small models: limits that keep
    // them from repeating themselves forever (what the user set still wins).
    if settings.provider == air_store::settings::LOCAL_PRESET || settings.provider == air_store::settings::BROWSER_PRESET {
        req.max_tokens = req.max_tokens.or(Some(air_store::settings::LOCAL_MAX_TOKENS));
        req.repeat_penalty = Some(air_store::settings::LOCAL_REPEAT_PENALTY);
    }
    req
}

/// The reasoning of each answer of the turn in progress (the records after
/// the last user message) that called tools, in order, to be sent back
/// with it: DeepSeek's thinking mode requires it within the turn. Answers
/// of earlier turns send none (nothing requires it, and it costs tokens).
/// An answer without reasoning still has its entry, with an empty text.
fn turn_reasoning(history: &[MessageRecord]) -> Vec<CallReasoning> {
    let start = history.iter().rposition(|m| m.role == Role::User).map_or(0, |i| i + 1);
    history[start..]
        .iter()
        // As `paired` sends them: every answer that called tools (a
        // Transitive Thinking chain is not sent as a message).
        .filter(|m| m.role == Role::Assistant && m.kind.is_none())
        .filter_map(|m| {
            let first_call = m.tool_calls.first()?.id.clone();
            Some(CallReasoning { first_call, text: m.reasoning.clone().unwrap_or_default() })
        })
        .collect()
}

/// A tool's entry for the request's `tools` array
/// ([`air_tools::ToolDef::to_openai`]), its parameters always an object
/// schema with a `type`: an MCP server may describe its input as `{}` or
/// with `properties` alone, and providers refuse `parameters` without
/// `type: "object"`. A schema that has a type is sent as it is.
pub fn tool_entry(def: &air_tools::ToolDef) -> Value {
    let mut entry = def.to_openai();
    if let Some(parameters) = entry.get_mut("function").and_then(|f| f.get_mut("parameters"))
        && parameters.get("type").is_none_or(Value::is_null)
    {
        *parameters = typed_object_schema(std::mem::take(parameters));
    }
    entry
}

/// `schema` with `type: "object"` first, and empty `properties` if it has
/// none. A schema that is not an object (`null`, `true`) allows any
/// arguments: it becomes the empty object schema.
fn typed_object_schema(schema: Value) -> Value {
    let rest = match schema {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    if !rest.contains_key("properties") {
        out.insert("properties".into(), Value::Object(Map::new()));
    }
    out.extend(rest.into_iter().filter(|(k, _)| k != "type"));
    Value::Object(out)
}

/// What the model is told for a call whose result never came (the tab
/// closed while it ran, or it still waits for approval).
pub const NO_RESULT: &str = "No result: the call was interrupted before it finished.";

/// The history as chat messages, keeping the rule providers enforce: each
/// call of an assistant message is answered by one `tool` message right
/// after it. A missing result is answered with [`NO_RESULT`]; a result
/// whose call is not in the message before it is left out.
fn paired(history: &[MessageRecord]) -> Vec<ChatMessage> {
    let mut out: Vec<ChatMessage> = Vec::with_capacity(history.len());
    // Calls of the last assistant message not answered yet, in order.
    let mut open: Vec<String> = Vec::new();
    let close = |out: &mut Vec<ChatMessage>, open: &mut Vec<String>| {
        for id in open.drain(..) {
            out.push(ChatMessage { tool_call_id: Some(id), ..ChatMessage::text(Role::Tool, NO_RESULT) });
        }
    };
    for m in history {
        if m.role == Role::Tool {
            let Some(id) = m.tool_call_id.as_deref() else { continue };
            let Some(pos) = open.iter().position(|o| o == id) else { continue };
            if let Some(chat) = m.to_chat() {
                open.remove(pos);
                out.push(chat);
            }
            continue;
        }
        let Some(chat) = m.to_chat() else { continue };
        close(&mut out, &mut open);
        open = chat.tool_calls.iter().map(|c| c.id.clone()).collect();
        out.push(chat);
    }
    close(&mut out, &mut open);
    out
}

/// `section` at the end of the request's system prompt (which is made if
/// there is none).
pub fn add_to_system_prompt(req: &mut ChatRequest, section: &str) {
    match req.messages.first_mut() {
        Some(first) if first.role == Role::System => {
            let mut text = first.content.take().unwrap_or_default();
            text.push_str("\n\n");
            text.push_str(section);
            first.content = Some(text);
        }
        _ => req.messages.insert(0, ChatMessage::text(Role::System, section)),
    }
}

/// The request for a model that reads its tools from the prompt: the tools
/// section goes at the end of the system prompt, each call the model made
/// goes back into its message as the `<tool_call>` text it wrote, and the
/// results of a round go to it as one user message of `<tool_response>`
/// blocks (such models know no `tool` role).
pub fn build_prompt_mode_request(settings: &Settings, history: &[MessageRecord], vars: &TemplateVars, tools_section: &str) -> ChatRequest {
    use air_chat::prompt_tools::{ToolResult, tool_call_text, tool_results_message};
    use air_store::records::ToolStatus;
    let mut req = build_request(settings, history, vars);
    add_to_system_prompt(&mut req, tools_section);
    // The calls become text: no message is left to carry reasoning.
    req.reasoning.clear();
    let mut messages: Vec<ChatMessage> = Vec::with_capacity(req.messages.len());
    // Whether each result reports a failure, by call id.
    let failed: std::collections::HashMap<&str, bool> = history
        .iter()
        .filter_map(|m| {
            let status = m.tool.as_ref()?.status;
            Some((m.tool_call_id.as_deref()?, !matches!(status, ToolStatus::Done)))
        })
        .collect();
    let mut names: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    // (name, output, is_error) of the round being collected.
    let mut results: Vec<(String, String, bool)> = Vec::new();
    let flush = |messages: &mut Vec<ChatMessage>, results: &mut Vec<(String, String, bool)>| {
        if !results.is_empty() {
            let list: Vec<ToolResult<'_>> = results.iter().map(|(name, output, is_error)| ToolResult { name, output, is_error: *is_error }).collect();
            messages.push(ChatMessage::text(Role::User, tool_results_message(&list)));
            results.clear();
        }
    };
    for m in req.messages.drain(..) {
        match m.role {
            Role::Tool => {
                let id = m.tool_call_id.clone().unwrap_or_default();
                let name = names.get(&id).cloned().unwrap_or_default();
                // A result stored is a final one; a missing one was answered
                // with NO_RESULT, which is a failure too.
                let is_error = failed.get(id.as_str()).copied().unwrap_or(true);
                results.push((name, m.content.clone().unwrap_or_default(), is_error));
            }
            Role::Assistant if !m.tool_calls.is_empty() => {
                flush(&mut messages, &mut results);
                let mut text = m.content.clone().unwrap_or_default();
                for c in &m.tool_calls {
                    names.insert(c.id.clone(), c.function.name.clone());
                    if !text.is_empty() && !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text.push_str(&tool_call_text(&c.function.name, &c.function.arguments));
                }
                messages.push(ChatMessage::text(Role::Assistant, text));
            }
            _ => {
                flush(&mut messages, &mut results);
                messages.push(m);
            }
        }
    }
    flush(&mut messages, &mut results);
    req.messages = messages;
    req
}

/// The extra request of Transitive Thinking: the conversation so far, with
/// the instruction to write only a reasoning chain at the end of the
/// system prompt (made if there is none). It has one system message, the
/// first: many chat templates refuse a system message anywhere else.
pub fn build_thought_request(settings: &Settings, history: &[MessageRecord], vars: &TemplateVars) -> ChatRequest {
    let mut req = build_request(settings, history, vars);
    add_to_system_prompt(&mut req, THOUGHT_INSTRUCTION);
    req
}

/// Decides when a streaming answer is written to storage: at most once per
/// `interval_ms`, so a crash loses at most that much.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    interval_ms: f64,
    last_ms: Option<f64>,
}

/// How often a streaming answer is saved.
pub const CHECKPOINT_MS: f64 = 500.0;

impl Default for Checkpoint {
    fn default() -> Self {
        Self::new(CHECKPOINT_MS)
    }
}

impl Checkpoint {
    pub fn new(interval_ms: f64) -> Self {
        Self { interval_ms, last_ms: None }
    }

    /// Whether to save now; if so, the time is remembered.
    pub fn due(&mut self, now_ms: f64) -> bool {
        match self.last_ms {
            Some(last) if now_ms - last < self.interval_ms => false,
            _ => {
                self.last_ms = Some(now_ms);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_variables_expand() {
        let vars = TemplateVars { date: "2026-11-21".into(), time: "20:15".into(), locale: "zh-CN".into() };
        assert_eq!(
            expand_template("Today is {{date}} {{time}}; you are {{model}}; reply in {{locale}}. {{unknown}}", &vars, "m1"),
            "Today is 2026-11-21 20:15; you are m1; reply in zh-CN. {{unknown}}"
        );
    }

    #[test]
    fn request_has_system_prompt_then_history_without_failed_answers() {
        let mut settings = Settings { system_prompt: "You are {{model}}.".into(), temperature: Some(0.5), ..Settings::default() };
        let user = MessageRecord::new("u", "s", 1.0, Role::User, "hi");
        let mut failed = MessageRecord::new("a", "s", 2.0, Role::Assistant, "");
        failed.error = Some(air_store::records::AnswerError::new(air_chat::ChatError::Other { text: "HTTP 500".into() }));
        let user2 = MessageRecord::new("u2", "s", 3.0, Role::User, "again");
        let req = build_request(&settings, &[user, failed, user2], &TemplateVars::default());
        let json = serde_json::to_value(&req).unwrap_or_default();
        assert_eq!(json["messages"][0]["content"], "You are SmolLM2-135M-Instruct.");
        assert_eq!(json["messages"].as_array().map(Vec::len), Some(3));
        assert_eq!(json["messages"][2]["content"], "again");
        assert_eq!(json["stream"], true);
        assert_eq!(json["stream_options"]["include_usage"], true);
        assert_eq!(json["temperature"], 0.5);
        // The local preset (the default) sends its limits; the user's max wins.
        assert_eq!(json["max_tokens"], air_store::settings::LOCAL_MAX_TOKENS);
        assert!((json["repeat_penalty"].as_f64().unwrap_or_default() - 1.1).abs() < 1e-6);
        assert!(json.get("tools").is_none());
        settings.max_tokens = Some(64);
        assert_eq!(build_request(&settings, &[], &TemplateVars::default()).max_tokens, Some(64));
        // Any other provider: nothing it did not ask for.
        settings.apply_preset("openai");
        settings.max_tokens = None;
        let other = serde_json::to_value(build_request(&settings, &[], &TemplateVars::default())).unwrap_or_default();
        assert!(other.get("max_tokens").is_none() && other.get("repeat_penalty").is_none());
    }

    #[test]
    fn transitive_thought_goes_into_the_system_prompt_of_the_real_request() {
        let settings = Settings::default();
        let user = MessageRecord::new("u", "s", 1.0, Role::User, "Is 91 prime?");
        let thought_req = build_thought_request(&settings, std::slice::from_ref(&user), &TemplateVars::default());
        let got: Vec<(Role, Option<&str>)> = thought_req.messages.iter().map(|m| (m.role, m.content.as_deref())).collect();
        assert_eq!(got, [(Role::System, Some(THOUGHT_INSTRUCTION)), (Role::User, Some("Is 91 prime?"))], "no system prompt: the instruction is one");

        let mut thought = MessageRecord::new("t", "s", 2.0, Role::Assistant, "91 = 7 × 13, so not prime.");
        thought.kind = Some(air_store::records::MessageKind::TransitiveThought);
        let req = build_request(&settings, &[user.clone(), thought.clone()], &TemplateVars::default());
        assert_eq!(req.messages.len(), 2, "system + user; the thought is not a turn of its own");
        assert_eq!(req.messages[0].role, Role::System);
        assert!(req.messages[0].content.as_deref().unwrap_or("").ends_with("91 = 7 × 13, so not prime."));
        assert_eq!(req.messages[1].content.as_deref(), Some("Is 91 prime?"));
        // An older thought (not last) is not reused.
        let answer = MessageRecord::new("a", "s", 3.0, Role::Assistant, "No.");
        let req = build_request(&settings, &[user, thought, answer], &TemplateVars::default());
        assert_eq!(req.messages[0].role, Role::User);
    }

    /// Many chat templates refuse a system message that is not the first:
    /// the instruction joins the user's system prompt.
    #[test]
    fn the_thought_request_has_one_system_message_and_it_is_first() {
        let settings = Settings { system_prompt: "You are {{model}}. Be brief.".into(), ..Settings::default() };
        let history =
            [MessageRecord::new("u", "s", 1.0, Role::User, "Hi"), MessageRecord::new("a", "s", 2.0, Role::Assistant, "Hello."), MessageRecord::new("u2", "s", 3.0, Role::User, "Is 91 prime?")];
        let req = build_thought_request(&settings, &history, &TemplateVars::default());
        let json = serde_json::to_value(&req).unwrap_or_default();
        let messages = json["messages"].as_array().cloned().unwrap_or_default();
        let systems: Vec<usize> = messages.iter().enumerate().filter(|(_, m)| m["role"] == "system").map(|(i, _)| i).collect();
        assert_eq!(systems, [0], "exactly one system message, at index 0");
        let system = messages[0]["content"].as_str().unwrap_or_default();
        assert!(system.starts_with("You are SmolLM2-135M-Instruct. Be brief."), "{system}");
        assert!(system.ends_with(THOUGHT_INSTRUCTION), "{system}");
        let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"], "the conversation ends with the user's message");
        assert_eq!(messages[3]["content"], "Is 91 prime?");
    }

    fn tool_def(schema: Value) -> air_tools::ToolDef {
        air_tools::ToolDef { name: "lookup".into(), description: "Looks up.".into(), input_schema: schema, annotations: Default::default(), source: air_tools::ToolSource::BuiltIn, mcp: None }
    }

    #[test]
    fn tool_parameters_always_have_an_object_type() {
        use serde_json::json;
        let sent = |schema: Value| {
            let mut req = build_request(&Settings::default(), &[], &TemplateVars::default());
            req.tools = vec![tool_entry(&tool_def(schema))];
            let json: Value = serde_json::from_str(&req.to_json()).unwrap_or_default();
            assert_eq!(json["tools"][0]["function"]["name"], "lookup");
            json["tools"][0]["function"]["parameters"].clone()
        };
        // No type: the object type, and empty properties where there were none.
        assert_eq!(sent(json!({})), json!({"type": "object", "properties": {}}));
        assert_eq!(serde_json::to_string(&sent(json!({}))).unwrap_or_default(), r#"{"type":"object","properties":{}}"#);
        let props = json!({"q": {"type": "string"}});
        assert_eq!(sent(json!({"properties": props, "required": ["q"]})), json!({"type": "object", "properties": props, "required": ["q"]}));
        assert_eq!(sent(json!({"type": null})), json!({"type": "object", "properties": {}}));
        assert_eq!(sent(Value::Null), json!({"type": "object", "properties": {}}));
        // A type: as it is, even without properties.
        for typed in [json!({"type": "object"}), json!({"type": "object", "properties": props, "additionalProperties": false}), json!({"type": ["object", "null"]})] {
            assert_eq!(sent(typed.clone()), typed);
        }
    }

    /// A turn of several tool rounds after an earlier turn that called a
    /// tool: both with reasoning in every answer.
    fn two_turns() -> Vec<MessageRecord> {
        use air_store::records::{ToolRun, ToolStatus};
        let answer = |id: &str, call: Option<&str>, reasoning: &str| {
            let mut m = MessageRecord::new(id, "s", 0.0, Role::Assistant, "");
            if let Some(call) = call {
                m.tool_calls = vec![air_chat::ToolCall { id: call.into(), name: "lookup".into(), arguments: "{}".into(), extra: None }];
            } else {
                m.content = format!("answer {id}");
            }
            m.reasoning = (!reasoning.is_empty()).then(|| reasoning.to_owned());
            m
        };
        let result = |id: &str, call: &str| {
            let mut m = MessageRecord::new(id, "s", 0.0, Role::Tool, "found");
            m.tool_call_id = Some(call.into());
            m.tool = Some(ToolRun::new("lookup", None, "{}", ToolStatus::Done));
            m
        };
        let mut thought = MessageRecord::new("t", "s", 0.0, Role::Assistant, "A chain.");
        thought.kind = Some(air_store::records::MessageKind::TransitiveThought);
        thought.reasoning = Some("thought's own reasoning".into());
        vec![
            MessageRecord::new("u1", "s", 0.0, Role::User, "first"),
            answer("a1", Some("call_0"), "old round"),
            result("r1", "call_0"),
            answer("a2", None, "old final"),
            MessageRecord::new("u2", "s", 0.0, Role::User, "second"),
            thought,
            answer("b1", Some("call_0"), "round one"),
            result("s1", "call_0"),
            answer("b2", Some("x"), ""),
            result("s2", "x"),
            answer("b3", Some("y"), "round three"),
            result("s3", "y"),
        ]
    }

    #[test]
    fn the_turn_in_progress_sends_back_the_reasoning_of_its_tool_calls() {
        let req = build_request(&Settings::default(), &two_turns(), &TemplateVars::default());
        let json: Value = serde_json::from_str(&req.to_json()).unwrap_or_default();
        let messages = json["messages"].as_array().cloned().unwrap_or_default();
        let got: Vec<(&str, Option<&str>, Option<&str>)> = messages
            .iter()
            .map(|m| {
                let call = m["tool_calls"][0]["id"].as_str().or_else(|| m["tool_call_id"].as_str());
                (m["role"].as_str().unwrap_or_default(), call, m.get("reasoning_content").and_then(Value::as_str))
            })
            .collect();
        assert_eq!(
            got,
            [
                ("user", None, None),
                // The earlier turn's messages carry none.
                ("assistant", Some("call_0"), None),
                ("tool", Some("call_0"), None),
                ("assistant", None, None),
                ("user", None, None),
                ("assistant", Some("call_0"), Some("round one")),
                ("tool", Some("call_0"), None),
                // No reasoning recorded: no field.
                ("assistant", Some("x"), None),
                ("tool", Some("x"), None),
                ("assistant", Some("y"), Some("round three")),
                ("tool", Some("y"), None),
            ]
        );
        // Prompt mode writes the calls as text: nothing to carry it.
        let prompt = build_prompt_mode_request(&Settings::default(), &two_turns(), &TemplateVars::default(), "# Tools");
        assert!(!prompt.to_json().contains("reasoning_content"));
        // Once the user speaks again, the finished turn sends none.
        let mut next = two_turns();
        next.push(MessageRecord::new("u3", "s", 0.0, Role::User, "third"));
        assert!(!build_request(&Settings::default(), &next, &TemplateVars::default()).to_json().contains("reasoning_content"));
    }

    #[test]
    fn every_call_is_answered_right_after_its_message() {
        use air_store::records::{ToolRun, ToolStatus};
        let call = |id: &str| air_chat::ToolCall { id: id.into(), name: "calculator".into(), arguments: "{}".into(), extra: None };
        let result = |id: &str, call_id: &str, status: ToolStatus| {
            let mut m = MessageRecord::new(id, "s", 0.0, Role::Tool, format!("result of {call_id}"));
            m.tool_call_id = Some(call_id.into());
            m.tool = Some(ToolRun::new("calculator", None, "{}", status));
            m
        };
        let user = MessageRecord::new("u", "s", 1.0, Role::User, "2+2 and 3+3?");
        let mut asks = MessageRecord::new("a", "s", 2.0, Role::Assistant, "");
        asks.tool_calls = vec![call("c1"), call("c2"), call("c3")];
        let history = [
            user,
            asks,
            result("r2", "c2", ToolStatus::Done),
            result("r1", "c1", ToolStatus::Running),
            result("stray", "c9", ToolStatus::Done),
            MessageRecord::new("u2", "s", 9.0, Role::User, "and?"),
        ];
        let req = build_request(&Settings::default(), &history, &TemplateVars::default());
        let got: Vec<(Role, Option<&str>, Option<&str>)> = req.messages.iter().map(|m| (m.role, m.tool_call_id.as_deref(), m.content.as_deref())).collect();
        assert_eq!(
            got,
            [
                (Role::User, None, Some("2+2 and 3+3?")),
                (Role::Assistant, None, None),
                (Role::Tool, Some("c2"), Some("result of c2")),
                (Role::Tool, Some("c1"), Some(NO_RESULT)),
                (Role::Tool, Some("c3"), Some(NO_RESULT)),
                (Role::User, None, Some("and?")),
            ]
        );
    }

    #[test]
    fn prompt_mode_writes_calls_and_results_as_text() {
        use air_store::records::{ToolRun, ToolStatus};
        let settings = Settings { system_prompt: "Be brief.".into(), ..Settings::default() };
        let user = MessageRecord::new("u", "s", 1.0, Role::User, "2+2 and the time?");
        let mut asks = MessageRecord::new("a", "s", 2.0, Role::Assistant, "Let me check.");
        asks.tool_calls = vec![
            air_chat::ToolCall { id: "a-0".into(), name: "calculator".into(), arguments: "{\"expression\":\"2+2\"}".into(), extra: None },
            air_chat::ToolCall { id: "a-1".into(), name: "get_current_time".into(), arguments: "{}".into(), extra: None },
        ];
        let result = |id: &str, call: &str, name: &str, text: &str| {
            let mut m = MessageRecord::new(id, "s", 3.0, Role::Tool, text);
            m.tool_call_id = Some(call.into());
            m.tool = Some(ToolRun::new(name, None, "{}", ToolStatus::Done));
            m
        };
        let history = [user, asks, result("r1", "a-0", "calculator", "2+2 = 4"), result("r2", "a-1", "get_current_time", "Sunday 10:00")];
        let req = build_prompt_mode_request(&settings, &history, &TemplateVars::default(), "# Tools\n...");
        let got: Vec<(Role, &str)> = req.messages.iter().map(|m| (m.role, m.content.as_deref().unwrap_or(""))).collect();
        assert_eq!(
            got,
            [
                (Role::System, "Be brief.\n\n# Tools\n..."),
                (Role::User, "2+2 and the time?"),
                (
                    Role::Assistant,
                    "Let me check.\n<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2+2\"}}</tool_call>\n<tool_call>{\"name\": \"get_current_time\", \"arguments\": {}}</tool_call>"
                ),
                (
                    Role::User,
                    "<tool_response name=\"calculator\" call=\"1\">\n2+2 = 4\n</tool_response>\n<tool_response name=\"get_current_time\" call=\"2\">\nSunday 10:00\n</tool_response>\nContinue: use these results to answer the user."
                ),
            ]
        );
        assert!(req.tools.is_empty() && req.messages.iter().all(|m| m.tool_calls.is_empty() && m.tool_call_id.is_none()));
    }

    #[test]
    fn checkpoints_at_most_every_interval() {
        let mut c = Checkpoint::new(500.0);
        let saves: Vec<f64> = [0.0, 100.0, 499.0, 500.0, 700.0, 1100.0, 1200.0].into_iter().filter(|t| c.due(*t)).collect();
        assert_eq!(saves, [0.0, 500.0, 1100.0]);
    }
}

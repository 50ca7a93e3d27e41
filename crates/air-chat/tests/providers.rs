//! Every provider shape from the recorded facts, decoded whole and split at
//! every byte boundary; all splits must give the same [`Reply`].

use air_chat::{FinishReason, Reply, ReplyStream, ToolCall, Usage};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}.sse", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn decode(parts: &[&[u8]]) -> Reply {
    let mut s = ReplyStream::new();
    for p in parts {
        s.feed(p);
    }
    s.finish();
    s.into_reply()
}

/// Decodes the fixture whole, then split in two at every byte, then in
/// three at a sliding pair of cuts; every way must agree.
fn check(name: &str) -> Reply {
    let body = fixture(name);
    let whole = decode(&[&body]);
    for cut in 0..=body.len() {
        let split = decode(&[&body[..cut], &body[cut..]]);
        assert_eq!(split, whole, "{name}: split at byte {cut}");
    }
    for cut in (0..body.len()).step_by(7) {
        let second = (cut + 13).min(body.len());
        let split = decode(&[&body[..cut], &body[cut..second], &body[second..]]);
        assert_eq!(split, whole, "{name}: split at {cut} and {second}");
    }
    whole
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall { id: id.into(), name: name.into(), arguments: arguments.into(), extra: None }
}

#[test]
fn llamacpp_text_with_null_first_content_and_usage_chunk() {
    let r = check("llamacpp_text");
    assert_eq!(r.content, "Welcome to 世界");
    assert_eq!(r.model.as_deref(), Some("SmolLM2-135M-Instruct"));
    assert_eq!(r.finish, Some(FinishReason::Stop));
    assert_eq!(r.usage, Some(Usage { prompt_tokens: 31, completion_tokens: 3, total_tokens: 34, ..Usage::default() }));
    assert!(r.done && r.error.is_none() && r.malformed.is_empty() && !r.is_tool_turn());
}

#[test]
fn openai_text_with_null_usage_then_usage_chunk() {
    let r = check("openai_text");
    assert_eq!(r.content, "Hello! How can I help?");
    assert_eq!(r.model.as_deref(), Some("gpt-4o-mini-2024-07-18"));
    assert_eq!(r.finish, Some(FinishReason::Stop));
    assert_eq!(r.usage.map(|u| (u.prompt_tokens, u.completion_tokens, u.total_tokens)), Some((9, 8, 17)));
}

#[test]
fn ollama_older_calls_without_index_are_separate_by_id() {
    let r = check("ollama_no_index");
    assert_eq!(r.finished_tool_calls(), vec![call("call_a1", "get_weather", r#"{"city":"Paris"}"#), call("call_b2", "get_weather", r#"{"city":"Rome"}"#)]);
    assert!(r.is_tool_turn(), "finish_reason stop, but calls arrived");
}

#[test]
fn openai_parallel_tool_calls_with_split_arguments() {
    let r = check("openai_parallel_tools");
    assert_eq!(r.finished_tool_calls(), vec![call("call_a", "get_weather", r#"{"city": "Paris"}"#), call("call_b", "get_weather", r#"{"city": "Tokyo"}"#),]);
    assert_eq!(r.content, "");
    assert_eq!(r.finish, Some(FinishReason::ToolCalls));
    let u = r.usage.unwrap_or_default();
    assert_eq!((u.prompt_tokens, u.total_tokens, u.reasoning_tokens, u.cached_tokens), (80, 120, Some(0), Some(0)));
}

#[test]
fn azure_empty_first_chunk_and_trailing_filter_chunk() {
    let r = check("azure_filters");
    assert_eq!(r.content, "Hello");
    assert_eq!(r.finish, Some(FinishReason::Stop));
    // The empty `model` of the filter chunks does not replace the real one.
    assert_eq!(r.model.as_deref(), Some("gpt-4o-2024-05-13"));
    assert!(r.error.is_none() && r.malformed.is_empty());
}

#[test]
fn deepseek_reasoning_content_and_usage_on_finish_chunk() {
    let r = check("deepseek_reasoning");
    assert_eq!(r.reasoning, "The user greets.");
    assert_eq!(r.content, " Hi!");
    let u = r.usage.unwrap_or_default();
    assert_eq!((u.total_tokens, u.reasoning_tokens, u.cached_tokens), (22, Some(8), Some(0)));
}

#[test]
fn xai_absent_finish_reason_and_whole_call() {
    let r = check("xai_whole_calls");
    assert_eq!(r.reasoning, "Need weather.");
    assert_eq!(r.finished_tool_calls(), vec![call("call_1", "get_weather", r#"{"city":"Oslo"}"#)]);
    assert_eq!(r.usage.and_then(|u| u.reasoning_tokens), Some(12));
}

#[test]
fn anthropic_compat_first_call_at_index_one() {
    let r = check("anthropic_compat");
    assert_eq!(r.content, "Let me check.");
    assert_eq!(r.finished_tool_calls(), vec![call("toolu_01", "get_time", r#"{"tz": "UTC"}"#)]);
}

#[test]
fn gemini_calls_without_index_keep_thought_signature() {
    let r = check("gemini_no_index");
    let calls = r.finished_tool_calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!((calls[0].name.as_str(), calls[0].arguments.as_str()), ("get_weather", r#"{"city":"Rome"}"#));
    assert_eq!((calls[1].name.as_str(), calls[1].arguments.as_str()), ("get_time", "{}"));
    // Gemini sends empty ids: stable ones are made up, distinct per call.
    assert_eq!((calls[0].id.as_str(), calls[1].id.as_str()), ("call_0", "call_1"));
    let sig = calls[0].extra.as_ref().and_then(|e| e.pointer("/google/thought_signature")).and_then(|s| s.as_str());
    assert_eq!(sig, Some("c2lnLTE="));
    // `finish_reason: "stop"` although tools were called: still a tool turn.
    assert_eq!(r.finish, Some(FinishReason::Stop));
    assert!(r.is_tool_turn());
    // The signature goes back on the wire with the assistant message.
    let wire = serde_json::to_value(air_chat::wire::WireToolCall::from(&calls[0])).unwrap_or_default();
    assert_eq!(wire.pointer("/extra_content/google/thought_signature").and_then(|s| s.as_str()), Some("c2lnLTE="));
}

#[test]
fn ollama_reasoning_field_and_role_on_every_delta() {
    let r = check("ollama_reasoning");
    assert_eq!(r.reasoning, "Thinking.");
    assert_eq!(r.content, "");
    assert_eq!(r.finished_tool_calls(), vec![call("call_x1", "add", r#"{"a":1,"b":2}"#)]);
    assert_eq!(r.usage.map(|u| u.total_tokens), Some(42));
}

#[test]
fn openrouter_keepalive_comments_and_crlf() {
    let r = check("openrouter_crlf");
    assert_eq!(r.content, "Hi there");
    assert_eq!(r.finish, Some(FinishReason::Stop));
    assert_eq!(r.usage.map(|u| u.total_tokens), Some(10));
}

#[test]
fn midstream_error_object_with_finish_reason_error() {
    let r = check("error_midstream_openai");
    assert_eq!(r.content, "Partial");
    let e = r.error.unwrap_or_else(|| panic!("no error"));
    assert_eq!(e.message, "Upstream provider disconnected");
    assert_eq!(e.code.as_deref(), Some("502"));
}

#[test]
fn midstream_error_vllm_object_error() {
    let r = check("error_midstream_vllm");
    assert_eq!(r.content, "Part");
    assert_eq!(r.error.map(|e| e.message), Some("The engine is overloaded".into()));
}

#[test]
fn midstream_error_sse_event() {
    let r = check("error_event");
    assert_eq!(r.content, "So far");
    let e = r.error.unwrap_or_else(|| panic!("no error"));
    assert_eq!((e.code.as_deref(), e.message.as_str()), (Some("overloaded_error"), "Overloaded"));
}

#[test]
fn stream_without_done_and_without_final_newline() {
    let r = check("no_done");
    assert_eq!(r.content, "No done marker");
    assert!(!r.done);
    assert_eq!(r.finish, Some(FinishReason::Stop));
}

#[test]
fn finish_stop_with_text_and_a_tool_call() {
    let r = check("stop_with_tool_calls");
    assert_eq!(r.content, "Checking the time.");
    assert!(r.is_tool_turn());
    assert_eq!(r.finished_tool_calls(), vec![call("call_t", "get_current_time", "{}")]);
}

#[test]
fn empty_tool_calls_array_is_not_a_call() {
    let r = check("empty_tool_calls_gateway");
    assert_eq!(r.content, "Plain text");
    assert!(!r.is_tool_turn());
}

#[test]
fn malformed_chunk_is_reported_and_skipped() {
    let r = check("malformed_chunk");
    assert_eq!(r.content, "Good still good");
    assert_eq!(r.malformed.len(), 1);
    assert!(r.error.is_none());
}

#[test]
fn random_bytes_never_panic() {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // Pieces of real chunks recombined at random: valid framing, broken JSON.
    let pieces: &[&[u8]] = &[
        b"data: ",
        b"{",
        b"}",
        b"\"choices\":[",
        b"]",
        b"{\"delta\":",
        b"\"tool_calls\":[{\"index\":",
        b"0",
        b"null",
        b",",
        b"\"content\":\"x\"",
        b"\n\n",
        b"\r",
        b"event: error\n",
        b"[DONE]",
        b"\xFF",
        b"\"function\":{\"arguments\":",
        b"\"error\":",
        b"\"usage\":{\"prompt_tokens\":1}",
        b"\"finish_reason\":\"error\"",
    ];
    for _ in 0..3000 {
        let n = (next() % 40) as usize;
        let mut body = Vec::new();
        for _ in 0..n {
            body.extend_from_slice(pieces[(next() as usize) % pieces.len()]);
        }
        let whole = decode(&[&body]);
        let cut = (next() as usize) % (body.len() + 1);
        assert_eq!(decode(&[&body[..cut], &body[cut..]]), whole);
    }
}

#[test]
fn groq_usage_in_its_own_object() {
    let r = check("groq_x_groq_usage");
    assert_eq!(r.content, "Hi there");
    assert_eq!(r.usage.map(|u| (u.prompt_tokens, u.completion_tokens, u.total_tokens)), Some((40, 12, 52)));
    assert_eq!(r.finish, Some(FinishReason::Stop));
}

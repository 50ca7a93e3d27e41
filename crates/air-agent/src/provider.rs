//! Talking to the configured provider: its key, how any answer that is not
//! a success becomes the error a person can act on, and the requests made
//! outside a turn (the model list of Settings' "Test & list models", the
//! tool-calling probe, one-off completions). It uses nothing else of this
//! crate, so the turn can use it without a cycle.

use std::pin::pin;

use air_chat::error::{classify_http, parse_model_list};
use air_chat::{ChatError, ReplyStream};
use air_http::{Abort, Body, HttpClient, HttpError, Request, Response};
use air_store::Settings;
use air_store::settings::ToolCalling;
use futures_util::future::{Either, select};

/// How much of a probe's answer is read at most.
const PROBE_READ_MAX: usize = 64 * 1024;

/// `GET {base}/models`: the model ids the provider offers, or why not
/// (CORS told apart from a network failure, HTTP statuses classified).
pub async fn list_models<H: HttpClient>(http: &H, settings: &Settings) -> Result<Vec<String>, ChatError> {
    let url = settings.models_url();
    let body = read_ok(http, &url, authorized(Request::get(&url), settings), &Abort::new()).await?;
    parse_model_list(&body).map_err(ChatError::Unexpected)
}

/// The `Authorization` header for these settings, if a key is set. The key
/// goes only to the configured base URL.
pub fn auth_header(settings: &Settings) -> Option<(&'static str, String)> {
    let key = settings.api_key.trim();
    (!key.is_empty()).then(|| ("Authorization", format!("Bearer {key}")))
}

/// `request` with the key of these settings, if one is set.
pub fn authorized(request: Request, settings: &Settings) -> Request {
    match auth_header(settings) {
        Some((k, v)) => request.header(k, v),
        None => request,
    }
}

/// Sends `request` to the provider: a successful answer, or why not (`None`
/// when it was stopped). The one place an answer that is not a success is
/// read: HTTP statuses classified, CORS told apart from a network failure.
pub async fn send<H: HttpClient>(http: &H, url: &str, request: Request, abort: &Abort) -> Result<Response<H::Body>, Option<ChatError>> {
    match http.send(request, abort).await {
        Ok(r) if r.ok() => Ok(r),
        Ok(r) => {
            let status = r.status;
            let retry_after = r.header("retry-after").map(str::to_owned);
            let body = r.body.text().await.unwrap_or_default();
            Err(Some(classify_http(status, &body, retry_after.as_deref())))
        }
        Err(HttpError::Aborted) => Err(None),
        Err(HttpError::Network(detail)) => Err(Some(network_error(http, url, detail).await)),
        Err(e) => Err(Some(ChatError::Other { text: e.to_string() })),
    }
}

/// Sends `request` and reads a successful answer's body, or says why not.
async fn read_ok<H: HttpClient>(http: &H, url: &str, request: Request, abort: &Abort) -> Result<String, ChatError> {
    let r = send(http, url, request, abort).await.map_err(|e| e.unwrap_or_else(|| ChatError::Other { text: HttpError::Aborted.to_string() }))?;
    r.body.text().await.map_err(|e| ChatError::Unexpected(e.to_string()))
}

/// Finds out whether the model calls tools natively: one small request
/// offering a tool and asking for it to be called. `tool_calls` in the
/// answer: native. An ordinary answer, or a refusal that names tools:
/// prompt. Anything else (network, server trouble): `None`, nothing learnt.
pub async fn probe_tool_calling<H: HttpClient>(http: &H, settings: &Settings, abort: &Abort) -> Option<ToolCalling> {
    let body = serde_json::json!({
        "model": settings.model.trim(),
        "messages": [{"role": "user", "content": "Call the tool `probe` now, with no arguments."}],
        "tools": [{"type": "function", "function": {"name": "probe", "description": "Answers whether tools work. Call it when asked.", "parameters": {"type": "object", "properties": {}}}}],
        "max_tokens": 48,
        "stream": false
    });
    let request = authorized(Request::post_json(settings.chat_url(), body.to_string()), settings);
    // Its own abort, so that a server streaming a long answer anyway is
    // not read to the end; Stop still ends it.
    let own = Abort::new();
    let response = match select(pin!(http.send(request, &own)), pin!(abort.aborted())).await {
        Either::Left((r, _)) => r.ok()?,
        Either::Right(_) => return None,
    };
    let status = response.status;
    if (200..300).contains(&status) {
        let mut body = response.body;
        let (mut head, mut stream) = (Vec::new(), None::<ReplyStream>);
        // Enough to tell: a JSON answer (as asked) or, from a server that
        // streams whatever is asked, the first events of its answer.
        while head.len() < PROBE_READ_MAX && !abort.is_aborted() {
            let Ok(Some(chunk)) = body.chunk().await else { break };
            if stream.is_none() && head.is_empty() && chunk.trim_ascii_start().starts_with(b"data:") {
                stream = Some(ReplyStream::new());
            }
            if let Some(s) = stream.as_mut() {
                s.feed(&chunk);
                if !s.reply().tool_calls.is_empty() {
                    break;
                }
            }
            head.extend_from_slice(&chunk);
        }
        own.abort();
        if let Some(mut s) = stream {
            s.finish();
            let reply = s.reply();
            return if !reply.tool_calls.is_empty() { Some(ToolCalling::Native) } else { (!reply.content.is_empty()).then_some(ToolCalling::Prompt) };
        }
        let v: serde_json::Value = serde_json::from_slice(&head).ok()?;
        let calls = &v["choices"][0]["message"]["tool_calls"];
        return Some(if calls.as_array().is_some_and(|c| !c.is_empty()) { ToolCalling::Native } else { ToolCalling::Prompt });
    }
    let text = response.body.text().await.ok()?;
    // "tools are not supported", "tool_choice", "--jinja"…
    let lower = text.to_lowercase();
    ((400..500).contains(&status) && (lower.contains("tool") || lower.contains("function") || lower.contains("jinja"))).then_some(ToolCalling::Prompt)
}

/// A failed `fetch` is CORS if the server answers when CORS is not asked
/// for, a network failure otherwise.
async fn network_error<H: HttpClient>(http: &H, url: &str, detail: String) -> ChatError {
    if http.answers_without_cors(url).await { ChatError::Cors { url: url.to_owned() } } else { ChatError::Network { url: url.to_owned(), detail } }
}

/// One non-streamed answer of `model` at the configured provider to a
/// system and a user message (background work such as the MCP catalog's
/// summaries): its text, or why not.
pub async fn complete<H: HttpClient>(http: &H, settings: &Settings, model: &str, system: &str, user: &str, abort: &Abort) -> Result<String, ChatError> {
    let body = serde_json::json!({
        "model": model.trim(),
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "temperature": 0,
        "max_tokens": 1024,
        "stream": false
    });
    let url = settings.chat_url();
    let request = authorized(Request::post_json(&url, body.to_string()), settings);
    let text = read_ok(http, &url, request, abort).await?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| ChatError::Unexpected(format!("not JSON: {e}")))?;
    v["choices"][0]["message"]["content"].as_str().map(str::to_owned).ok_or_else(|| ChatError::Unexpected("no answer text".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use air_chat::HttpErrorKind;
    use air_http::fake::{Script, ScriptedHttp};

    fn settings(key: &str) -> Settings {
        Settings { base_url: "http://p.test/v1/".into(), api_key: key.into(), ..Settings::default() }
    }

    #[test]
    fn models_are_listed_with_the_key_sent_to_the_provider() {
        let http = ScriptedHttp::new();
        http.push(Script::status(200, r#"{"data":[{"id":"b"},{"id":"a"}]}"#));
        let got = pollster::block_on(list_models(&http, &settings("sk-1")));
        assert_eq!(got, Ok(vec!["a".to_owned(), "b".to_owned()]));
        let sent = &http.requests()[0];
        assert_eq!((sent.method.as_str(), sent.url.as_str()), ("GET", "http://p.test/v1/models"));
        assert_eq!(sent.headers, [("Authorization".to_owned(), "Bearer sk-1".to_owned())]);
    }

    #[test]
    fn probing_tells_native_from_prompt() {
        let http = ScriptedHttp::new();
        let native = r#"{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"probe","arguments":"{}"}}]}}]}"#;
        let text = r#"{"choices":[{"message":{"role":"assistant","content":"Sure, here is a probe."}}]}"#;
        http.push(Script::status(200, native));
        http.push(Script::status(200, text));
        http.push(Script::status(400, r#"{"error":{"message":"tools param requires --jinja flag"}}"#));
        http.push(Script::status(503, "busy"));
        http.push(Script::Fail(HttpError::Network("refused".into())));
        let s = settings("sk-1");
        let probe = || pollster::block_on(probe_tool_calling(&http, &s, &Abort::new()));
        assert_eq!(probe(), Some(ToolCalling::Native));
        assert_eq!(probe(), Some(ToolCalling::Prompt));
        assert_eq!(probe(), Some(ToolCalling::Prompt));
        assert_eq!(probe(), None, "a server error teaches nothing");
        assert_eq!(probe(), None);
        let sent: serde_json::Value = serde_json::from_str(http.requests()[0].body.as_deref().unwrap()).unwrap();
        assert_eq!((sent["stream"].as_bool(), sent["tools"][0]["function"]["name"].as_str()), (Some(false), Some("probe")));
    }

    #[test]
    fn a_server_that_streams_anyway_is_understood_from_its_first_events() {
        let http = ScriptedHttp::new();
        let call = r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"probe","arguments":""}}]}}]}"#;
        let text = r#"{"choices":[{"index":0,"delta":{"content":"Sure."}}]}"#;
        http.push(Script::sse([call, "[DONE]"]));
        // A long streamed answer: read only as far as needed.
        let long: Vec<String> = (0..20_000).map(|_| text.to_owned()).collect();
        http.push(Script::sse(long.iter().map(String::as_str).chain(["[DONE]"])));
        http.push(Script::sse(["[DONE]"]));
        let s = settings("sk-1");
        let probe = || pollster::block_on(probe_tool_calling(&http, &s, &Abort::new()));
        assert_eq!(probe(), Some(ToolCalling::Native));
        let before = http.chunks_read();
        assert_eq!(probe(), Some(ToolCalling::Prompt));
        let read = http.chunks_read() - before;
        assert!(read < 2_000, "read {read} of 20,001 events: it stops at its 64 KiB");
        assert_eq!(probe(), None, "an empty answer teaches nothing");
    }

    #[test]
    fn a_background_completion_with_another_model() {
        let http = ScriptedHttp::new();
        http.push(Script::status(200, r#"{"choices":[{"message":{"role":"assistant","content":"{\"server\": \"x\"}"}}]}"#));
        http.push(Script::status(429, r#"{"error":{"message":"slow down"}}"#));
        let s = settings("sk-1");
        let got = pollster::block_on(complete(&http, &s, " summarizer ", "sys", "user", &Abort::new()));
        assert_eq!(got, Ok(r#"{"server": "x"}"#.to_owned()));
        let sent: serde_json::Value = serde_json::from_str(http.requests()[0].body.as_deref().unwrap_or("")).unwrap_or_default();
        assert_eq!(sent["model"], "summarizer");
        assert_eq!(sent["stream"], false);
        assert_eq!(sent["messages"][0]["content"], "sys");
        assert_eq!(http.requests()[0].headers, [("Content-Type".to_owned(), "application/json".to_owned()), ("Authorization".to_owned(), "Bearer sk-1".to_owned())]);
        let r = pollster::block_on(complete(&http, &s, "m", "sys", "user", &Abort::new()));
        assert!(matches!(r, Err(ChatError::Http { kind: HttpErrorKind::RateLimited, .. })), "{r:?}");
    }

    #[test]
    fn failures_are_told_apart() {
        let http = ScriptedHttp::new();
        http.push(Script::status(401, r#"{"error":{"message":"Invalid API Key"}}"#));
        http.push(Script::Fail(HttpError::Network("Failed to fetch".into())));
        http.push(Script::status(200, "<html>"));
        let r = pollster::block_on(list_models(&http, &settings("")));
        assert!(matches!(r, Err(ChatError::Http { kind: HttpErrorKind::Unauthorized, .. })), "{r:?}");
        assert!(http.requests()[0].headers.is_empty(), "no key, no Authorization header");
        let r = pollster::block_on(list_models(&http, &settings("")));
        assert!(matches!(r, Err(ChatError::Network { .. })), "{r:?}");
        let r = pollster::block_on(list_models(&http, &settings("")));
        assert!(matches!(r, Err(ChatError::Unexpected(_))), "{r:?}");
        http.push(Script::Fail(HttpError::Network("Failed to fetch".into())));
        http.set_answers_without_cors(true);
        let r = pollster::block_on(list_models(&http, &settings("")));
        assert!(matches!(r, Err(ChatError::Cors { .. })), "{r:?}");
    }
}

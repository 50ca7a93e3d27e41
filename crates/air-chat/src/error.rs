//! Failures of a chat request, classified so the user can act on them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ProviderError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HttpErrorKind {
    /// 400 because the conversation does not fit the model's context.
    ContextOverflow,
    BadRequest,
    Unauthorized,
    Forbidden,
    /// 404: usually a wrong base URL or an unknown model.
    NotFound,
    RateLimited,
    Server,
    /// The model does not take images (the request carried some).
    ImagesRefused,
    Other,
}

impl HttpErrorKind {
    /// Whether sending the same request again later may succeed.
    pub fn retryable(self) -> bool {
        matches!(self, Self::RateLimited | Self::Server)
    }
}

/// The language of user-facing messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

/// Why a chat request failed. `Display` is the English message;
/// [`ChatError::message`] gives it in another language. Stored with the
/// answer it ended (so it is shown in the language of the moment).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ChatError {
    /// The server answered with a non-2xx status.
    Http {
        status: u16,
        kind: HttpErrorKind,
        /// The provider's own explanation, if its body had one.
        message: Option<String>,
        /// Seconds to wait, from `Retry-After`.
        retry_after: Option<u64>,
    },
    /// `fetch` itself failed and nothing answered at the address.
    Network { url: String, detail: String },
    /// The server answered, but the browser hid the answer because the
    /// server does not allow requests from this page.
    Cors { url: String },
    /// The server answered 2xx with something that is not what was asked for.
    Unexpected(String),
    /// The provider reported an error in the middle of the answer.
    Provider(ProviderError),
    /// The body stopped before the answer was complete; `None`: it ended
    /// without a finish marker.
    Interrupted { detail: Option<String> },
    /// Anything else, in words (also what older versions stored).
    Other { text: String },
}

impl std::error::Error for ChatError {}

impl<'de> Deserialize<'de> for ChatError {
    /// Reads what `Serialize` writes (`{"kind": …, "detail": …}`), taking
    /// the detail's fields from a JSON value: one small reader for every
    /// variant (serde derives the reader of an adjacently tagged enum
    /// twice, once for each order of the two keys, and a stored answer's
    /// error is read on every page load).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        #[derive(Deserialize)]
        struct Tagged {
            kind: String,
            #[serde(default)]
            detail: Value,
        }
        // (A record read from IndexedDB gives its numbers as floats.)
        fn whole(v: &Value) -> Option<u64> {
            v.as_u64().or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64).map(|f| f as u64))
        }
        let Tagged { kind, detail } = Tagged::deserialize(d)?;
        let text = |key: &str| detail.get(key).and_then(Value::as_str).map(str::to_owned);
        let need = |key: &'static str| text(key).ok_or_else(|| D::Error::missing_field(key));
        Ok(match kind.as_str() {
            "http" => ChatError::Http {
                status: detail.get("status").and_then(whole).and_then(|n| u16::try_from(n).ok()).ok_or_else(|| D::Error::missing_field("status"))?,
                kind: HttpErrorKind::deserialize(detail.get("kind").unwrap_or(&Value::Null)).map_err(D::Error::custom)?,
                message: text("message"),
                retry_after: detail.get("retryAfter").and_then(whole),
            },
            "network" => ChatError::Network { url: need("url")?, detail: need("detail")? },
            "cors" => ChatError::Cors { url: need("url")? },
            "unexpected" => ChatError::Unexpected(detail.as_str().map(str::to_owned).ok_or_else(|| D::Error::missing_field("detail"))?),
            "provider" => ChatError::Provider(ProviderError { code: text("code"), message: need("message")? }),
            "interrupted" => ChatError::Interrupted { detail: text("detail") },
            "other" => ChatError::Other { text: need("text")? },
            other => return Err(D::Error::unknown_variant(other, &["http", "network", "cors", "unexpected", "provider", "interrupted", "other"])),
        })
    }
}

impl std::fmt::Display for ChatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl ChatError {
    /// The message for a person, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        let zh = lang == Lang::Zh;
        match self {
            ChatError::Http { status, kind, message, .. } => http_message(*kind, *status, message, lang),
            ChatError::Network { url, detail } if zh => {
                format!("无法连接 {url}：服务器未运行、地址错误，或不允许来自本页面的请求（CORS）。{detail}")
            }
            ChatError::Network { url, detail } => format!("Could not reach {url}: the server is down, the address is wrong, or it does not allow requests from this page (CORS). {detail}"),
            ChatError::Cors { url } if zh => format!(
                "{url} 有应答，但不允许来自本页面的请求（CORS）。服务器需要发送 `Access-Control-Allow-Origin`（本页面的源或 `*`），并允许 `Content-Type` 和 `Authorization` 请求头；`Access-Control-Allow-Headers: *` 不包括 `Authorization`。"
            ),
            ChatError::Cors { url } => format!(
                "{url} answered, but does not allow requests from this page (CORS). The server must send `Access-Control-Allow-Origin` (for this page's origin or `*`) and allow the `Content-Type` and `Authorization` request headers; `Access-Control-Allow-Headers: *` does not cover `Authorization`."
            ),
            ChatError::Other { text } => text.clone(),
            ChatError::Unexpected(m) if zh => format!("服务器有应答，但内容不符合预期：{m}"),
            ChatError::Unexpected(m) => format!("The server answered, but not with what was expected: {m}"),
            ChatError::Provider(e) if zh => format!("服务商报告了错误：{e}"),
            ChatError::Provider(e) => format!("The provider reported an error: {e}"),
            ChatError::Interrupted { detail } if zh => format!("回答完成前连接中断：{}", detail.as_deref().unwrap_or("数据流在没有结束标记的情况下中断")),
            ChatError::Interrupted { detail } => format!("The connection was lost before the answer was complete: {}", detail.as_deref().unwrap_or("the stream ended without a finish marker")),
        }
    }
}

fn http_message(kind: HttpErrorKind, status: u16, message: &Option<String>, lang: Lang) -> String {
    let what = match (kind, lang) {
        (HttpErrorKind::ContextOverflow, Lang::En) => "The conversation is too long for this model's context window. Start a new session, delete some messages, or pick a model with a larger context.",
        (HttpErrorKind::ContextOverflow, Lang::Zh) => "对话超出了该模型的上下文窗口。请新建会话、删除部分消息，或换用上下文更大的模型。",
        (HttpErrorKind::BadRequest, Lang::En) => "The provider rejected the request.",
        (HttpErrorKind::BadRequest, Lang::Zh) => "服务商拒绝了该请求。",
        (HttpErrorKind::Unauthorized, Lang::En) => "The API key was refused. Check the key in Settings.",
        (HttpErrorKind::Unauthorized, Lang::Zh) => "API 密钥被拒绝，请在设置中检查密钥。",
        (HttpErrorKind::Forbidden, Lang::En) => "This API key is not allowed to use this model or endpoint.",
        (HttpErrorKind::Forbidden, Lang::Zh) => "该 API 密钥无权使用此模型或接口。",
        (HttpErrorKind::NotFound, Lang::En) => "Not found: check the base URL and the model name in Settings.",
        (HttpErrorKind::NotFound, Lang::Zh) => "未找到：请在设置中检查 Base URL 和模型名称。",
        (HttpErrorKind::RateLimited, Lang::En) => "Rate limited by the provider.",
        (HttpErrorKind::RateLimited, Lang::Zh) => "已被服务商限流。",
        (HttpErrorKind::Server, Lang::En) => "The provider had a server error.",
        (HttpErrorKind::Server, Lang::Zh) => "服务商出现服务器错误。",
        (HttpErrorKind::ImagesRefused, Lang::En) => "This model does not accept images. Your message is kept: pick a model that can see images and press Regenerate, or ask without the image.",
        (HttpErrorKind::ImagesRefused, Lang::Zh) => "该模型不接受图片。你的消息已保留：请换用能识别图片的模型后点“重新生成”，或去掉图片再问。",
        (HttpErrorKind::Other, Lang::En) => "The request failed.",
        (HttpErrorKind::Other, Lang::Zh) => "请求失败。",
    };
    match message {
        Some(m) if !m.is_empty() => format!("{what} (HTTP {status}: {m})"),
        _ => format!("{what} (HTTP {status})"),
    }
}

/// The model ids in a `GET {base}/models` answer (OpenAI's `data[].id`, or
/// Ollama's `models[].name`), sorted.
pub fn parse_model_list(body: &str) -> Result<Vec<String>, String> {
    let v: Value = serde_json::from_str(body).map_err(|e| format!("the model list is not JSON: {e}"))?;
    let from = |key: &str, field: &str| v.get(key).and_then(Value::as_array).map(|a| a.iter().filter_map(|m| m.get(field).and_then(Value::as_str).map(str::to_owned)).collect::<Vec<_>>());
    let mut ids = from("data", "id").or_else(|| from("models", "name")).ok_or("the answer has no model list")?;
    ids.sort();
    ids.dedup();
    Ok(ids)
}

/// Classifies a non-2xx answer from its status, body and `Retry-After` header.
pub fn classify_http(status: u16, body: &str, retry_after: Option<&str>) -> ChatError {
    let json: Option<Value> = serde_json::from_str(body).ok();
    let err = json.as_ref().map(|v| v.get("error").unwrap_or(v));
    let field = |k: &str| err.and_then(|e| e.get(k)).and_then(Value::as_str).map(str::to_owned);
    let message = field("message").or_else(|| err.and_then(Value::as_str).map(str::to_owned)).or_else(|| {
        let t = body.trim();
        (!t.is_empty() && json.is_none() && t.len() <= 300 && !t.starts_with('<')).then(|| t.to_owned())
    });
    let code = field("type").or_else(|| field("code")).unwrap_or_default();
    let lower = format!("{code} {}", message.as_deref().unwrap_or("")).to_lowercase();
    let overflow = ["context", "too long", "maximum context", "exceed"].iter().any(|k| lower.contains(k)) && (lower.contains("token") || lower.contains("context"));
    // A model without vision: llama.cpp answers 500 "image input is not
    // supported … mmproj", OpenAI 400 "image_url is only supported by
    // certain models", DeepSeek 422 "unknown variant `image_url`".
    let images = ["image", "vision", "multimodal", "mmproj"].iter().any(|k| lower.contains(k))
        && ["not support", "unsupported", "only supported", "unknown variant", "does not", "doesn't", "cannot", "can't"].iter().any(|k| lower.contains(k));
    let kind = match status {
        400 | 415 | 422 | 500 if images => HttpErrorKind::ImagesRefused,
        400 | 413 if overflow => HttpErrorKind::ContextOverflow,
        400 | 413 | 422 => HttpErrorKind::BadRequest,
        401 => HttpErrorKind::Unauthorized,
        403 => HttpErrorKind::Forbidden,
        404 => HttpErrorKind::NotFound,
        429 => HttpErrorKind::RateLimited,
        500..=599 => HttpErrorKind::Server,
        _ => HttpErrorKind::Other,
    };
    ChatError::Http { status, kind, message, retry_after: retry_after.and_then(parse_retry_after) }
}

/// Most attempts for one request (the first one included).
pub const MAX_ATTEMPTS: u32 = 4;

impl ChatError {
    /// How long to wait before attempt number `attempt + 1` (`attempt` counts
    /// from 1), or `None` when this error should not be retried: it is not a
    /// rate limit or server error, attempts are used up, or the server asks
    /// for too long a wait. The rule is `air_http::RetryPolicy`'s.
    pub fn retry_delay_ms(&self, attempt: u32) -> Option<u64> {
        let ChatError::Http { kind, retry_after, .. } = self else { return None };
        let policy = air_http::RetryPolicy { max_attempts: MAX_ATTEMPTS, ..Default::default() };
        policy.delay_ms(attempt, kind.retryable(), *retry_after)
    }
}

fn parse_retry_after(v: &str) -> Option<u64> {
    air_http::retry::parse_retry_after(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(e: &ChatError) -> HttpErrorKind {
        match e {
            ChatError::Http { kind, .. } => *kind,
            other => panic!("not http: {other:?}"),
        }
    }

    #[test]
    fn llama_cpp_context_overflow() {
        let body = r#"{"error":{"code":400,"message":"request (5031 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5031,"n_ctx":4096}}"#;
        let e = classify_http(400, body, None);
        assert_eq!(kind(&e), HttpErrorKind::ContextOverflow);
        assert!(e.to_string().contains("too long"), "{e}");
        assert!(e.to_string().contains("5031 tokens"), "{e}");
    }

    #[test]
    fn a_model_without_vision_refuses_images_and_is_not_retried() {
        // Recorded from llama.cpp's server (xllamacpp) with SmolLM2, which
        // has no mmproj, sent a user message with an image_url part.
        let llama = r#"{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}"#;
        let e = classify_http(500, llama, None);
        assert_eq!(kind(&e), HttpErrorKind::ImagesRefused);
        assert_eq!(e.retry_delay_ms(1), None, "asking again cannot help");
        assert!(e.to_string().contains("does not accept images"), "{e}");
        assert!(e.to_string().contains("mmproj"), "the provider's words are kept: {e}");
        let openai =
            r#"{"error":{"message":"Invalid content type. image_url is only supported by certain models.","type":"invalid_request_error","param":"messages.[0].content.[1].type","code":null}}"#;
        assert_eq!(kind(&classify_http(400, openai, None)), HttpErrorKind::ImagesRefused);
        let deepseek = r#"{"error":{"message":"Failed to deserialize the JSON body into the target type: messages[0]: unknown variant `image_url`, expected `text` at line 1 column 120","type":"invalid_request_error"}}"#;
        assert_eq!(kind(&classify_http(422, deepseek, None)), HttpErrorKind::ImagesRefused);
        // A server error that only mentions an image is still a server error.
        assert_eq!(kind(&classify_http(500, r#"{"error":{"message":"image cache full"}}"#, None)), HttpErrorKind::Server);
    }

    #[test]
    fn plain_bad_request_is_not_overflow() {
        let e = classify_http(400, r#"{"error":{"message":"temperature must be <= 2"}}"#, None);
        assert_eq!(kind(&e), HttpErrorKind::BadRequest);
    }

    #[test]
    fn unauthorized_keeps_provider_message() {
        let e = classify_http(401, r#"{"error":{"message":"Invalid API Key","type":"authentication_error","code":401}}"#, None);
        assert_eq!(kind(&e), HttpErrorKind::Unauthorized);
        assert!(e.to_string().contains("Invalid API Key"));
    }

    #[test]
    fn statuses_map_to_kinds() {
        assert_eq!(kind(&classify_http(403, "", None)), HttpErrorKind::Forbidden);
        assert_eq!(kind(&classify_http(404, "<html>nope</html>", None)), HttpErrorKind::NotFound);
        assert_eq!(kind(&classify_http(502, "Bad gateway", None)), HttpErrorKind::Server);
        assert_eq!(kind(&classify_http(418, "", None)), HttpErrorKind::Other);
        assert!(HttpErrorKind::Server.retryable() && !HttpErrorKind::NotFound.retryable());
    }

    #[test]
    fn html_bodies_are_not_quoted() {
        let e = classify_http(404, "<html><body>Not Found</body></html>", None);
        assert!(!e.to_string().contains("<html>"), "{e}");
    }

    #[test]
    fn model_lists() {
        let openai = r#"{"object":"list","data":[{"id":"gpt-4o","object":"model"},{"id":"gpt-4o-mini"}]}"#;
        assert_eq!(parse_model_list(openai), Ok(vec!["gpt-4o".into(), "gpt-4o-mini".into()]));
        let ollama = r#"{"models":[{"name":"llama3.2"}]}"#;
        assert_eq!(parse_model_list(ollama), Ok(vec!["llama3.2".into()]));
        assert!(parse_model_list("<html>").is_err());
        assert!(parse_model_list("{}").is_err());
    }

    #[test]
    fn messages_exist_in_chinese() {
        let e = classify_http(401, r#"{"error":{"message":"Invalid API Key"}}"#, None);
        assert_eq!(e.message(Lang::Zh), "API 密钥被拒绝，请在设置中检查密钥。 (HTTP 401: Invalid API Key)");
        assert!(e.message(Lang::En).starts_with("The API key was refused."));
    }

    #[test]
    fn cors_message_says_how_to_fix_it() {
        let e = ChatError::Cors { url: "https://x/v1/models".into() }.to_string();
        assert!(e.contains("Access-Control-Allow-Origin") && e.contains("Authorization"), "{e}");
    }

    #[test]
    fn retry_policy() {
        let limited = classify_http(429, "", Some("3"));
        assert_eq!(limited.retry_delay_ms(1), Some(3000));
        assert_eq!(limited.retry_delay_ms(MAX_ATTEMPTS), None, "attempts are used up");
        let server = classify_http(503, "", None);
        assert_eq!([1, 2, 3].map(|a| server.retry_delay_ms(a)), [Some(1000), Some(2000), Some(4000)]);
        assert_eq!(classify_http(429, "", Some("3600")).retry_delay_ms(1), None, "too long to wait");
        assert_eq!(classify_http(401, "", None).retry_delay_ms(1), None);
        assert_eq!(classify_http(400, "", None).retry_delay_ms(1), None);
        let net = ChatError::Network { url: "u".into(), detail: "d".into() };
        assert_eq!(net.retry_delay_ms(1), None, "a network/CORS failure is shown, not retried");
    }

    #[test]
    fn errors_are_stored_and_read_back() {
        let all = [
            classify_http(429, r#"{"error":{"message":"slow"}}"#, Some("3")),
            ChatError::Network { url: "u".into(), detail: "d".into() },
            ChatError::Cors { url: "u".into() },
            ChatError::Unexpected("x".into()),
            ChatError::Provider(crate::ProviderError { code: Some("c".into()), message: "m".into() }),
            ChatError::Interrupted { detail: None },
            ChatError::Other { text: "t".into() },
        ];
        for e in all {
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(serde_json::from_str::<ChatError>(&json).unwrap(), e, "{json}");
        }
        let stored = serde_json::to_string(&ChatError::Interrupted { detail: None }).unwrap();
        assert_eq!(stored, r#"{"kind":"interrupted","detail":{"detail":null}}"#);
        // Either order of the two keys; what is missing is said.
        let e: ChatError = serde_json::from_str(r#"{"detail":{"url":"u"},"kind":"cors"}"#).unwrap();
        assert_eq!(e, ChatError::Cors { url: "u".into() });
        let http: ChatError = serde_json::from_str(r#"{"kind":"http","detail":{"status":429,"kind":"rateLimited","retryAfter":3}}"#).unwrap();
        assert!(matches!(http, ChatError::Http { status: 429, kind: HttpErrorKind::RateLimited, message: None, retry_after: Some(3) }));
        assert!(serde_json::from_str::<ChatError>(r#"{"kind":"teapot"}"#).unwrap_err().to_string().contains("teapot"));
        assert!(serde_json::from_str::<ChatError>(r#"{"kind":"cors","detail":{}}"#).unwrap_err().to_string().contains("url"));
    }

    #[test]
    fn retry_after_seconds() {
        let e = classify_http(429, r#"{"error":{"message":"slow down"}}"#, Some("7"));
        assert!(matches!(e, ChatError::Http { retry_after: Some(7), kind: HttpErrorKind::RateLimited, .. }));
        let e = classify_http(429, "", Some("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert!(matches!(e, ChatError::Http { retry_after: None, .. }));
    }
}

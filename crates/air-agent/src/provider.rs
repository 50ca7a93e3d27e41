//! Talking to the configured provider outside a turn: the model list
//! (Settings' "Test & list models").

use air_chat::ChatError;
use air_chat::error::{classify_http, parse_model_list};
use air_http::{Abort, Body, HttpClient, HttpError, Request};
use air_store::Settings;

use crate::stream::auth_header;

/// `GET {base}/models`: the model ids the provider offers, or why not
/// (CORS told apart from a network failure, HTTP statuses classified).
pub async fn list_models<H: HttpClient>(http: &H, settings: &Settings) -> Result<Vec<String>, ChatError> {
    let url = settings.models_url();
    let mut request = Request::get(&url);
    if let Some((k, v)) = auth_header(settings) {
        request = request.header(k, v);
    }
    match http.send(request, &Abort::new()).await {
        Ok(r) if r.ok() => {
            let body = r.body.text().await.map_err(|e| ChatError::Unexpected(e.to_string()))?;
            parse_model_list(&body).map_err(ChatError::Unexpected)
        }
        Ok(r) => {
            let status = r.status;
            let retry_after = r.header("retry-after").map(str::to_owned);
            let body = r.body.text().await.unwrap_or_default();
            Err(classify_http(status, &body, retry_after.as_deref()))
        }
        Err(HttpError::Network(detail)) => Err(network_error(http, &url, detail).await),
        Err(e) => Err(ChatError::Unexpected(e.to_string())),
    }
}

/// A failed `fetch` is CORS if the server answers when CORS is not asked
/// for, a network failure otherwise.
pub async fn network_error<H: HttpClient>(http: &H, url: &str, detail: String) -> ChatError {
    if http.answers_without_cors(url).await {
        ChatError::Cors { url: url.to_owned() }
    } else {
        ChatError::Network { url: url.to_owned(), detail }
    }
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

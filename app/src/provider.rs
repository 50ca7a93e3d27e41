//! Talking to the configured provider outside of a chat: the model list and
//! the connection test, and telling a CORS failure from a network failure.

use air_chat::ChatError;
use air_chat::error::{classify_http, parse_model_list};
use air_store::Settings;
use air_web::{FetchError, http};

/// Turns a failed `fetch` into the right error: CORS if the server answers
/// when CORS is not asked for, network otherwise.
pub async fn network_error(url: &str, detail: String) -> ChatError {
    if http::answers_without_cors(url).await {
        ChatError::Cors { url: url.to_owned() }
    } else {
        ChatError::Network { url: url.to_owned(), detail }
    }
}

/// The `Authorization` header for these settings, if a key is set.
pub fn auth_header(settings: &Settings) -> Option<(&'static str, String)> {
    let key = settings.api_key.trim();
    (!key.is_empty()).then(|| ("Authorization", format!("Bearer {key}")))
}

/// `GET {base}/models`: the model ids the provider offers.
pub async fn list_models(settings: &Settings) -> Result<Vec<String>, ChatError> {
    let url = settings.models_url();
    let auth = auth_header(settings);
    let headers: Vec<(&str, &str)> = auth.iter().map(|(k, v)| (*k, v.as_str())).collect();
    match http::send("GET", &url, &headers, None, None).await {
        Ok(r) if r.ok() => {
            let body = r.text().await.map_err(|e| ChatError::Unexpected(e.to_string()))?;
            parse_model_list(&body).map_err(ChatError::Unexpected)
        }
        Ok(r) => {
            let status = r.status;
            let retry_after = r.header("retry-after");
            let body = r.text().await.unwrap_or_default();
            Err(classify_http(status, &body, retry_after.as_deref()))
        }
        Err(FetchError::Network(detail)) => Err(network_error(&url, detail).await),
        Err(e) => Err(ChatError::Unexpected(e.to_string())),
    }
}

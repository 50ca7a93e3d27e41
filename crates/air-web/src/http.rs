//! `fetch` with a streamed body and an abort handle.

use wasm_bindgen::{JsCast, JsValue};

use crate::{is_abort, js_text};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, ReadableStreamDefaultReader, Request, RequestInit, Response};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FetchError {
    /// `fetch` rejected: nothing answered, or CORS hid the answer.
    #[error("network error: {0}")]
    Network(String),
    /// The request was aborted through its [`Abort`] handle.
    #[error("aborted")]
    Aborted,
    #[error("{0}")]
    Other(String),
}

/// Cancels the request it was given to, including a body being read.
#[derive(Debug, Clone)]
pub struct Abort(AbortController);

impl Abort {
    pub fn new() -> Result<Self, FetchError> {
        AbortController::new().map(Self).map_err(|e| FetchError::Other(js_text(&e)))
    }

    pub fn abort(&self) {
        self.0.abort();
    }

    pub fn is_aborted(&self) -> bool {
        self.0.signal().aborted()
    }

    pub fn signal(&self) -> web_sys::AbortSignal {
        self.0.signal()
    }
}

/// A response whose body has not been read yet.
pub struct HttpResponse {
    pub status: u16,
    response: Response,
}

impl HttpResponse {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.response.headers().get(name).ok().flatten()
    }

    /// Reads the whole body as text (for error bodies and small JSON).
    pub async fn text(self) -> Result<String, FetchError> {
        let promise = self.response.text().map_err(|e| FetchError::Other(js_text(&e)))?;
        let v = JsFuture::from(promise).await.map_err(|e| map_reject(&e))?;
        Ok(v.as_string().unwrap_or_default())
    }

    /// The body as a stream of byte chunks.
    pub fn body(self) -> Result<BodyReader, FetchError> {
        let stream = self.response.body().ok_or_else(|| FetchError::Other("the response has no body".into()))?;
        let reader: ReadableStreamDefaultReader = stream.get_reader().dyn_into().map_err(|_| FetchError::Other("the body cannot be read as a stream".into()))?;
        Ok(BodyReader { reader, pending: None })
    }
}

fn map_reject(e: &JsValue) -> FetchError {
    if is_abort(e) { FetchError::Aborted } else { FetchError::Network(js_text(e)) }
}

/// At most this much of a body is copied into wasm memory at a time.
const PIECE: u32 = 64 * 1024;

/// Reads a response body chunk by chunk, as the network delivers it; a
/// large delivery (a fast server's whole answer at once) is handed out in
/// pieces of at most [`PIECE`] bytes, so what is decoded at a time stays
/// small.
pub struct BodyReader {
    reader: ReadableStreamDefaultReader,
    /// The rest of the last delivery, and how far it was handed out.
    pending: Option<(js_sys::Uint8Array, u32)>,
}

impl BodyReader {
    /// The next chunk, or `None` at the end of the body.
    pub async fn next(&mut self) -> Result<Option<Vec<u8>>, FetchError> {
        if self.pending.is_none() {
            let result = JsFuture::from(self.reader.read()).await.map_err(|e| map_reject(&e))?;
            let done = js_sys::Reflect::get(&result, &"done".into()).map(|d| d.is_truthy()).unwrap_or(true);
            if done {
                return Ok(None);
            }
            let value = js_sys::Reflect::get(&result, &"value".into()).map_err(|e| FetchError::Other(js_text(&e)))?;
            self.pending = Some((js_sys::Uint8Array::new(&value), 0));
        }
        let Some((bytes, from)) = self.pending.take() else { return Ok(None) };
        let to = bytes.length().min(from.saturating_add(PIECE));
        let piece = bytes.subarray(from, to).to_vec();
        if to < bytes.length() {
            self.pending = Some((bytes, to));
        }
        Ok(Some(piece))
    }
}

impl Drop for BodyReader {
    fn drop(&mut self) {
        // Stop the download if the reader is dropped before the end. The
        // promise rejects when the stream already failed (a server gone):
        // that is taken, not left as an unhandled rejection.
        let cancelled = JsFuture::from(self.reader.cancel());
        wasm_bindgen_futures::spawn_local(async move {
            let _ = cancelled.await;
        });
    }
}

/// Sends a request. `body` is JSON text; `None` sends a GET.
pub async fn send(method: &str, url: &str, headers: &[(&str, &str)], body: Option<&str>, abort: Option<&Abort>) -> Result<HttpResponse, FetchError> {
    let init = RequestInit::new();
    init.set_method(method);
    let h = web_sys::Headers::new().map_err(|e| FetchError::Other(js_text(&e)))?;
    for (k, v) in headers {
        h.set(k, v).map_err(|e| FetchError::Other(format!("header {k}: {}", js_text(&e))))?;
    }
    if let Some(body) = body {
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type")) {
            let _ = h.set("Content-Type", "application/json");
        }
        init.set_body(&JsValue::from_str(body));
    }
    init.set_headers(&h);
    // A request carrying a key follows no redirect (`air_http::Request::redirect`).
    let keyed = air_http::Request { method: method.to_owned(), url: String::new(), headers: headers.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(), body: None };
    let manual = keyed.redirect() == air_http::Redirect::Manual;
    if manual {
        init.set_redirect(web_sys::RequestRedirect::Manual);
    }
    if let Some(abort) = abort {
        init.set_signal(Some(&abort.0.signal()));
    }
    let request = Request::new_with_str_and_init(url, &init).map_err(|e| FetchError::Other(format!("invalid request to {url}: {}", js_text(&e))))?;
    // The in-browser provider's requests are answered in the page.
    let response: Response = if air_store::settings::is_in_browser(url) {
        crate::inpage::respond(&request).await.map_err(|e| map_reject(&e))?
    } else {
        let window = web_sys::window().ok_or_else(|| FetchError::Other("no window".into()))?;
        let response = JsFuture::from(window.fetch_with_request(&request)).await.map_err(|e| map_reject(&e))?;
        response.dyn_into().map_err(|_| FetchError::Other("fetch returned a non-Response".into()))?
    };
    if manual && response.type_() == web_sys::ResponseType::Opaqueredirect {
        return Err(FetchError::Other(air_http::REDIRECT_REFUSED.into()));
    }
    Ok(HttpResponse { status: response.status(), response })
}

/// After a failed `fetch`: whether anything answers at `url` when CORS is
/// not asked for (`mode: "no-cors"`). `true` means the server is up and the
/// failure was CORS; `false` means nothing answered (network, DNS, refused).
pub async fn answers_without_cors(url: &str) -> bool {
    let init = RequestInit::new();
    init.set_method("GET");
    init.set_mode(web_sys::RequestMode::NoCors);
    let Ok(request) = Request::new_with_str_and_init(url, &init) else { return false };
    let Some(window) = web_sys::window() else { return false };
    JsFuture::from(window.fetch_with_request(&request)).await.is_ok()
}

/// [`air_http::HttpClient`] on `fetch`: the body is read as the network
/// delivers it, and the [`air_http::Abort`] handle aborts the request (and
/// a body being read) through an `AbortController`.
#[derive(Debug, Clone, Copy, Default)]
pub struct FetchClient;

/// A `fetch` response body for [`FetchClient`].
pub struct FetchBody {
    response: Option<Response>,
    reader: Option<BodyReader>,
}

impl air_http::Body for FetchBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, air_http::HttpError> {
        if self.reader.is_none() {
            let Some(response) = self.response.take() else { return Ok(None) };
            let r = HttpResponse { status: response.status(), response }.body().map_err(to_http_error)?;
            self.reader = Some(r);
        }
        match self.reader.as_mut() {
            Some(r) => r.next().await.map_err(to_http_error),
            None => Ok(None),
        }
    }

    async fn text(mut self) -> Result<String, air_http::HttpError> {
        match self.response.take() {
            Some(response) => HttpResponse { status: response.status(), response }.text().await.map_err(to_http_error),
            None => Ok(String::new()),
        }
    }
}

fn to_http_error(e: FetchError) -> air_http::HttpError {
    match e {
        FetchError::Network(d) => air_http::HttpError::Network(d),
        FetchError::Aborted => air_http::HttpError::Aborted,
        FetchError::Other(d) => air_http::HttpError::Other(d),
    }
}

impl air_http::HttpClient for FetchClient {
    type Body = FetchBody;

    async fn send(&self, request: air_http::Request, abort: &air_http::Abort) -> Result<air_http::Response<FetchBody>, air_http::HttpError> {
        if abort.is_aborted() {
            return Err(air_http::HttpError::Aborted);
        }
        let controller = Abort::new().map_err(to_http_error)?;
        let c = controller.clone();
        abort.on_abort(move || c.abort());
        let headers: Vec<(&str, &str)> = request.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let r = send(&request.method, &request.url, &headers, request.body.as_deref(), Some(&controller)).await.map_err(to_http_error)?;
        let mut names = Vec::new();
        if let Ok(Some(iter)) = js_sys::try_iter(&r.response.headers()) {
            for entry in iter.flatten() {
                let pair = js_sys::Array::from(&entry);
                if let (Some(k), Some(v)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
                    names.push((k.to_ascii_lowercase(), v));
                }
            }
        }
        Ok(air_http::Response { status: r.status, headers: names, body: FetchBody { response: Some(r.response), reader: None } })
    }

    async fn answers_without_cors(&self, url: &str) -> bool {
        answers_without_cors(url).await
    }
}

//! Who the user is to a CouchDB server: nobody, HTTP Basic, or a session
//! cookie (`POST /_session`).
//!
//! In a browser the session cookie belongs to the browser: it keeps it
//! and sends it back when requests are made with `credentials: "include"`
//! (and the server's CORS allows credentials), so the client only logs in
//! and adds nothing. Elsewhere (tests, a command line) the cookie's value
//! is kept here and sent as a `Cookie` header.

use air_http::Request;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// How requests prove who sends them.
#[derive(Clone, Default, PartialEq, Eq)]
pub enum Auth {
    /// No credentials (a database open to anyone who reaches it).
    #[default]
    None,
    /// `Authorization: Basic …` on every request.
    Basic { user: String, password: String },
    /// A CouchDB session: `session` is the `AuthSession` cookie's value
    /// where it is visible (not in a browser, which keeps it itself).
    Cookie { session: Option<String> },
}

impl std::fmt::Debug for Auth {
    /// Never shows a password or a session.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::None => f.write_str("None"),
            Auth::Basic { user, .. } => write!(f, "Basic({user})"),
            Auth::Cookie { session } => write!(f, "Cookie({})", if session.is_some() { "kept" } else { "browser's" }),
        }
    }
}

impl Auth {
    /// The headers every request carries.
    pub fn headers(&self) -> Vec<(String, String)> {
        match self {
            Auth::None | Auth::Cookie { session: None } => Vec::new(),
            Auth::Basic { user, password } => vec![("Authorization".into(), format!("Basic {}", STANDARD.encode(format!("{user}:{password}"))))],
            Auth::Cookie { session: Some(s) } => vec![("Cookie".into(), format!("{SESSION_COOKIE}={s}"))],
        }
    }
}

/// The name of CouchDB's session cookie.
pub const SESSION_COOKIE: &str = "AuthSession";

/// The server a database URL is on: the URL without its last path
/// segment (`https://host/couch/db` → `https://host/couch`), where
/// `/_session` is.
pub fn server_of(db_url: &str) -> &str {
    let url = db_url.trim_end_matches('/');
    let path_start = url.find("://").map_or(0, |i| i + 3);
    match url[path_start..].rfind('/') {
        Some(i) => &url[..path_start + i],
        None => url,
    }
}

/// The request that logs in to the server of `db_url` (`POST /_session`
/// with `{name, password}`); a 200 answer sets the `AuthSession` cookie.
pub fn session_login(db_url: &str, name: &str, password: &str) -> Request {
    let body = serde_json::json!({"name": name, "password": password});
    Request::post_json(format!("{}/_session", server_of(db_url)), body.to_string()).header("Accept", "application/json")
}

/// The `AuthSession` value a `Set-Cookie` header sets, if it sets one.
pub fn session_cookie(set_cookie: &str) -> Option<String> {
    let start = set_cookie.find(&format!("{SESSION_COOKIE}="))? + SESSION_COOKIE.len() + 1;
    let value = set_cookie[start..].split([';', ',']).next()?.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_credentials_are_one_header_and_never_printed() {
        let auth = Auth::Basic { user: "alice".into(), password: "s3cret".into() };
        assert_eq!(auth.headers(), [("Authorization".to_owned(), "Basic YWxpY2U6czNjcmV0".to_owned())]);
        assert_eq!(format!("{auth:?}"), "Basic(alice)");
        assert!(Auth::Cookie { session: None }.headers().is_empty(), "the browser sends its own cookie");
        assert_eq!(Auth::Cookie { session: Some("abc".into()) }.headers(), [("Cookie".to_owned(), "AuthSession=abc".to_owned())]);
        assert!(!format!("{:?}", Auth::Cookie { session: Some("abc".into()) }).contains("abc"));
    }

    #[test]
    fn the_session_is_on_the_databases_server() {
        assert_eq!(server_of("https://h.test/db"), "https://h.test");
        assert_eq!(server_of("https://h.test/couch/db/"), "https://h.test/couch");
        assert_eq!(server_of("http://127.0.0.1:5984/chats"), "http://127.0.0.1:5984");
        let r = session_login("https://h.test/couch/db", "alice", "pw\"1");
        assert_eq!((r.method.as_str(), r.url.as_str()), ("POST", "https://h.test/couch/_session"));
        assert_eq!(r.body.as_deref(), Some(r#"{"name":"alice","password":"pw\"1"}"#));
    }

    #[test]
    fn the_session_cookie_is_read_from_set_cookie() {
        assert_eq!(session_cookie("AuthSession=YWxpY2U6NUY; Version=1; Path=/; HttpOnly").as_deref(), Some("YWxpY2U6NUY"));
        assert_eq!(session_cookie("other=1, AuthSession=x1; Path=/").as_deref(), Some("x1"));
        assert_eq!(session_cookie("AuthSession=; Path=/"), None);
        assert_eq!(session_cookie("theme=dark"), None);
    }
}

//! What can go wrong talking to a database, sorted by what the caller does
//! about it: ask the user to sign in again, try again later, or stop.

use air_http::HttpError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// 401 or 403: the credentials are missing, wrong or not enough. Ask
    /// the user again.
    #[error("not allowed: {0}")]
    Unauthorized(String),
    /// 404: the database (or a document that must exist) is not there.
    #[error("not found: {0}")]
    NotFound(String),
    /// 409: a write named a revision that is not the current one.
    #[error("conflict: {0}")]
    Conflict(String),
    /// The database refused one document of a batch (a validation
    /// function, a forbidden id…).
    #[error("the database refused {id}: {reason}")]
    Refused { id: String, reason: String },
    /// Any other status the server answered with; 5xx, 408 and 429 are
    /// worth retrying.
    #[error("the server answered {status}: {reason}")]
    Server { status: u16, reason: String },
    /// Nothing answered (offline, DNS, CORS hid the answer).
    #[error("network error: {0}")]
    Network(String),
    /// The answer was not what the protocol says (not JSON, wrong shape,
    /// a bad revision).
    #[error("malformed answer: {0}")]
    Malformed(String),
    /// The caller asked for something that cannot be done (a document
    /// without an `_id`, a URL that is not http(s), a request that could
    /// not be made).
    #[error("invalid request: {0}")]
    Invalid(String),
    /// Cancelled through the `Abort` handle.
    #[error("aborted")]
    Aborted,
}

impl Error {
    /// Whether the same call may succeed later without anything changing
    /// on this side (the network, or a server that is busy or failing).
    pub fn retryable(&self) -> bool {
        match self {
            Error::Network(_) => true,
            Error::Server { status, .. } => *status >= 500 || *status == 408 || *status == 429,
            _ => false,
        }
    }
}

impl From<HttpError> for Error {
    fn from(e: HttpError) -> Self {
        match e {
            HttpError::Network(d) => Error::Network(d),
            HttpError::Aborted => Error::Aborted,
            HttpError::Other(d) => Error::Invalid(d),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_worth_retrying() {
        let server = |status| Error::Server { status, reason: String::new() };
        for yes in [Error::Network("offline".into()), server(500), server(503), server(408), server(429)] {
            assert!(yes.retryable(), "{yes:?}");
        }
        for no in [server(400), Error::Unauthorized(String::new()), Error::Malformed(String::new()), Error::Aborted, Error::Conflict(String::new())] {
            assert!(!no.retryable(), "{no:?}");
        }
        assert_eq!(Error::from(HttpError::Aborted), Error::Aborted);
        assert_eq!(Error::from(HttpError::Other("too big".into())), Error::Invalid("too big".into()));
    }
}

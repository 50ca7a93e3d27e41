//! What Settings → Sync checks before it saves, so a first setup goes
//! right: a user and password written in the URL (`http://admin:pw@host/db`,
//! which a browser refuses to fetch) are taken out into their own fields,
//! the database's name follows CouchDB's rule, and a passphrase typed
//! twice matches (a typo on the device that creates the encrypted
//! database would lock every other device out).

use air_store::sync_meta::SyncSettings;

/// Why the form is not saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// Not an `http://` or `https://` address.
    NotHttp,
    /// No database name after the server's address.
    NoDatabase,
    /// The database name breaks CouchDB's rule: a lowercase letter first,
    /// then only lowercase letters, digits and `_$()+-/`.
    BadName,
    /// The passphrase and its confirmation differ.
    Mismatch,
}

fn decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b[i], hex) {
            (b'%', Some(x)) => {
                out.push(x);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `url` without a user and password written in it, and those
/// (percent-decoded; the password empty when only a user is written).
pub fn split_credentials(url: &str) -> (String, Option<(String, String)>) {
    let url = url.trim();
    let Some((scheme, rest)) = url.split_once("://") else { return (url.to_owned(), None) };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..end].rfind('@') else { return (url.to_owned(), None) };
    let (user, password) = rest[..at].split_once(':').unwrap_or((&rest[..at], ""));
    (format!("{scheme}://{}", &rest[at + 1..]), Some((decoded(user), decoded(password))))
}

/// Whether `name` is a database name CouchDB takes.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_$()+-/".contains(c))
}

/// What is wrong with `url` as a database's URL (none when empty: sync
/// is then off).
pub fn url_problem(url: &str) -> Option<Problem> {
    let (url, _) = split_credentials(url);
    if url.is_empty() {
        return None;
    }
    let Some(rest) = url.strip_prefix("https://").or(url.strip_prefix("http://")) else { return Some(Problem::NotHttp) };
    let path = rest.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
    match path.split_once('/') {
        Some((host, db)) if !host.is_empty() && !db.is_empty() => {
            let name = decoded(db.rsplit('/').next().unwrap_or(db));
            (!valid_name(&name)).then_some(Problem::BadName)
        }
        _ => Some(Problem::NoDatabase),
    }
}

/// The settings to save from the form (`form`, the passphrase typed again
/// in `confirm`; `saved`: as kept): a user and password in the URL taken
/// into their fields, and the passphrase marked confirmed when typed
/// twice (or unchanged since it was).
pub fn check(form: &SyncSettings, confirm: &str, saved: &SyncSettings) -> Result<SyncSettings, Problem> {
    let mut s = form.clone();
    let (url, credentials) = split_credentials(&s.url);
    s.url = url;
    if let Some((user, password)) = credentials {
        (s.user, s.password) = (user, password);
    }
    if let Some(p) = url_problem(&s.url) {
        return Err(p);
    }
    if !confirm.is_empty() && confirm != s.passphrase {
        return Err(Problem::Mismatch);
    }
    s.confirmed = !s.passphrase.is_empty() && (confirm == s.passphrase || (s.passphrase == saved.passphrase && s.url == saved.url && saved.confirmed));
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_and_password_in_the_url_go_to_their_fields_and_leave_it() {
        assert_eq!(split_credentials("http://admin:pw@127.0.0.1:5984/chats"), ("http://127.0.0.1:5984/chats".to_owned(), Some(("admin".to_owned(), "pw".to_owned()))));
        assert_eq!(split_credentials(" https://me:p%40ss%3Aw@couch.example/db "), ("https://couch.example/db".to_owned(), Some(("me".to_owned(), "p@ss:w".to_owned()))));
        assert_eq!(split_credentials("https://me@couch.example/db").1, Some(("me".to_owned(), String::new())));
        assert_eq!(split_credentials("https://couch.example/db?x=a@b"), ("https://couch.example/db?x=a@b".to_owned(), None), "an @ after the host is not a user");
        let form = SyncSettings { url: "http://admin:secret@host:5984/chats".into(), ..SyncSettings::default() };
        let s = check(&form, "", &SyncSettings::default()).unwrap();
        assert_eq!((s.url.as_str(), s.user.as_str(), s.password.as_str()), ("http://host:5984/chats", "admin", "secret"));
        assert!(!format!("{s:?}").contains("secret"));
    }

    #[test]
    fn the_database_name_follows_couchdbs_rule() {
        for ok in ["http://h:5984/chats", "https://h/couch/my_db-2", "https://h/a$b(c)+d", "https://h/team%2Fchats", "http://a:b@h/chats/", ""] {
            assert_eq!(url_problem(ok), None, "{ok}");
        }
        assert_eq!(url_problem("https://h/Chats"), Some(Problem::BadName));
        assert_eq!(url_problem("https://h/2chats"), Some(Problem::BadName));
        assert_eq!(url_problem("https://h/my.chats"), Some(Problem::BadName));
        assert_eq!(url_problem("https://h:5984"), Some(Problem::NoDatabase));
        assert_eq!(url_problem("https://h:5984/"), Some(Problem::NoDatabase));
        assert_eq!(url_problem("couch.example/chats"), Some(Problem::NotHttp));
        assert!(valid_name("a") && !valid_name("") && !valid_name("_users"));
    }

    #[test]
    fn a_passphrase_typed_twice_must_match_and_is_then_confirmed() {
        let form = SyncSettings { url: "https://h/chats".into(), passphrase: "correct horse".into(), ..SyncSettings::default() };
        let none = SyncSettings::default();
        assert_eq!(check(&form, "correct hose", &none), Err(Problem::Mismatch));
        assert!(check(&form, "correct horse", &none).unwrap().confirmed);
        assert!(!check(&form, "", &none).unwrap().confirmed, "not typed twice: a new database waits for it");
        let saved = check(&form, "correct horse", &none).unwrap();
        assert!(check(&form, "", &saved).unwrap().confirmed, "saved again unchanged: still confirmed");
        let other = SyncSettings { passphrase: "another".into(), ..form.clone() };
        assert!(!check(&other, "", &saved).unwrap().confirmed, "another passphrase is not");
        assert!(!check(&SyncSettings { passphrase: String::new(), ..form }, "", &none).unwrap().confirmed);
    }
}

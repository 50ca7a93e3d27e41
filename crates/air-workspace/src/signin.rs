//! Signing in to MCP servers that ask for it (OAuth, `air-servers`).
//!
//! A server's client says when the server refused it and no refresh got
//! past ([`Action::Asked`]): the server waits for a sign-in, and the page
//! shows so. The user's click starts one ([`Action::Start`]; the platform
//! opens its window within the click, while the click still counts), one
//! per server at a time. Signed in, the servers connect again, and a
//! sign-in started from the add form connects the form again. A sign-in
//! that took the whole page (no window) is finished at start, and the add
//! form it left comes back. Signing out forgets the server's tokens: it
//! waits for a sign-in again.

use air_servers::add::Draft;
use air_servers::credentials::{Asked, SignInError};
use air_store::keys::{MCP_ADD_DRAFT, OAUTH_PENDING, OAUTH_RETURN};

use crate::servers::Action as Servers;
use crate::{Command, Missing, Notice, Platform, Update, Workspace};

/// A sign-in that took the whole page, come back: its server and outcome.
pub type SignInReturn = (String, Result<(), SignInError>);

/// What the user (or a server's client) does.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Sign in to the server at `url`, with the client id the user entered
    /// (if any); `form`: started from the add form (it is kept, in case
    /// the whole page goes, and connects again after).
    Start { url: String, client_id: Option<String>, form: Option<Draft> },
    /// The server at `url` refused its client, which could not refresh
    /// past it: it waits for a sign-in.
    Asked { url: String, asked: Asked },
    /// Forget the server's tokens.
    SignOut(String),
    /// The server's tokens are forgotten (or its part could not be
    /// fetched).
    SignedOut { url: String, result: Result<(), Missing> },
    /// A sign-in ended (`Err`: its part could not be fetched).
    Ended { url: String, form: Option<Draft>, result: Result<Result<(), SignInError>, Missing> },
    /// A sign-in that took the whole page came back: its server and its
    /// outcome (`None`: what was kept of it could not be read).
    Returned(Result<Option<SignInReturn>, Missing>),
}

/// Where a sign-in started here stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Running,
    Done,
    Failed(SignInError),
}

/// What the page shows of the sign-ins: the servers (by URL) that wait
/// for one, and how the sign-ins started here went. (A few servers: kept
/// in lists, which cost the first load less than maps.)
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SignIns {
    pub asked: Vec<(String, Asked)>,
    pub outcomes: Vec<(String, Outcome)>,
}

/// Sets `url`'s value in `list`.
fn put<T>(list: &mut Vec<(String, T)>, url: String, value: T) {
    list.retain(|(u, _)| *u != url);
    list.push((url, value));
}

fn get<'a, T>(list: &'a [(String, T)], url: &str) -> Option<&'a T> {
    list.iter().find(|(u, _)| u == url.trim()).map(|(_, v)| v)
}

impl SignIns {
    /// The server at `url` waits for a sign-in.
    pub fn needed(&self, url: &str) -> bool {
        get(&self.asked, url).is_some()
    }

    /// How the last sign-in started here to the server at `url` went.
    pub fn outcome(&self, url: &str) -> Option<&Outcome> {
        get(&self.outcomes, url)
    }

    pub fn running(&self, url: &str) -> bool {
        self.outcome(url) == Some(&Outcome::Running)
    }
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Start { url, client_id, form } => start(w, url.trim().to_owned(), client_id, form),
        Action::Asked { url, asked } => {
            put(&mut w.sign_ins.asked, url.trim().to_owned(), asked);
            publish(w);
        }
        Action::SignOut(url) => {
            let url = url.trim().to_owned();
            let forgetting = w.p.forget_sign_in(&url);
            w.spawn(async move { Some(Command::SignIn(Action::SignedOut { url, result: forgetting.await })) });
        }
        // Said once the tokens are gone.
        Action::SignedOut { url, result: Ok(()) } => {
            w.sign_ins.outcomes.retain(|(u, _)| *u != url);
            put(&mut w.sign_ins.asked, url, Asked::default());
            publish(w);
        }
        Action::SignedOut { result: Err(Missing), .. } => w.emit(Update::Notice(Notice::PartMissing)),
        Action::Ended { url, form, result } => ended(w, url, form, result),
        Action::Returned(result) => returned(w, result),
    }
}

/// At start: a sign-in that took the whole page is finished.
pub(crate) fn resume<P: Platform>(w: &mut Workspace<P>) {
    let kv = w.p.kv();
    let (Some(pending), Some(callback)) = (OAUTH_PENDING.get_opt(kv), OAUTH_RETURN.get_opt(kv)) else {
        return;
    };
    let _ = OAUTH_PENDING.remove(kv);
    let _ = OAUTH_RETURN.remove(kv);
    let finishing = w.p.finish_sign_in(pending, callback);
    w.spawn(async move { Some(Command::SignIn(Action::Returned(finishing.await))) });
}

fn start<P: Platform>(w: &mut Workspace<P>, url: String, client_id: Option<String>, form: Option<Draft>) {
    if w.sign_ins.running(&url) {
        return;
    }
    let client_id = client_id.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty());
    if let Some(d) = &form {
        // Kept in case the whole page goes to sign in: the form comes back.
        let _ = MCP_ADD_DRAFT.set(w.p.kv(), &Some((d.name.clone(), d.url.clone(), d.auth.clone())));
    }
    let asked = get(&w.sign_ins.asked, &url).cloned().unwrap_or_default();
    put(&mut w.sign_ins.outcomes, url.clone(), Outcome::Running);
    publish(w);
    let signing_in = w.p.sign_in(url.clone(), client_id, asked);
    w.spawn(async move { Some(Command::SignIn(Action::Ended { url, form, result: signing_in.await })) });
}

fn ended<P: Platform>(w: &mut Workspace<P>, url: String, form: Option<Draft>, result: Result<Result<(), SignInError>, Missing>) {
    // The page is on its way to the sign-in: what was kept stays.
    if matches!(result, Ok(Err(SignInError::Redirected))) {
        return;
    }
    if form.is_some() {
        let _ = MCP_ADD_DRAFT.remove(w.p.kv());
    }
    match result {
        Ok(Ok(())) => {
            signed_in(w, url);
            match form {
                Some(draft) => crate::servers::handle(w, Servers::Add(draft)),
                None => crate::servers::handle(w, Servers::Connect),
            }
        }
        Ok(Err(e)) => {
            put(&mut w.sign_ins.outcomes, url, Outcome::Failed(e));
            publish(w);
        }
        Err(Missing) => {
            w.sign_ins.outcomes.retain(|(u, _)| *u != url);
            publish(w);
            w.emit(Update::Notice(Notice::PartMissing));
        }
    }
}

fn returned<P: Platform>(w: &mut Workspace<P>, result: Result<Option<SignInReturn>, Missing>) {
    let (url, outcome) = match result {
        Ok(Some(back)) => back,
        Ok(None) => return,
        Err(Missing) => return w.emit(Update::Notice(Notice::PartMissing)),
    };
    // The add form it was started from comes back (and connects again).
    let form = MCP_ADD_DRAFT.get_opt(w.p.kv()).flatten();
    let _ = MCP_ADD_DRAFT.remove(w.p.kv());
    let ok = outcome.is_ok();
    match outcome {
        Ok(()) => {
            signed_in(w, url);
            crate::servers::handle(w, Servers::Connect);
        }
        Err(e) => {
            put(&mut w.sign_ins.outcomes, url, Outcome::Failed(e.clone()));
            publish(w);
            w.emit(Update::Notice(Notice::SignInFailed(e)));
        }
    }
    if let Some((name, url, auth)) = form {
        w.emit(Update::AddFormBack(Draft { name, url, auth, ..Draft::default() }));
        if ok {
            w.emit(Update::OpenSettings);
        }
    }
}

fn signed_in<P: Platform>(w: &mut Workspace<P>, url: String) {
    w.sign_ins.asked.retain(|(u, _)| *u != url);
    put(&mut w.sign_ins.outcomes, url, Outcome::Done);
    publish(w);
}

fn publish<P: Platform>(w: &mut Workspace<P>) {
    let view = w.sign_ins.clone();
    w.emit(Update::SignIns(Box::new(view)));
}

#[cfg(test)]
#[path = "signin_tests.rs"]
mod tests;

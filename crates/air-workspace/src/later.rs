//! The features a first visit does not use, routed once their code is
//! here: signing in to servers, the provider's model lists, the models
//! this page runs itself, the composer's pickers, the HTTP tools and sync.
//! The page fetches [`route`] with the first command for any of them
//! ([`crate::Platform::later`]); until then the core holds those commands,
//! in order, and hands them over once it is here (or says the part is
//! missing and drops them).

use crate::{Command, Later, Notice, Platform, Update, Workspace};

impl<P: Platform> Workspace<P> {
    /// Hands `cmd` to [`later::route`], fetched first if need be (the
    /// commands that come meanwhile wait behind it).
    pub(crate) fn later(&mut self, cmd: Later) {
        if let Some(route) = self.route.get() {
            return route(self, cmd);
        }
        self.held.push_back(cmd);
        if !self.fetching_later {
            self.fetching_later = true;
            let mut fetching = self.p.later();
            // Here already (fetched before, or never split off): at once.
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            if let std::task::Poll::Ready(got) = fetching.as_mut().poll(&mut cx) {
                self.route.set(got.ok());
                return self.later_fetched();
            }
            let route = self.route.clone();
            self.spawn(async move {
                route.set(fetching.await.ok());
                Some(Command::LaterFetched)
            });
        }
    }

    pub(crate) fn later_fetched(&mut self) {
        self.fetching_later = false;
        let held = std::mem::take(&mut self.held);
        match self.route.get() {
            Some(route) => held.into_iter().for_each(|cmd| route(self, cmd)),
            None if !held.is_empty() => self.emit(Update::Notice(Notice::PartMissing)),
            None => {}
        }
    }
}

/// Handles a command of the features fetched on first use.
pub fn route<P: Platform>(w: &mut Workspace<P>, cmd: Later) {
    match cmd {
        Later::SignIn(action) => crate::signin::handle(w, action),
        Later::Models(action) => crate::models::handle(w, action),
        Later::BrowserModels(action) => crate::browser_models::handle(w, action),
        Later::Pickers(action) => crate::pickers::handle(w, action),
        Later::HttpTools(action) => crate::http_tools::handle(w, action),
        Later::Sync(action) => crate::sync::handle(w, action),
    }
}

#[cfg(test)]
#[path = "later_tests.rs"]
mod tests;

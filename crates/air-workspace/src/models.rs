//! The model provider's models: the lists the top bar's picker offers
//! (asked once per provider and key), and Settings → Test (does the
//! provider answer, and does it have the model named? When the page
//! cannot read its answer, the doctor finds out why).

use air_chat::ChatError;
use air_store::Settings;
use air_store::settings::ModelLists;

use crate::servers::Action as Servers;
use crate::{Command, Missing, Notice, Platform, Update, Workspace};

#[derive(Debug)]
pub enum Action {
    /// The picker is focused: the models of the provider `settings` use.
    Want(Box<Settings>),
    /// Settings → Test, with the settings as drafted.
    Test(Box<Settings>),
    /// The models of provider `source` (its URL, and whether a key went).
    Listed { source: (String, bool), result: Result<Result<Vec<String>, ChatError>, Missing> },
    /// What the test `ticket` found.
    Tested { ticket: u64, settings: Box<Settings>, result: Result<Result<Vec<String>, ChatError>, Missing> },
}

/// Where Settings → Test stands.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Test {
    #[default]
    Idle,
    Running,
    /// The provider listed `models`; the model named is not among them
    /// (`missing`).
    Listed {
        models: Vec<String>,
        missing: Option<String>,
    },
    Failed(ChatError),
}

#[derive(Debug, Default)]
pub(crate) struct Models {
    lists: ModelLists,
    ticket: u64,
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Want(settings) => {
            let source = settings.models_source();
            if w.models.lists.start(&source) {
                let listing = w.p.list_models(*settings);
                w.spawn(async move { Some(Command::Models(Action::Listed { source, result: listing.await })) });
            }
        }
        Action::Listed { source, result } => {
            w.models.lists.answered(source, result.ok().and_then(Result::ok));
            let lists = w.models.lists.clone();
            w.emit(Update::ModelLists(lists));
        }
        Action::Test(settings) => {
            w.models.ticket += 1;
            let ticket = w.models.ticket;
            w.emit(Update::ProviderTest(Test::Running));
            let listing = w.p.list_models((*settings).clone());
            w.spawn(async move { Some(Command::Models(Action::Tested { ticket, settings, result: listing.await })) });
        }
        Action::Tested { ticket, settings, result } if ticket == w.models.ticket => tested(w, &settings, result),
        Action::Tested { .. } => {}
    }
}

fn tested<P: Platform>(w: &mut Workspace<P>, settings: &Settings, result: Result<Result<Vec<String>, ChatError>, Missing>) {
    let test = match result {
        Ok(Ok(models)) => {
            let model = settings.model.trim();
            let missing = (!model.is_empty() && !models.iter().any(|m| m == model)).then(|| model.to_owned());
            Test::Listed { models, missing }
        }
        Ok(Err(e)) => {
            // The page could not read an answer: find out why.
            if matches!(e, ChatError::Network { .. } | ChatError::Cors { .. }) {
                let (base_url, model, has_key) = (settings.base_url.clone(), settings.model.clone(), !settings.api_key.trim().is_empty());
                crate::servers::handle(w, Servers::DiagnoseProvider { base_url, model, has_key });
            }
            Test::Failed(e)
        }
        Err(Missing) => {
            w.emit(Update::Notice(Notice::PartMissing));
            Test::Idle
        }
    };
    w.emit(Update::ProviderTest(test));
}

#[cfg(test)]
#[path = "models_tests.rs"]
mod tests;

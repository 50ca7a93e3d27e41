//! The one place the app runs the workspace core (`air-workspace`): it
//! hands it commands ([`dispatch`]), turns its updates into signals
//! (`apply`), runs its tasks and arms its one timer. `browser` is the page
//! as the core's platform; `parts` are the lazily fetched parts the
//! platform's heavier calls run in.

mod apply;
pub mod apps;
mod browser;
pub mod drawn;
pub mod env;
pub mod http_tools;
pub mod inpage;
pub mod lazy;
mod live;
pub(crate) mod mcp;
pub(crate) mod oauth;
mod parts;
pub mod state;
pub mod store;
mod sync;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use air_web::LocalStorageKv;
use air_workspace::{Command, Edges, Workspace};
use leptos::prelude::Set;
use leptos::task::spawn_local;

use self::state::AppState;
use self::store::AnyStore;
pub use browser::Browser;
pub use parts::{attach_files, warm_prefs, warm_turn};

thread_local! {
    static CORE: RefCell<Option<Workspace<Browser>>> = const { RefCell::new(None) };
    /// Commands that came while one was being handled.
    static QUEUE: RefCell<VecDeque<Command>> = const { RefCell::new(VecDeque::new()) };
    static HANDLING: Cell<bool> = const { Cell::new(false) };
    /// The deadline the one timer is armed for.
    static ARMED: Cell<Option<f64>> = const { Cell::new(None) };
    /// The newest session is opening at start-up.
    static STARTING: Cell<bool> = const { Cell::new(false) };
    /// Object URLs of stored images already shown, by file id (a message
    /// drawn again shows its images at once).
    static FILE_URLS: RefCell<std::collections::HashMap<String, String>> = RefCell::new(std::collections::HashMap::new());
    /// Fetches the conversation view (the views give it at start).
    static WARM_CHAT_VIEW: Cell<Option<fn()>> = const { Cell::new(None) };

}

/// Starts the core: the preferences are read (the page's state starts
/// from them; a UI language never picked follows the browser's), the
/// store opens and the list's first page is read. `warm_chat_view`
/// fetches the conversation view (a session is about to open).
pub fn start(warm_chat_view: fn()) -> AppState {
    let (mut prefs, unreadable) = air_workspace::prefs::Prefs::load(&LocalStorageKv);
    prefs.settings.language.follow(&self::env::languages());
    let state = AppState::init(&prefs);
    state.set_dispatcher(dispatch);
    WARM_CHAT_VIEW.with(|w| w.set(Some(warm_chat_view)));
    let browser = Browser { state, kv: LocalStorageKv, store: Rc::default(), http: self::env::Http::default() };
    CORE.with(|c| *c.borrow_mut() = Some(Workspace::with_prefs(Rc::new(browser), prefs, unreadable)));
    dispatch(state, Command::Start);
    state
}

/// Every tool a user can set a policy for, as the core assembles a turn's
/// tools (none before the core started).
pub fn policy_defs() -> Vec<air_tools::ToolDef> {
    CORE.with(|c| c.try_borrow().ok().and_then(|core| core.as_ref().map(Workspace::policy_defs)).unwrap_or_default())
}

/// Hands the core a command (queued if one is being handled), then
/// applies what it says.
pub fn dispatch(state: AppState, cmd: Command) {
    QUEUE.with(|q| q.borrow_mut().push_back(cmd));
    if HANDLING.with(|h| h.replace(true)) {
        return;
    }
    while let Some(cmd) = QUEUE.with(|q| q.borrow_mut().pop_front()) {
        CORE.with(|c| {
            if let Some(core) = c.borrow_mut().as_mut() {
                core.handle(cmd);
            }
        });
        pump(state);
    }
    HANDLING.with(|h| h.set(false));
}

/// Applies the updates, starts the tasks and arms the timer.
fn pump(state: AppState) {
    loop {
        let (update, task) = CORE.with(|c| c.borrow_mut().as_mut().map_or((None, None), |core| (core.poll_update(), core.poll_task())));
        if update.is_none() && task.is_none() {
            break;
        }
        if let Some(u) = update {
            apply::apply(state, u);
        }
        if let Some(task) = task {
            spawn_local(async move {
                if let Some(cmd) = task.0.await {
                    dispatch(state, cmd);
                }
            });
        }
    }
    arm(state);
}

fn arm(state: AppState) {
    let Some(at) = CORE.with(|c| c.borrow().as_ref().and_then(Workspace::poll_timeout)) else { return };
    if ARMED.with(|a| a.get()).is_some_and(|armed| armed <= at) {
        return;
    }
    ARMED.with(|a| a.set(Some(at)));
    let wait = (at - self::env::now_ms()).max(0.0) as u64;
    self::env::after(wait, move || {
        ARMED.with(|a| a.set(None));
        CORE.with(|c| {
            if let Some(core) = c.borrow_mut().as_mut() {
                core.handle_timeout(self::env::now_ms());
            }
        });
        dispatch_nothing(state);
    });
}

/// Applies what a timer changed.
fn dispatch_nothing(state: AppState) {
    if !HANDLING.with(|h| h.replace(true)) {
        pump(state);
        HANDLING.with(|h| h.set(false));
    }
}

/// The store the core opened.
fn store() -> Option<Rc<AnyStore>> {
    CORE.with(|c| c.borrow().as_ref().and_then(|core| core.platform().store()))
}

/// Gives `done` an object URL for the stored file `id`, or `None` when it
/// is not stored.
pub fn file_url(id: String, done: impl Fn(Option<String>) + 'static) {
    if let Some(url) = FILE_URLS.with(|m| m.borrow().get(&id).cloned()) {
        return done(Some(url));
    }
    let Some(store) = store() else { return done(None) };
    spawn_local(async move {
        let url = store.file_url(&id).await;
        if let Some(u) = &url {
            FILE_URLS.with(|m| m.borrow_mut().insert(id, u.clone()));
        }
        done(url);
    });
}

/// Saves the stored file `id` to the user's machine as `name` (nothing
/// when it is not stored).
pub fn download_file(id: String, name: String) {
    let Some(store) = store() else { return };
    spawn_local(async move {
        if let Some(blob) = store.file_blob(&id).await {
            let _ = air_web::download_blob(&name, &blob);
        }
    });
}

/// Reads the text of the first of `files` (chosen, dropped or pasted),
/// if it is at most `max` bytes, and hands it to `done` (`Ok(None)`: there
/// was none).
pub fn read_text(files: Vec<leptos::web_sys::File>, max: usize, done: impl FnOnce(Result<Option<String>, String>) + 'static) {
    spawn_local(async move {
        let Some(file) = files.first() else { return done(Ok(None)) };
        if file.size() > max as f64 {
            return done(Err(format!("{} is {} KB: more than the {} KB this takes", file.name(), (file.size() / 1024.0).round(), max / 1024)));
        }
        let read = air_web::read_file(file).await.and_then(|f| String::from_utf8(f.bytes).map_err(|_| format!("{} is not a text file", f.name)));
        done(read.map(Some));
    });
}

/// Imports the export files chosen in an `<input type=file>`: JSON, the
/// parts of a split export, or another app's ZIP (the core reads them
/// into the store).
pub fn import_chosen(state: AppState, event: leptos::ev::Event) {
    let files = air_web::event_files(&event);
    if files.is_empty() {
        return;
    }
    state.shell.import_failed.set(false);
    state.shell.import_result.set(Some(state.t().import_reading.to_owned()));
    spawn_local(async move {
        let failed = match browser::part(parts::read_exports(files)).await {
            Ok(Ok((texts, left_out))) => return dispatch(state, Command::Data(air_workspace::data::Action::Import { texts, left_out })),
            Ok(Err(e)) => state.t().import_failed.replace("{e}", &e),
            Err(air_workspace::Missing) => state.t().part_missing.to_owned(),
        };
        state.shell.import_failed.set(true);
        state.shell.import_result.set(Some(failed));
    });
}

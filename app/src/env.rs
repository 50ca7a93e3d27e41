//! The browser as the rest of the app sees it: the one place in `app/`
//! that reads the clock, makes ids, sets timers or sends HTTP requests. A
//! turn gets it as its `air_agent::Env`; views and state use the helpers
//! below. (A tidy test keeps it that way.)

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use air_agent::{Approval, Env, Event};
use air_chat::ChatError;
use air_store::conversation::TemplateVars;
use air_store::{MessageRecord, Settings};
use air_tools::ToolDef;
use air_tools::policy::Policy;
use air_web::FetchClient;
use futures_channel::oneshot;
use leptos::prelude::*;

use crate::state::AppState;
use crate::store::AnyStore;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> f64 {
    air_web::now_ms()
}

/// Runs `f` after `ms` milliseconds.
pub fn after(ms: u64, f: impl FnOnce() + 'static) {
    set_timeout(f, std::time::Duration::from_millis(ms));
}

/// Local date (`YYYY-MM-DD`) and time (`HH:MM`).
pub fn local_date_time() -> (String, String) {
    air_web::local_date_time()
}

/// `GET {base}/models` through `fetch`.
pub async fn list_models(settings: &Settings) -> Result<Vec<String>, ChatError> {
    air_agent::provider::list_models(&FetchClient, settings).await
}

/// The browser as a turn sees it.
pub struct BrowserEnv {
    pub(crate) state: AppState,
    store: Rc<AnyStore>,
    http: FetchClient,
}

thread_local! {
    /// Approvals being waited for, by tool message id.
    static APPROVALS: RefCell<HashMap<String, oneshot::Sender<Approval>>> = RefCell::new(HashMap::new());
}

/// Answers the approval question of a tool card.
pub fn answer_approval(state: AppState, record_id: &str, approval: Approval) {
    if let Some(tx) = APPROVALS.with(|a| a.borrow_mut().remove(record_id)) {
        let _ = tx.send(approval);
    }
    state.awaiting.update(|ids| ids.retain(|id| id != record_id));
}

impl BrowserEnv {
    pub fn new(state: AppState, store: Rc<AnyStore>) -> Self {
        Self { state, store, http: FetchClient }
    }
}

impl Env for BrowserEnv {
    type Http = FetchClient;
    type Store = AnyStore;

    fn http(&self) -> &FetchClient {
        &self.http
    }
    fn store(&self) -> &AnyStore {
        &self.store
    }
    fn now_ms(&self) -> f64 {
        air_web::now_ms()
    }
    fn new_id(&self) -> String {
        air_web::new_id()
    }
    async fn sleep(&self, ms: u64) {
        air_web::sleep(ms).await;
    }
    fn template_vars(&self) -> TemplateVars {
        let (date, time) = local_date_time();
        TemplateVars { date, time, locale: air_web::locale() }
    }
    fn emit(&self, event: Event) {
        crate::chat::apply(self.state, event);
    }
    fn in_history(&self, m: &MessageRecord) -> bool {
        // An answer still streaming in another tab (incomplete, and not
        // shown here) is not part of the conversation yet.
        let remote = self.state.remote_streams.with_untracked(|r| r.contains(&m.id));
        !remote && (!m.incomplete || self.state.messages.with_untracked(|l| l.iter().any(|l| l.id == m.id)))
    }
    fn is_deleted(&self, session_id: &str) -> bool {
        self.state.pending_delete.with_untracked(|p| p.as_ref().is_some_and(|p| p.id == session_id))
    }
    async fn approve(&self, record: &MessageRecord, _tool: &ToolDef) -> Approval {
        let (tx, rx) = oneshot::channel();
        APPROVALS.with(|a| a.borrow_mut().insert(record.id.clone(), tx));
        self.state.awaiting.update(|ids| ids.push(record.id.clone()));
        rx.await.unwrap_or(Approval::Deny)
    }
    fn always_allow(&self, tool: &ToolDef) {
        let mut settings = self.state.settings.get_untracked();
        settings.tool_policies.set_tool(&tool.name, Some(Policy::Allow));
        self.state.save_settings(settings);
    }
}


//! The HTTP tools as the page shows them: the saved list, the add form's
//! outcome, where an OpenAPI import stands (the core's updates, as
//! signals), and the add form read into a definition.

use air_http_tools::{ArgsIn, Header, HttpTool, Method};
use air_workspace::Command;
use air_workspace::Update as Up;
use air_workspace::http_tools::{Action, Importing, Source};
use leptos::prelude::*;

use super::state::AppState;

/// The core's updates about the HTTP tools.
pub(super) fn apply(state: AppState, u: Up) {
    let s = state.prefs.http_tools;
    match u {
        Up::HttpTools(list) => s.list.set(list),
        Up::HttpToolSaved => {
            s.error.set(None);
            s.saved.update(|n| *n += 1);
        }
        Up::HttpImport(import) => s.import.set(import),
        _ => {}
    }
}

/// A tool was not saved: said on the form, and as a notice.
pub(super) fn refused(state: AppState, why: String) {
    state.prefs.http_tools.error.set(Some(why.clone()));
    state.shell.notice.set(Some(state.t().http_tool_refused.replace("{e}", &why)));
}

/// The add form, as typed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Form {
    pub name: String,
    pub description: String,
    /// `GET`, `POST`…
    pub method: String,
    pub url: String,
    pub schema: String,
    /// (name, value, secret); rows with no name are left out.
    pub headers: Vec<(String, String, bool)>,
    /// `auto`, `body` or `query`.
    pub args_in: String,
}

impl Form {
    pub fn empty() -> Self {
        Self { method: "GET".into(), schema: "{\n  \"type\": \"object\",\n  \"properties\": {}\n}".into(), args_in: "auto".into(), ..Self::default() }
    }

    /// The definition typed, or why it cannot be read (the core checks
    /// the rest when it is saved).
    pub fn tool(&self, state: AppState) -> Result<HttpTool, String> {
        let input_schema = serde_json::from_str(&self.schema).map_err(|e| state.t().http_tool_bad_schema.replace("{e}", &e.to_string()))?;
        let headers = self.headers.iter().filter(|(n, _, _)| !n.trim().is_empty()).map(|(n, v, secret)| Header { name: n.trim().to_owned(), value: v.clone(), secret: *secret }).collect();
        let args_in = match self.args_in.as_str() {
            "body" => ArgsIn::Body,
            "query" => ArgsIn::Query,
            _ => ArgsIn::Auto,
        };
        Ok(HttpTool {
            name: self.name.trim().to_owned(),
            description: self.description.trim().to_owned(),
            input_schema,
            method: Method::parse(&self.method).unwrap_or(Method::Get),
            url: self.url.trim().to_owned(),
            headers,
            args_in,
            query: Vec::new(),
            body_arg: None,
        })
    }
}

/// Saves the form's tool (the core checks it; a bad one is said).
pub fn add(state: AppState, form: &Form) {
    match form.tool(state) {
        Ok(tool) => state.dispatch(Command::HttpTools(Action::Add(Box::new(tool)))),
        Err(why) => state.prefs.http_tools.error.set(Some(why)),
    }
}

pub fn switch(state: AppState, name: String, on: bool) {
    state.dispatch(Command::HttpTools(Action::Switch { name, on }));
}

pub fn remove(state: AppState, name: String) {
    state.dispatch(Command::HttpTools(Action::Remove(name)));
}

/// Reads an OpenAPI document: `text` pasted, else fetched from `url`.
pub fn import(state: AppState, text: String, url: String) {
    let source = if text.trim().is_empty() { Source::Url(url) } else { Source::Text(text) };
    state.dispatch(Command::HttpTools(Action::Import(source)));
}

/// Saves the candidates named in `picked`.
pub fn save_picked(state: AppState, picked: &[String]) {
    let tools = state.prefs.http_tools.import.with_untracked(|i| match i {
        Importing::Ready(imported) => imported.tools.iter().filter(|c| picked.contains(&c.tool.name)).map(|c| c.tool.clone()).collect(),
        _ => Vec::new(),
    });
    state.dispatch(Command::HttpTools(Action::AddPicked(tools)));
}

pub fn close_import(state: AppState) {
    state.dispatch(Command::HttpTools(Action::CloseImport));
}

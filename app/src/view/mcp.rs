//! Settings → MCP servers: the list (tools, on/off, remove) and adding one.

use leptos::prelude::*;

use crate::i18n::t;
use crate::state::use_app;

/// Result of the last "Connect & add".
#[derive(Clone, PartialEq)]
enum AddState {
    Idle,
    Adding,
    Added(String, usize),
    Failed(String),
}

#[component]
pub fn McpServers() -> impl IntoView {
    let state = use_app();
    let name = RwSignal::new(String::new());
    let url = RwSignal::new(String::new());
    let auth = RwSignal::new(String::new());
    let adding = RwSignal::new(AddState::Idle);
    let add = move |_| {
        let (n, u, a) = (name.get_untracked(), url.get_untracked(), auth.get_untracked());
        let headers = if a.trim().is_empty() { Vec::new() } else { vec![("Authorization".to_owned(), a.trim().to_owned())] };
        adding.set(AddState::Adding);
        let shown = n.trim().to_owned();
        crate::mcp::add_server(state, n, u, headers, move |r| {
            adding.set(match r {
                Ok(count) => AddState::Added(shown.clone(), count),
                Err(e) => AddState::Failed(e),
            });
            if matches!(adding.get_untracked(), AddState::Added(..)) {
                name.set(String::new());
                url.set(String::new());
                auth.set(String::new());
            }
        });
    };
    let rows = move || {
        state.prefs.mcp_servers.get().into_iter().map(|s| {
            let n1 = s.name.clone();
            let n2 = s.name.clone();
            let count = s.tools.len();
            view! {
                <div class="mcp-row" data-testid="mcp-server">
                    <div class="mcp-what">
                        <strong data-testid="mcp-server-name">{s.name.clone()}</strong>
                        <code class="muted">{s.url.clone()}</code>
                        <span class="muted" data-testid="mcp-server-tools">{move || t().mcp_tools_count.replace("{n}", &count.to_string())}</span>
                    </div>
                    <label class="check">
                        <input type="checkbox" data-testid="mcp-server-enabled" prop:checked=s.enabled
                            on:change=move |ev| crate::mcp::set_enabled(state, &n1, event_target_checked(&ev))/>
                        {move || t().mcp_enabled}
                    </label>
                    <button type="button" data-testid="mcp-server-remove" on:click=move |_| crate::mcp::remove_server(state, &n2)>{move || t().mcp_remove}</button>
                </div>
            }
        }).collect_view()
    };
    view! {
        <fieldset data-testid="mcp-servers">
            <legend>{move || t().mcp_servers}</legend>
            <Show when=move || state.prefs.mcp_servers.with(Vec::is_empty)>
                <p class="hint">{move || t().mcp_none}</p>
            </Show>
            {rows}
            <div class="row">
                <label>{move || t().mcp_name}
                    <input data-testid="mcp-name" autocomplete="off" prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))/>
                </label>
                <label>{move || t().mcp_url}
                    <input data-testid="mcp-url" autocomplete="off" placeholder="https://example.com/mcp" prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/>
                </label>
            </div>
            <label>{move || t().mcp_auth}
                <input data-testid="mcp-auth" autocomplete="off" placeholder="Bearer …" prop:value=move || auth.get() on:input=move |ev| auth.set(event_target_value(&ev))/>
            </label>
            <div class="row">
                <button type="button" data-testid="mcp-add" disabled=move || adding.get() == AddState::Adding on:click=add>
                    {move || if adding.get() == AddState::Adding { t().mcp_adding } else { t().mcp_add }}
                </button>
            </div>
            <p class="hint" role="status" data-testid="mcp-add-result">{move || match adding.get() {
                AddState::Idle | AddState::Adding => String::new(),
                AddState::Added(s, n) => t().mcp_added.replace("{s}", &s).replace("{n}", &n.to_string()),
                AddState::Failed(e) => t().mcp_failed.replace("{e}", &e),
            }}</p>
        </fieldset>
    }
}

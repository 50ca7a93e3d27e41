//! Settings → tool policies: allow / ask / deny for each tool, and for
//! all the tools of an MCP server.

use air_store::Settings;
use air_tools::policy::Policy;
use leptos::prelude::*;

use crate::binding::state::use_app;
use crate::i18n::{t, tl};

/// "default", "allow", "ask" or "deny" → the policy it sets.
fn policy_of(value: &str) -> Option<Policy> {
    match value {
        "allow" => Some(Policy::Allow),
        "ask" => Some(Policy::Ask),
        "deny" => Some(Policy::Deny),
        _ => None,
    }
}

/// A select of default / allow / ask / deny.
fn policy_select(
    testid: String,
    current: impl Fn() -> Option<Policy> + Clone + Send + Sync + 'static,
    default_label: impl Fn() -> String + Send + Sync + 'static,
    set: impl Fn(Option<Policy>) + 'static,
) -> impl IntoView {
    let option = {
        let current = current.clone();
        move |value: &'static str, p: Option<Policy>, label: fn(&crate::i18n::Text) -> &'static str| {
            let current = current.clone();
            view! { <option value=value selected=move || current() == p>{move || label(t())}</option> }
        }
    };
    view! {
        <select data-testid=testid on:change=move |ev| set(policy_of(&event_target_value(&ev)))>
            <option value="default" selected=move || current().is_none()>{default_label}</option>
            {option("allow", Some(Policy::Allow), |t| t.policy_allow)}
            {option("ask", Some(Policy::Ask), |t| t.policy_ask)}
            {option("deny", Some(Policy::Deny), |t| t.policy_deny)}
        </select>
    }
}

/// Allow / ask / deny for each tool, and for all the tools of an MCP
/// server; "default" follows the server's choice, else the tool's hints.
#[component]
pub(super) fn ToolPolicies(draft: RwSignal<Settings>) -> impl IntoView {
    let state = use_app();
    let rows = move || {
        // Every tool a turn could be offered, as the core assembles them
        // (drawn again when the servers or the HTTP tools change).
        let servers: Vec<_> = state.prefs.mcp_servers.with(|l| l.iter().filter(|s| s.enabled).cloned().collect());
        state.prefs.http_tools.list.track();
        let defs = crate::binding::policy_defs();
        let tool_row = move |def: air_tools::ToolDef| {
            let name = def.name.clone();
            let default = air_tools::policy::default_policy(&def);
            let (d1, d2) = (def.clone(), def.clone());
            view! {
                <label class="policy-row">
                    <code class="iso">{air_render::visible(&name).into_owned()}</code>
                    {policy_select(
                        format!("policy-{name}"),
                        move || draft.with(|d| d.tool_policies.get(&d1)),
                        move || default_text(default),
                        move |p| draft.update(|d| d.tool_policies.set(&d2, p)),
                    )}
                </label>
            }
        };
        let built_in: Vec<_> = defs.iter().filter(|d| d.source == air_tools::ToolSource::BuiltIn).cloned().map(tool_row).collect();
        let http: Vec<_> = defs.iter().filter(|d| d.source == air_tools::ToolSource::Http).cloned().map(tool_row).collect();
        let http = (!http.is_empty()).then(|| view! { <div class="policy-server" data-testid="policy-http"><strong>{move || t().http_tools}</strong>{http}</div> });
        let per_server = servers
            .iter()
            .map(|server| {
                let tools: Vec<_> = defs.iter().filter(|d| matches!(&d.source, air_tools::ToolSource::Mcp { server: s } if *s == server.name)).cloned().map(tool_row).collect();
                let count = tools.len();
                let (s1, s2) = (server.id.clone(), server.id.clone());
                view! {
                    <div class="policy-server" data-testid="policy-server">
                        <label class="policy-row">
                            <strong class="iso">{air_render::visible(&server.name).into_owned()}</strong>
                            {policy_select(
                                format!("server-policy-{}", server.name),
                                move || draft.with(|d| d.tool_policies.servers.get(&s1).copied()),
                                move || tl().policy_server_default.to_owned(),
                                move |p| draft.update(|d| d.tool_policies.set_server(&s2, p)),
                            )}
                        </label>
                        <details class="policy-tools">
                            <summary>{move || t().mcp_tools_count.replace("{n}", &count.to_string())}</summary>
                            {tools}
                        </details>
                    </div>
                }
            })
            .collect_view();
        view! { {built_in}{http}{per_server} }
    };
    view! {
        <div class="policies" data-testid="tool-policies">
            <div class="muted">{move || tl().policies_title}</div>
            {rows}
        </div>
    }
}

fn default_text(default: Policy) -> String {
    let t = t();
    let which = match default {
        Policy::Allow => t.policy_allow,
        Policy::Ask => t.policy_ask,
        Policy::Deny => t.policy_deny,
    };
    t.policy_default.replace("{p}", which)
}

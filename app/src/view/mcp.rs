//! Settings → MCP servers: the list (tools, on/off, remove) and adding one.

use air_servers::ServerState;
use air_servers::add::{AddFlow, Draft, Stage};
use air_store::mcp::McpServer;
use air_workspace::Command;
use air_workspace::servers::{Action, SyncFailure};
use air_workspace::signin::{Action as SignIn, Outcome, SignIns};
use leptos::prelude::*;

use super::mcp_import::{Form, McpImport};
use crate::binding::state::{AppState, use_app};
use crate::i18n::{t, tl};

/// "Re-synced: 1 updated, 2 added, 1 gone, 9 unchanged."
fn synced_text(text: &air_i18n::Text, c: air_store::mcp::SyncCounts) -> String {
    text.mcp_synced.replace("{u}", &c.updated.to_string()).replace("{a}", &c.added.to_string()).replace("{g}", &c.gone.to_string()).replace("{k}", &c.unchanged.to_string())
}

/// Where the saved server `name` stands (tracked).
fn server_state(state: AppState, name: &str) -> ServerState {
    let (enabled, url) = state.prefs.mcp_servers.with(|l| l.iter().find(|s| s.name == name).map(|s| (s.enabled, s.url.trim().to_owned()))).unwrap_or_default();
    let sign_in = state.prefs.sign_ins.with(|m| m.needed(&url));
    state.prefs.mcp_status.with(|m| ServerState::of(enabled, m.get(name), sign_in))
}

/// How the last sign-in started here to the server at `url` failed, in
/// words.
fn sign_in_failure(state: AppState, s: &SignIns, url: &str) -> Option<String> {
    match s.outcome(url) {
        Some(Outcome::Failed(e)) => Some(state.t().mcp_sign_in_failed.replace("{e}", &crate::binding::oauth::failure_text(state, e))),
        _ => None,
    }
}

/// `off`, `connecting`, `reconnecting`, `connected`, `sign-in` or `failed`.
pub fn status_key(state: AppState, server: &str) -> &'static str {
    server_state(state, server).key()
}

/// Where a server's session stands, in words (empty before any attempt).
pub fn status_text(state: AppState, server: &str) -> String {
    let t = t();
    match server_state(state, server) {
        ServerState::Off => String::new(),
        ServerState::Connecting => t.mcp_status_connecting.to_owned(),
        ServerState::Reconnecting => t.mcp_status_reconnecting.to_owned(),
        ServerState::Ready { version } => t.mcp_status_connected.replace("{v}", &version),
        ServerState::NeedsSignIn => t.mcp_sign_in_needed.to_owned(),
        ServerState::Failed { reason } => t.mcp_status_failed.replace("{e}", &reason),
    }
}

pub(crate) use air_servers::add::Doctor;

/// A finding in the language of the moment.
fn explain(f: &air_doctor::Finding) -> String {
    use air_doctor::Finding;
    let t = tl();
    match f {
        Finding::MixedContent => t.doctor_mixed.to_owned(),
        Finding::PrivateNetwork => t.doctor_private.to_owned(),
        Finding::Unreachable { detail } => t.doctor_unreachable.replace("{d}", detail),
        Finding::OriginRefused => t.doctor_origin.to_owned(),
        Finding::PreflightRefused => t.doctor_preflight.to_owned(),
        Finding::HeaderNotAllowed(h) => t.doctor_header.replace("{h}", h),
        Finding::HeaderNotExposed(h) => t.doctor_hidden.replace("{h}", h),
        Finding::Fine => f.explain(),
    }
}

/// The snippets to paste for a finding (the server's address, its headers).
pub(crate) type Snippets = fn(&air_doctor::Finding, &str, &[String]) -> Vec<(&'static str, String)>;

/// What the connectivity doctor found, with the snippets to paste; `fix`
/// picks the snippets for the kind of server (MCP or model provider).
pub(crate) fn doctor_report(doctor: Doctor, fix: Snippets, headers: Vec<String>) -> Option<AnyView> {
    match doctor {
        Doctor::Idle => None,
        Doctor::Probing => Some(view! { <p class="muted" data-testid="doctor-probing">{move || tl().doctor_probing}</p> }.into_any()),
        Doctor::Found(air_doctor::Finding::Fine) => None,
        Doctor::Found(f) => {
            let origin = air_web::page_origin().unwrap_or_default();
            let fixes = fix(&f, &origin, &headers);
            Some(
                view! {
                    <div class="doctor" data-testid="doctor">
                        <p data-testid="doctor-finding">{explain(&f)}</p>
                        {(!fixes.is_empty()).then(|| view! { <p class="muted">{move || tl().doctor_fix}</p> })}
                        {fixes.into_iter().map(|(stack, code)| view! {
                            <details data-testid="doctor-snippet">
                                <summary>{stack}</summary>
                                <pre><code>{code}</code></pre>
                            </details>
                        }).collect_view()}
                    </div>
                }
                .into_any(),
            )
        }
    }
}

/// The user accepts `tool` of server `name` as it is now (the settings
/// being edited follow: `prefs::rebase`).
fn accept(state: AppState, name: &str, tool: &str) {
    state.servers(Action::Accept { server: name.to_owned(), tool: tool.to_owned() });
}

/// A saved server's trust in its own read-only hints, and the tools that
/// wait for the user: new ones, and ones changed since accepted (with what
/// changed).
#[component]
fn ToolReview(server: McpServer) -> impl IntoView {
    let state = use_app();
    let name = StoredValue::new(server.name.clone());
    let waiting: Vec<_> = server
        .tools
        .iter()
        .filter(|t| t.awaits_review())
        .map(|tool| {
            let what = if tool.pending { tl().mcp_tool_new } else { tl().mcp_tool_changed };
            let change = tool.accepted.as_deref().map(|old| super::tool_card::change_view(Some(old), &tool.face()));
            let tool_name = tool.name.clone();
            view! {
                <div class="mcp-review-tool" data-testid="mcp-review-tool">
                    <code class="iso">{air_render::visible(&tool.name).into_owned()}</code>" "<span class="muted">{what}</span>" "
                    <span class="muted">{tool.description.clone()}</span>
                    <button type="button" data-testid=format!("mcp-accept-{}", tool.name)
                        on:click=move |_| accept(state, &name.get_value(), &tool_name)>{move || tl().mcp_accept}</button>
                    {change}
                </div>
            }
        })
        .collect::<Vec<_>>();
    let any = !waiting.is_empty();
    view! {
        <div class="mcp-extra">
            <label class="check mcp-trust">
                <input type="checkbox" data-testid="mcp-trust-hints" prop:checked=server.trust_hints
                    on:change=move |ev| state.servers(Action::SetTrustHints { name: name.get_value(), on: event_target_checked(&ev) })/>
                {move || tl().mcp_trust_hints}
            </label>
            {any.then(|| view! { <div class="mcp-review" data-testid="mcp-review"><span>{move || tl().mcp_review}</span>{waiting}</div> })}
        </div>
    }
}

/// The last re-sync's outcome, by server, in words (kept apart from the
/// rows, which are rebuilt when the list changes).
fn sync_notes(state: AppState) -> RwSignal<Option<(String, String)>> {
    let note = RwSignal::new(None::<(String, String)>);
    state.prefs.resynced.set(None);
    Effect::new(move |_| {
        if let Some((name, result)) = state.prefs.resynced.get() {
            let text = match result {
                Ok(c) => synced_text(state.t(), c),
                Err(SyncFailure::NotHttp) => state.tl().mcp_need_name_url.to_owned(),
                Err(SyncFailure::Failed(e)) => state.tl().mcp_sync_failed.replace("{e}", &e),
            };
            note.set(Some((name, text)));
        }
    });
    note
}

/// Connects to the server the add form names.
fn connect_form(state: AppState, form: Form) {
    let draft = Draft { name: form.name.get_untracked(), url: form.url.get_untracked(), auth: form.auth.get_untracked(), headers: form.headers.get_untracked() };
    state.servers(Action::Add(draft));
}

#[component]
pub fn McpServers() -> impl IntoView {
    let state = use_app();
    let name = RwSignal::new(String::new());
    let url = RwSignal::new(String::new());
    let auth = RwSignal::new(String::new());
    let form = Form { name, url, auth, headers: RwSignal::new(Vec::new()) };
    // A form opened afresh says nothing of an earlier one.
    state.servers(Action::Cancel);
    // A client id for the server's sign-in, where it registers no clients.
    let client_id = RwSignal::new(String::new());
    // Back from a sign-in that took the whole page: the form as it was,
    // connecting again.
    if let Some(d) = state.prefs.add_form_back.try_update(Option::take).flatten() {
        name.set(d.name);
        url.set(d.url);
        auth.set(d.auth);
        form.headers.set(d.headers);
        connect_form(state, form);
    }
    let sync_note = sync_notes(state);
    let rows = move || state.prefs.mcp_servers.get().into_iter().map(|s| view! { <McpServerRow server=s sync_note=sync_note/> }).collect_view();
    view! {
        <fieldset data-testid="mcp-servers">
            <legend>{move || t().mcp_servers}</legend>
            <Show when=move || state.prefs.mcp_servers.with(Vec::is_empty)>
                <p class="hint">{move || tl().mcp_none}</p>
            </Show>
            {rows}
            <div class="row">
                <label>{move || tl().mcp_name}
                    <input data-testid="mcp-name" autocomplete="off" prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))/>
                </label>
                <label>{move || tl().mcp_url}
                    <input data-testid="mcp-url" autocomplete="off" placeholder="https://example.com/mcp" prop:value=move || url.get()
                        on:input=move |ev| {
                            url.set(event_target_value(&ev));
                            // An imported entry's headers are for its address only.
                            form.headers.set(Vec::new());
                        }/>
                </label>
            </div>
            <label>{move || tl().mcp_auth}
                <input data-testid="mcp-auth" autocomplete="off" placeholder="Bearer …" prop:value=move || auth.get() on:input=move |ev| auth.set(event_target_value(&ev))/>
            </label>
            {move || form.headers.with(|h| (!h.is_empty()).then(|| {
                let names = h.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ");
                view! { <p class="hint" data-testid="mcp-form-headers">{tl().mcp_import_headers.replace("{h}", &names)}</p> }
            }))}
            <McpPicks form=form/>
            <McpAddResult url=url/>
            <McpSignIn name=name url=url auth=auth client_id=client_id/>
            <McpImport form=form connect=Callback::new(move |()| connect_form(state, form))/>
        </fieldset>
    }
}

/// A saved server: its URL, tools and status, and what can be done with it.
#[component]
fn McpServerRow(server: McpServer, sync_note: RwSignal<Option<(String, String)>>) -> impl IntoView {
    let state = use_app();
    let n1 = server.name.clone();
    let n2 = server.name.clone();
    let n3 = server.name.clone();
    let live = server.tools.iter().filter(|t| t.offered()).count();
    let gone = server.tools.iter().filter(|t| t.gone).count();
    let review = server.tools.iter().filter(|t| t.awaits_review()).count();
    let off = server.tools.iter().filter(|t| t.disabled && !t.gone).count();
    let url = RwSignal::new(server.url.clone());
    let saved_headers = air_servers::add::headers_text(&server.headers);
    let headers = RwSignal::new(saved_headers.clone());
    let n4 = server.name.clone();
    let n5 = server.name.clone();
    let n6 = server.name.clone();
    let resync = move |_| {
        // Outside a reactive scope: the texts come from the state.
        let name = n3.clone();
        // Headers only when edited (a moved URL otherwise leaves them).
        let edited = headers.get_untracked();
        let headers = match (edited != saved_headers).then(|| air_servers::add::parse_headers(&edited)) {
            Some(Err(why)) => return sync_note.set(Some((name, state.tl().mcp_not_a_header.replace("{n}", &why.line.to_string())))),
            Some(Ok(h)) => Some(h),
            None => None,
        };
        sync_note.set(Some((name.clone(), state.tl().mcp_syncing.to_owned())));
        state.servers(Action::Resync { name, url: url.get_untracked(), headers });
    };
    view! {
        <div class="mcp-row" data-testid="mcp-server">
            <div class="mcp-what">
                <strong class="iso" data-testid="mcp-server-name">{air_render::visible(&server.name).into_owned()}</strong>
                <input class="mcp-url" data-testid="mcp-server-url" autocomplete="off" prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/>
                <span class="muted" data-testid="mcp-server-tools">{move || {
                    let mut text = t().mcp_tools_count.replace("{n}", &live.to_string());
                    if gone > 0 {
                        text.push_str(&tl().mcp_tools_gone.replace("{n}", &gone.to_string()));
                    }
                    if review > 0 {
                        text.push_str(&tl().mcp_tools_review.replace("{n}", &review.to_string()));
                    }
                    if off > 0 {
                        text.push_str(&tl().mcp_tools_off.replace("{n}", &off.to_string()));
                    }
                    text
                }}</span>
                <span class="mcp-status" data-testid="mcp-server-status" data-state=move || status_key(state, &n5)>{move || status_text(state, &n6)}</span>
                <span class="muted" role="status" data-testid="mcp-sync-result">{move || {
                    sync_note.with(|n| n.as_ref().filter(|(s, _)| *s == n4).map(|(_, text)| text.clone()).unwrap_or_default())
                }}</span>
                <super::summarizer::SummaryFailure server=server.name.clone()/>
            </div>
            <label class="check">
                <input type="checkbox" data-testid="mcp-server-enabled" prop:checked=server.enabled
                    on:change=move |ev| state.servers(Action::SetEnabled { name: n1.clone(), on: event_target_checked(&ev) })/>
                {move || tl().mcp_enabled}
            </label>
            <button type="button" data-testid="mcp-server-resync" on:click=resync>{move || tl().mcp_resync}</button>
            <McpServerSignIn url=url/>
            <button type="button" data-testid="mcp-server-remove" on:click=move |_| state.servers(Action::Remove(n2.clone()))>{move || tl().mcp_remove}</button>
            <details class="mcp-headers" data-testid="mcp-server-headers">
                <summary>{move || tl().mcp_headers}</summary>
                <textarea data-testid="mcp-server-headers-input" rows="3" autocomplete="off" spellcheck="false"
                    prop:value=move || headers.get() on:input=move |ev| headers.set(event_target_value(&ev))></textarea>
                <p class="hint">{move || tl().mcp_headers_hint}</p>
            </details>
            <ToolReview server=server.clone()/>
            <ToolSwitches server=server.clone()/>
        </div>
    }
}

/// A switch for each tool the server offers (and the user accepted):
/// one switched off is kept, with its policy, but never offered.
#[component]
fn ToolSwitches(server: McpServer) -> impl IntoView {
    let state = use_app();
    let rows = server
        .tools
        .iter()
        .filter(|t| !t.gone && !t.pending)
        .map(|tool| {
            let (name, server) = (tool.name.clone(), server.name.clone());
            let testid = format!("mcp-tool-on-{name}");
            view! {
                <label class="check mcp-pick" data-testid="mcp-tool-switch">
                    <input type="checkbox" data-testid=testid prop:checked=!tool.disabled
                        on:change=move |ev| state.servers(Action::SetToolEnabled { server: server.clone(), tool: name.clone(), on: event_target_checked(&ev) })/>
                    <code class="iso">{air_render::visible(&tool.name).into_owned()}</code>
                </label>
            }
        })
        .collect_view();
    view! {
        <details class="mcp-tool-switches" data-testid="mcp-tool-switches">
            <summary>{move || tl().mcp_tool_switches}</summary>
            {rows}
        </details>
    }
}

/// A saved server's sign-in (when it asks for one, and how it failed), and sign-out.
#[component]
fn McpServerSignIn(url: RwSignal<String>) -> impl IntoView {
    let state = use_app();
    view! {
        <Show when=move || state.prefs.sign_ins.with(|m| m.needed(&url.get()))>
            <button type="button" class="primary" data-testid="mcp-server-sign-in" on:click=move |_| {
                state.dispatch(Command::SignIn(SignIn::Start { url: url.get_untracked(), client_id: None, form: None }));
            }>{move || t().mcp_sign_in}</button>
        </Show>
        {move || state.prefs.sign_ins.with(|m| sign_in_failure(state, m, &url.get())).map(|e| view! { <span class="error-text" role="alert" data-testid="mcp-server-sign-in-error">{e}</span> })}
        <Show when=move || {
            // (Re-read when a sign-in starts or ends.)
            state.prefs.sign_ins.with(|m| !m.needed(&url.get())) && crate::binding::oauth::signed_in(&url.get())
        }>
            <button type="button" data-testid="mcp-server-sign-out" title=move || tl().mcp_sign_out_hint
                on:click=move |_| state.dispatch(Command::SignIn(SignIn::SignOut(url.get_untracked())))>{move || tl().mcp_sign_out}</button>
        </Show>
    }
}

/// Add; then the new server's tools to pick, its trust in hints, Save and Cancel.
#[component]
fn McpPicks(form: Form) -> impl IntoView {
    let state = use_app();
    let flow = state.prefs.add_flow;
    let connect = move |_| connect_form(state, form);
    let save = move |_| {
        state.servers(Action::Save);
        form.name.set(String::new());
        form.url.set(String::new());
        form.auth.set(String::new());
        form.headers.set(Vec::new());
    };
    let cancel = move |_| {
        state.servers(Action::Cancel);
        form.headers.set(Vec::new());
    };
    let picking = move || flow.with(|f| f.stage == Stage::Picking);
    let connecting = move || flow.with(|f| f.stage == Stage::Connecting);
    let pick_list = move || {
        flow.with(AddFlow::offered)
            .into_iter()
            .map(|(tool, description)| {
                let t1 = tool.clone();
                let t2 = tool.clone();
                view! {
                    <label class="check mcp-pick" data-testid="mcp-pick">
                        <input type="checkbox" data-testid=format!("mcp-pick-{tool}")
                            prop:checked=move || flow.with(|f| f.picked.contains(&t1))
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                state.servers(Action::Pick { tool: t2.clone(), on });
                            }/>
                        <span><code>{tool.clone()}</code>" "<span class="muted">{description}</span></span>
                    </label>
                }
            })
            .collect_view()
    };
    view! {
        <Show
            when=picking
            fallback=move || view! {
                <div class="row">
                    <button type="button" data-testid="mcp-add" disabled=connecting on:click=connect>
                        {move || if connecting() { tl().mcp_adding } else { tl().mcp_add }}
                    </button>
                </div>
            }
        >
            <div data-testid="mcp-picks">
                <p class="hint">{move || tl().mcp_pick}</p>
                <div class="mcp-picks">{pick_list}</div>
                <label class="check">
                    <input type="checkbox" data-testid="mcp-add-trust-hints" prop:checked=move || flow.with(|f| f.trust_hints)
                        on:change=move |ev| state.servers(Action::TrustNew(event_target_checked(&ev)))/>
                    {move || tl().mcp_trust_hints}
                </label>
                <div class="row">
                    <button type="button" class="primary" data-testid="mcp-save" on:click=save>
                        {move || tl().mcp_save.replace("{n}", &flow.with(|f| f.picked.len()).to_string())}
                    </button>
                    <button type="button" data-testid="mcp-cancel" on:click=cancel>{move || t().cancel}</button>
                </div>
            </div>
        </Show>
    }
}

/// The server at `url` asked for a sign-in (tracked).
fn sign_in_needed(state: AppState, url: RwSignal<String>) -> bool {
    state.prefs.sign_ins.with(|s| s.needed(&url.get()))
}

/// How adding the server went, and what the connectivity doctor found.
#[component]
fn McpAddResult(url: RwSignal<String>) -> impl IntoView {
    let state = use_app();
    let flow = state.prefs.add_flow;
    let needs_sign_in = move || sign_in_needed(state, url);
    view! {
        <p class="hint add-result" role="status" data-testid="mcp-add-result">{move || match flow.with(|f| f.stage.clone()) {
            Stage::Idle | Stage::Connecting | Stage::Picking => String::new(),
            Stage::Added { name, kept } => tl().mcp_added.replace("{s}", &name).replace("{n}", &kept.to_string()),
            Stage::Incomplete => tl().mcp_failed.replace("{e}", tl().mcp_need_name_url),
            // A sign-in is offered below instead.
            Stage::Failed(_) if needs_sign_in() => String::new(),
            Stage::Failed(e) => tl().mcp_failed.replace("{e}", &e),
        }}</p>
        {move || {
            let headers: Vec<String> = ["MCP-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID", "Mcp-Method", "Mcp-Name", "Authorization"].iter().map(|h| (*h).to_owned()).collect();
            doctor_report(flow.with(|f| f.doctor.clone()), |f, origin, headers| f.fix(origin, headers), headers)
        }}
        {move || doctor_bridge(flow.with(|f| f.doctor.clone()), &url.get())}
    }
}

/// For a server on this computer whose CORS keeps the page out: the
/// bridge line that makes it usable.
fn doctor_bridge(doctor: Doctor, url: &str) -> Option<AnyView> {
    use air_doctor::Finding;
    let Doctor::Found(Finding::OriginRefused | Finding::PreflightRefused | Finding::HeaderNotAllowed(_) | Finding::HeaderNotExposed(_)) = doctor else { return None };
    let origin = air_web::page_origin().unwrap_or_default();
    let line = air_mcp_config::bridge::relay(url, air_mcp_config::bridge::Shell::Posix, &origin, air_mcp_config::plan::port(1))?;
    let copied = line.text.clone();
    Some(
        view! {
            <div class="doctor" data-testid="doctor-bridge">
                <p>{tl().doctor_bridge.replace("{u}", &air_render::visible(&line.url))}</p>
                <code class="iso" data-testid="doctor-bridge-line">{air_render::visible(&line.shown).into_owned()}</code>
                <button type="button" data-testid="doctor-bridge-copy" on:click=move |_| air_web::copy_text(&copied)>{move || tl().mcp_import_copy}</button>
            </div>
        }
        .into_any(),
    )
}

/// The server asked for a sign-in: after it, the form connects again.
#[component]
fn McpSignIn(name: RwSignal<String>, url: RwSignal<String>, auth: RwSignal<String>, client_id: RwSignal<String>) -> impl IntoView {
    let state = use_app();
    let needs_sign_in = move || sign_in_needed(state, url);
    let signing_in = move || state.prefs.sign_ins.with(|s| s.running(&url.get()));
    let sign_in_error = move || state.prefs.sign_ins.with(|s| sign_in_failure(state, s, &url.get()));
    let sign_in = move |_| {
        let form = Draft { name: name.get_untracked(), url: url.get_untracked(), auth: auth.get_untracked(), ..Draft::default() };
        state.dispatch(Command::SignIn(SignIn::Start { url: form.url.clone(), client_id: Some(client_id.get_untracked()), form: Some(form) }));
    };
    view! {
        <Show when=needs_sign_in>
            <div class="row" data-testid="mcp-sign-in-needed">
                <span class="muted">{move || t().mcp_sign_in_needed}</span>
                <button type="button" class="primary" data-testid="mcp-sign-in" disabled=signing_in on:click=sign_in>
                    {move || if signing_in() { t().mcp_signing_in } else { t().mcp_sign_in }}
                </button>
            </div>
            <label class="hint">{move || tl().mcp_client_id}
                <input type="text" data-testid="mcp-client-id" autocomplete="off" placeholder=move || tl().mcp_client_id_hint
                    prop:value=move || client_id.get() on:input=move |ev| client_id.set(event_target_value(&ev))/>
            </label>
            {move || sign_in_error().map(|e| view! { <p class="error-text" role="alert" data-testid="mcp-sign-in-error">{e}</p> })}
        </Show>
    }
}

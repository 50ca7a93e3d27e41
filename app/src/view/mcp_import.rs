//! Settings → MCP servers → Import or export a configuration: the JSON
//! other clients keep (`air_mcp_config::parse`) shown entry by entry
//! before anything is saved. A remote entry fills the add form and
//! connects, so its tools are picked and saved as a typed address's are;
//! a local one shows the bridge line to run first (`air_mcp_config::plan`);
//! placeholders are asked; secrets are shown masked. Export writes the
//! saved servers in the same form.

use std::collections::BTreeMap;

use air_mcp_config::bridge::{Bridge, Shell};
use air_mcp_config::plan::{self, Choice, Plan};
use air_mcp_config::{Entry, Input, Parsed, Server};
use leptos::prelude::*;

use crate::binding::state::use_app;
use crate::i18n::{t, tl};

/// The add form an entry fills.
#[derive(Clone, Copy)]
pub struct Form {
    pub name: RwSignal<String>,
    pub url: RwSignal<String>,
    pub auth: RwSignal<String>,
    /// Headers besides `Authorization` (an imported entry's).
    pub headers: RwSignal<Vec<(String, String)>>,
}

/// How local servers are bridged, for every entry at once.
#[derive(Clone, Copy)]
struct Choices {
    shell: RwSignal<Shell>,
    bridge: RwSignal<Bridge>,
    answers: RwSignal<BTreeMap<String, String>>,
}

#[component]
pub fn McpImport(form: Form, connect: Callback<()>) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let parsed = RwSignal::new(None::<Result<Parsed, String>>);
    let choices = Choices { shell: RwSignal::new(Shell::Posix), bridge: RwSignal::new(Bridge::McpProxy), answers: RwSignal::new(BTreeMap::new()) };
    let read = move |source: String| {
        let result = air_mcp_config::parse(&source).map_err(|e| e.to_string());
        if let Ok(p) = &result {
            choices.answers.set(plan::defaults(&p.inputs));
        }
        parsed.set(Some(result));
    };
    // A file chosen or dropped is read as if pasted.
    let take = move |files: Vec<leptos::web_sys::File>| {
        crate::binding::read_text(files, air_mcp_config::MAX_BYTES, move |result| match result {
            Ok(Some(source)) => {
                text.set(source.clone());
                read(source);
            }
            Ok(None) => {}
            Err(e) => parsed.set(Some(Err(e))),
        });
    };
    let chosen = move |ev: leptos::ev::Event| take(air_web::event_files(&ev));
    let dropped = move |ev: leptos::ev::DragEvent| {
        let files = air_web::event_files(&ev);
        if !files.is_empty() {
            ev.prevent_default();
            take(files);
        }
    };
    let entries = move || {
        parsed.with(|p| match p {
            Some(Ok(p)) => {
                let mut local = 0;
                p.entries
                    .iter()
                    .map(|e| {
                        let n = if matches!(e.server, Server::Stdio(_)) {
                            local += 1;
                            local - 1
                        } else {
                            0
                        };
                        view! { <ImportEntry entry=e.clone() inputs=p.inputs.clone() port=plan::port(n) choices=choices form=form connect=connect/> }
                    })
                    .collect_view()
                    .into_any()
            }
            Some(Err(e)) => view! { <p class="error-text" role="alert" data-testid="mcp-import-error">{e.clone()}</p> }.into_any(),
            None => ().into_any(),
        })
    };
    let has_local = move || parsed.with(|p| matches!(p, Some(Ok(p)) if p.entries.iter().any(|e| matches!(e.server, Server::Stdio(_)))));
    view! {
        <details class="mcp-import" data-testid="mcp-import">
            <summary>{move || tl().mcp_import}</summary>
            <p class="hint">{move || tl().mcp_import_hint}</p>
            <textarea data-testid="mcp-import-text" rows="5" autocomplete="off" spellcheck="false" placeholder="{\"mcpServers\": {…}}"
                on:dragover=move |ev: leptos::ev::DragEvent| ev.prevent_default() on:drop=dropped
                prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            <div class="row wrap">
                <button type="button" data-testid="mcp-import-read" on:click=move |_| read(text.get_untracked())>{move || tl().mcp_import_read}</button>
                <label class="file-button">{move || tl().mcp_import_file}
                    <input type="file" accept=".json,.jsonc,application/json" data-testid="mcp-import-file" on:change=chosen/>
                </label>
            </div>
            <Show when=has_local>
                <Choosers choices=choices/>
            </Show>
            {entries}
            <McpExport/>
        </details>
    }
}

/// How local servers are bridged: the shell, and (for POSIX shells) the
/// bridge.
#[component]
fn Choosers(choices: Choices) -> impl IntoView {
    view! {
        <div class="row wrap">
            <label>{move || tl().mcp_import_shell}
                <select data-testid="mcp-import-shell" prop:value=move || if choices.shell.get() == Shell::PowerShell { "ps" } else { "posix" }
                    on:change=move |ev| choices.shell.set(if event_target_value(&ev) == "ps" { Shell::PowerShell } else { Shell::Posix })>
                    <option value="posix">{move || tl().mcp_import_posix}</option>
                    <option value="ps">{move || tl().mcp_import_powershell}</option>
                </select>
            </label>
            // supergateway runs its command through cmd.exe on Windows: offered for POSIX shells only.
            <Show when=move || choices.shell.get() == Shell::Posix>
                <label>{move || tl().mcp_import_bridge}
                    <select data-testid="mcp-import-bridge" prop:value=move || if choices.bridge.get() == Bridge::Supergateway { "supergateway" } else { "mcp-proxy" }
                        on:change=move |ev| choices.bridge.set(if event_target_value(&ev) == "supergateway" { Bridge::Supergateway } else { Bridge::McpProxy })>
                        <option value="mcp-proxy">"mcp-proxy (Python, uvx)"</option>
                        <option value="supergateway">"supergateway (Node, npx)"</option>
                    </select>
                </label>
            </Show>
        </div>
    }
}

/// One entry: what it is, what it still needs, and its way in.
#[component]
fn ImportEntry(entry: Entry, inputs: Vec<Input>, port: u16, choices: Choices, form: Form, connect: Callback<()>) -> impl IntoView {
    let port = RwSignal::new(port);
    let origin = air_web::page_origin().unwrap_or_default();
    let (e1, i0, i1) = (entry.clone(), inputs.clone(), inputs.clone());
    let planned = Memo::new(move |_| {
        let choice = Choice { bridge: choices.bridge.get(), shell: choices.shell.get(), port: port.get() };
        choices.answers.with(|a| plan::plan(&e1, a, &i0, choice, &origin))
    });
    let kind = match entry.server {
        Server::Remote { .. } => "remote",
        Server::Stdio(_) => "stdio",
        Server::Unusable(_) => "unusable",
    };
    let what = match &entry.server {
        Server::Remote { url, .. } => url.clone(),
        // Its words as the line shows them (a secret among them masked).
        Server::Stdio(s) => air_mcp_config::bridge::command_shown(s),
        Server::Unusable(_) => String::new(),
    };
    let headers = match &entry.server {
        Server::Remote { headers, .. } if !headers.is_empty() => headers.iter().map(|(k, v)| format!("{k}: {}", air_mcp_config::secret::shown(k, v))).collect::<Vec<_>>().join(", "),
        _ => String::new(),
    };
    let name = entry.name.clone();
    let go = move |_| {
        let (url, headers) = match planned.get_untracked() {
            Plan::Connect { url, headers, .. } => (url, headers),
            Plan::Bridge(line) => (line.url, Vec::new()),
            Plan::Ask(_) | Plan::Unusable(_) => return,
        };
        let auth = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("authorization")).map(|(_, v)| v.clone()).unwrap_or_default();
        form.name.set(name.clone());
        form.url.set(url);
        form.auth.set(auth);
        form.headers.set(headers.into_iter().filter(|(k, _)| !k.eq_ignore_ascii_case("authorization")).collect());
        connect.run(());
        // The add form, above, now shows the server's tools to pick.
        air_web::scroll_into_view("[data-testid=mcp-name]");
    };
    view! {
        <div class="mcp-import-entry" data-testid="mcp-import-entry" data-kind=kind>
            <div class="row wrap">
                <strong class="iso" data-testid="mcp-import-name">{air_render::visible(&entry.name).into_owned()}</strong>
                {entry.disabled.then(|| view! { <span class="muted">{move || tl().mcp_import_off}</span> })}
                <code class="muted iso">{air_render::visible(&what).into_owned()}</code>
            </div>
            {(!headers.is_empty()).then(|| view! { <p class="hint iso">{air_render::visible(&headers).into_owned()}</p> })}
            <Needs planned=planned inputs=i1 answers=choices.answers/>
            <Way planned=planned port=port/>
            <Show when=move || matches!(planned.get(), Plan::Connect { .. } | Plan::Bridge(_))>
                <button type="button" data-testid="mcp-import-connect" on:click=go.clone()>{move || tl().mcp_add}</button>
            </Show>
        </div>
    }
}

/// The placeholders still to answer, each with a field.
#[component]
fn Needs(planned: Memo<Plan>, inputs: Vec<Input>, answers: RwSignal<BTreeMap<String, String>>) -> impl IntoView {
    // Asked once for the entry, whatever is answered meanwhile.
    let asked = match planned.get_untracked() {
        Plan::Ask(ps) => ps,
        _ => Vec::new(),
    };
    (!asked.is_empty()).then(|| {
        let fields = asked
            .into_iter()
            .map(|p| {
                let secret = plan::is_secret(&p, &inputs);
                let question = {
                    let (p, inputs) = (p.clone(), inputs.clone());
                    move || question(&p, &inputs)
                };
                let (k1, k2) = (p.key.clone(), p.key.clone());
                view! {
                    <label>{question}
                        <input data-testid="mcp-import-answer" data-key=p.key.clone() autocomplete="off" type=if secret { "password" } else { "text" }
                            prop:value=move || answers.with(|a| a.get(&k1).cloned().unwrap_or_default())
                            on:input=move |ev| { let v = event_target_value(&ev); answers.update(|a| { a.insert(k2.clone(), v); }); }/>
                    </label>
                }
            })
            .collect_view();
        view! { <div class="mcp-import-needs"><p class="hint">{move || tl().mcp_import_ask}</p>{fields}</div> }
    })
}

/// The question for a placeholder in the language of the moment (an
/// input's own description as written).
fn question(p: &air_mcp_config::placeholders::Placeholder, inputs: &[Input]) -> String {
    use air_mcp_config::placeholders::Asked;
    if let Some(d) = plan::described(p, inputs) {
        return d.to_owned();
    }
    let t = tl();
    match p.asked() {
        Asked::Env(name) => t.mcp_ask_env.replace("{n}", name),
        Asked::Input(id) => t.mcp_ask_input.replace("{n}", id),
        Asked::File(path) => t.mcp_ask_file.replace("{n}", path),
        Asked::Home => t.mcp_ask_home.to_owned(),
        Asked::Workspace => t.mcp_ask_workspace.to_owned(),
        Asked::Other(k) => t.mcp_ask_other.replace("{n}", k),
    }
}

/// A local server's line to run (masked where secret, copied whole), or
/// why the entry cannot be used.
#[component]
fn Way(planned: Memo<Plan>, port: RwSignal<u16>) -> impl IntoView {
    move || match planned.get() {
        Plan::Bridge(line) => {
            let copied = line.text.clone();
            view! {
                <div class="mcp-import-line">
                    <p class="hint">{move || tl().mcp_import_local}</p>
                    <code class="iso" data-testid="mcp-import-line">{air_render::visible(&line.shown).into_owned()}</code>
                    {line.warning.map(|_| view! { <p class="warning" data-testid="mcp-import-warning">{move || tl().mcp_import_everywhere}</p> })}
                    <div class="row">
                        <button type="button" data-testid="mcp-import-copy" on:click=move |_| air_web::copy_text(&copied)>{move || tl().mcp_import_copy}</button>
                        <label>{move || tl().mcp_import_port}
                            <input type="number" min="1024" max="65535" data-testid="mcp-import-port" prop:value=move || port.get().to_string()
                                on:change=move |ev| { if let Ok(p) = event_target_value(&ev).parse::<u16>() { port.set(p) } }/>
                        </label>
                    </div>
                </div>
            }
            .into_any()
        }
        Plan::Unusable(why) => view! { <p class="error-text" data-testid="mcp-import-unusable">{tl().mcp_import_unusable.replace("{e}", &air_render::visible(&unusable(&why)))}</p> }.into_any(),
        Plan::Connect { .. } | Plan::Ask(_) => ().into_any(),
    }
}

/// The saved servers as `mcpServers`, to copy.
#[component]
fn McpExport() -> impl IntoView {
    let state = use_app();
    let secrets = RwSignal::new(false);
    let out = RwSignal::new(None::<(String, usize)>);
    let export = move |_| {
        let saved: Vec<air_mcp_config::export::Saved> =
            state.prefs.mcp_servers.with_untracked(|all| all.iter().map(|s| air_mcp_config::export::Saved { name: s.name.clone(), url: s.url.clone(), headers: s.headers.clone() }).collect());
        out.set(Some(air_mcp_config::export::export(&saved, secrets.get_untracked())));
    };
    view! {
        <div class="row wrap">
            <button type="button" data-testid="mcp-export" on:click=export>{move || tl().mcp_export}</button>
            <label class="check">
                <input type="checkbox" data-testid="mcp-export-secrets" prop:checked=move || secrets.get() on:change=move |ev| secrets.set(event_target_checked(&ev))/>
                {move || tl().mcp_export_secrets}
            </label>
        </div>
        {move || out.get().map(|(text, left_out)| {
            let copied = text.clone();
            view! {
                <textarea data-testid="mcp-export-text" rows="6" readonly spellcheck="false" prop:value=text></textarea>
                <div class="row">
                    <button type="button" data-testid="mcp-export-copy" on:click=move |_| air_web::copy_text(&copied)>{move || t().copy}</button>
                    {(left_out > 0).then(|| view! { <span class="hint" data-testid="mcp-export-left-out">{tl().mcp_export_left_out.replace("{n}", &left_out.to_string())}</span> })}
                </div>
            }
        })}
    }
}

/// Why a server cannot be used from a page, in the page's language.
fn unusable(why: &air_mcp_config::Unusable) -> String {
    use air_mcp_config::unusable::{CmdReading, PowerShellTrouble, Unusable as U};
    let t = tl();
    let quoted = |w: &str| format!("{w:?}");
    match why {
        U::NotAnObject => t.unusable_not_object.to_owned(),
        U::UrlNotText => t.unusable_url_not_text.to_owned(),
        U::NotHttp(url) => t.unusable_not_http.replace("{url}", url),
        U::HeadersNotAnObject => t.unusable_headers.to_owned(),
        U::HeaderNotText(k) => t.unusable_header_text.replace("{k}", k),
        U::EnvNotAnObject => t.unusable_env.to_owned(),
        U::EnvNotText(k) => t.unusable_env_text.replace("{k}", k),
        U::CommandWithoutPath => t.unusable_no_path.to_owned(),
        U::CommandNotText => t.unusable_command_text.to_owned(),
        U::StdioWithoutCommand => t.unusable_stdio_command.to_owned(),
        U::NothingToRun => t.unusable_nothing.to_owned(),
        U::EmptyCommand => t.unusable_empty_command.to_owned(),
        U::ArgumentNotText => t.unusable_argument.to_owned(),
        U::ArgsNotAList => t.unusable_args.to_owned(),
        U::BadVariableName(k) => t.unusable_variable.replace("{k}", &quoted(k)),
        U::NamelessPlaceholder => t.unusable_placeholder.to_owned(),
        U::PowerShell { word, trouble } => match trouble {
            PowerShellTrouble::Quote => t.unusable_powershell_quote,
            PowerShellTrouble::Empty => t.unusable_powershell_empty,
            PowerShellTrouble::TrailingBackslash => t.unusable_powershell_backslash,
        }
        .replace("{w}", &quoted(word)),
        U::Cmd { word, mark, program } => {
            let reading = match CmdReading::of(*mark) {
                CmdReading::Separator => t.cmd_separator,
                CmdReading::Redirection => t.cmd_redirection,
                CmdReading::Variable => t.cmd_variable,
                CmdReading::Escape => t.cmd_escape,
                CmdReading::LineEnd => t.cmd_line_end,
            };
            let mark = if matches!(mark, '\r' | '\n') { t.cmd_line_break.to_owned() } else { format!("{mark:?}") };
            t.unusable_cmd.replace("{w}", &quoted(word)).replace("{c}", &mark).replace("{r}", reading).replace("{p}", &quoted(program))
        }
    }
}

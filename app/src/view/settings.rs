use air_store::Settings;
use air_store::settings::{Language, ModelChange, PRESETS, Theme, ToolCalling};
use air_workspace::Command;
use air_workspace::data::Format;
use air_workspace::models::{Action as Models, Test};
use leptos::prelude::*;

use crate::binding::state::use_app;
use crate::i18n::{t, tl};

/// Result of the connection test, shown under the button.
/// Settings → Test's outcome in words.
fn test_text(state: crate::binding::state::AppState, test: &Test) -> String {
    let texts = state.tl();
    match test {
        Test::Idle => String::new(),
        Test::Running => texts.testing.into(),
        Test::Listed { models, missing } => {
            let mut msg = texts.test_ok.replace("{n}", &models.len().to_string());
            if let Some(m) = missing {
                msg.push_str(&texts.test_model_missing.replace("{m}", m));
            }
            msg
        }
        Test::Failed(e) => e.message(state.chat_lang()),
    }
}

fn parse_opt<T: std::str::FromStr>(v: &str) -> Option<T> {
    let v = v.trim();
    if v.is_empty() { None } else { v.parse().ok() }
}

/// The settings drawer. Its contents are fetched the first time it opens.
#[component]
pub fn SettingsPanel() -> impl IntoView {
    let state = use_app();
    view! {
        <Show when=move || state.prefs.settings_open.get()>
            <div class="drawer-backdrop" on:click=move |_| state.prefs.settings_open.set(false)></div>
            {move || {
                crate::binding::warm_prefs();
                Suspend::new(async { crate::binding::lazy::show(settings_drawer().await) })
            }}
        </Show>
    }
}

#[crate::binding::lazy::split(settings, wasm_split_path = ::leptos::wasm_split, fallible)]
fn settings_drawer() -> Result<AnyView, crate::binding::lazy::NotFetched> {
    Ok(view! { <SettingsDrawer/> }.into_any())
}

/// The drawer itself. Edits a copy; Save writes it to localStorage.
#[component]
fn SettingsDrawer() -> impl IntoView {
    let state = use_app();
    // Dynamic loading's metrics over every conversation, shown below.
    state.dispatch(air_workspace::Command::Dynamic(air_workspace::dynamic::Action::WantMetrics));
    let draft = RwSignal::new(state.prefs.settings.get_untracked());
    let test = state.prefs.provider_test;
    // Start from the saved values whenever the drawer opens.
    let base = StoredValue::new(state.prefs.settings.get_untracked());
    Effect::new(move |_| {
        if state.prefs.settings_open.get() {
            let saved = state.prefs.settings.get_untracked();
            base.set_value(saved.clone());
            draft.set(saved);
            test.set(Test::Idle);
        }
    });
    // Saved settings that change while it is open (sync, another tab):
    // what the user has not touched follows.
    Effect::new(move |_| {
        let now = state.prefs.settings.get();
        let old = base.get_value();
        if now != old && state.prefs.settings_open.get_untracked() {
            draft.update(|d| *d = air_workspace::prefs::rebase(d, &old, &now));
            base.set_value(now);
        }
    });
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let mut s = draft.get_untracked();
        s.base_url = s.base_url.trim().to_owned();
        s.api_key = s.api_key.trim().to_owned();
        s.model = s.model.trim().to_owned();
        state.save_settings(s);
        state.prefs.settings_open.set(false);
    };
    view! {
            <aside class="drawer" data-testid="settings" role="dialog" aria-label=move || t().settings>
                <form on:submit=save>
                    <h2>{move || t().settings}</h2>
                    <ProviderSection draft=draft/>
                    <ProfilesSection draft=draft/>
                    <ModelsSection draft=draft/>
                    <AnswersSection draft=draft/>
                    <AppearanceSection draft=draft/>
                    <super::mcp::McpServers/>
                    <super::http_tools::HttpToolsSection/>
                    <super::assistants::AssistantsSection draft=draft/>
                    <ExperimentalSection draft=draft/>
                    <DataSection/>
                    <super::sync::SyncSection draft=draft/>
                    <super::log::EventLogSection/>
                    <div class="drawer-actions">
                        <button type="button" on:click=move |_| state.prefs.settings_open.set(false)>{move || t().cancel}</button>
                        <button type="submit" class="primary" data-testid="settings-save">{move || t().save}</button>
                    </div>
                </form>
            </aside>
    }
}

/// Changes the settings being edited.
fn editor(draft: RwSignal<Settings>) -> impl Fn(&dyn Fn(&mut Settings)) + Copy + 'static {
    move |f: &dyn Fn(&mut Settings)| draft.update(|d| f(d))
}

/// Settings → Provider: preset, base URL, key and model, and the connection test.
#[component]
fn ProviderSection(draft: RwSignal<Settings>) -> impl IntoView {
    let state = use_app();
    let test = state.prefs.provider_test;
    let doctor = state.prefs.provider_doctor;
    let edit = editor(draft);
    let in_browser = move || draft.with(|d| air_store::settings::is_in_browser(&d.base_url));
    let text_input = move |label: fn(&crate::i18n::Text) -> &'static str, testid: &'static str, kind: &'static str, get: fn(&Settings) -> String, set: fn(&mut Settings, String)| {
        view! {
            <label>{move || label(t())}
                <input type=kind data-testid=testid autocomplete="off"
                    prop:value=move || draft.with(get)
                    on:input=move |ev| { let v = event_target_value(&ev); edit(&|d| set(d, v.clone())) }/>
            </label>
        }
    };
    view! {
        <fieldset>
            <legend>{move || t().provider}</legend>
            <label>{move || tl().preset}
                <select data-testid="settings-preset"
                    on:change=move |ev| { let v = event_target_value(&ev); edit(&|d| d.apply_preset(&v)); test.set(Test::Idle); }>
                    {PRESETS.iter().map(|p| view! {
                        <option value=p.id selected=move || draft.with(|d| d.provider == p.id)>
                            {move || match p.id { "local" => tl().preset_local, "custom" => tl().preset_custom, air_store::settings::BROWSER_PRESET => tl().preset_browser, _ => p.name }}
                        </option>
                    }).collect_view()}
                </select>
            </label>
            <Show when=move || !in_browser() fallback=move || view! { <super::browser_models::BrowserModels draft=draft/> }>
                <label>{move || t().base_url}
                    <input type="url" data-testid="settings-base-url" required placeholder="https://api.example.com/v1"
                        prop:value=move || draft.with(|d| d.base_url.clone())
                        on:input=move |ev| { let v = event_target_value(&ev); edit(&|d| d.edit_base_url(&v)) }/>
                </label>
                {text_input(|t| t.api_key, "settings-api-key", "password", |d| d.api_key.clone(), |d, v| d.api_key = v)}
                <p class="hint">{move || tl().api_key_hint}</p>
            </Show>
            <ModelField draft=draft/>
            <p class="test-result" data-testid="settings-test-result"
                class:ok=move || test.with(|t| matches!(t, Test::Listed { .. }))
                class:failed=move || test.with(|t| matches!(t, Test::Failed(_)))>
                {move || test.with(|t| test_text(state, t))}
            </p>
            {move || {
                let headers: Vec<String> = vec!["Authorization".into()];
                crate::view::mcp::doctor_report(doctor.get(), |f, origin, headers| f.fix_exposing(origin, headers, &["Retry-After"]), headers)
            }}
        </fieldset>
    }
}

/// The model, the button that tests the connection, and the models it listed.
#[component]
fn ModelField(draft: RwSignal<Settings>) -> impl IntoView {
    let state = use_app();
    let test = state.prefs.provider_test;
    // What the last test listed, offered for the model.
    let models = move || test.with(|t| if let Test::Listed { models, .. } = t { models.clone() } else { Vec::new() });
    let doctor = state.prefs.provider_doctor;
    let edit = editor(draft);
    let run_test = move |_| {
        doctor.set(crate::view::mcp::Doctor::Idle);
        state.dispatch(Command::Models(Models::Test(Box::new(draft.get_untracked()))));
    };
    view! {
        <label>{move || t().model}
            <span class="row">
                <input type="text" data-testid="settings-model" required list="model-list"
                    prop:value=move || draft.with(|d| d.model.clone())
                    on:input=move |ev| { let v = event_target_value(&ev); edit(&|d| d.model = v.clone()) }/>
                <button type="button" data-testid="settings-test" on:click=run_test
                    disabled=move || test.with(|t| *t == Test::Running)>{move || tl().test_button}</button>
            </span>
            <datalist id="model-list">
                <For each=models key=|m| m.clone() let:m>
                    <option value=m.clone()></option>
                </For>
            </datalist>
        </label>
        <Show when=move || !models().is_empty()>
            <div class="model-chips" data-testid="model-list">
                <For each=models key=|m| m.clone() let:m>
                    <button type="button" class="chip" on:click={
                        let m = m.clone();
                        move |_| edit(&|d| d.model = m.clone())
                    }>{m.clone()}</button>
                </For>
            </div>
        </Show>
    }
}

/// Settings → Answers: sampling, system prompt, thinking and tools.
#[component]
fn AnswersSection(draft: RwSignal<Settings>) -> impl IntoView {
    let edit = editor(draft);
    view! {
        <fieldset>
            <legend>{move || t().answers}</legend>
            <div class="row">
                <label>{move || t().temperature}
                    <input type="number" data-testid="settings-temperature" min="0" max="2" step="0.1" placeholder=move || tl().default_value
                        prop:value=move || draft.with(|d| d.temperature.map(|t| t.to_string()).unwrap_or_default())
                        on:input=move |ev| { let v = parse_opt::<f32>(&event_target_value(&ev)); edit(&|d| d.temperature = v) }/>
                </label>
                <label>{move || t().max_tokens}
                    <input type="number" data-testid="settings-max-tokens" min="1" step="1" placeholder=move || tl().default_value
                        prop:value=move || draft.with(|d| d.max_tokens.map(|t| t.to_string()).unwrap_or_default())
                        on:input=move |ev| { let v = parse_opt::<u32>(&event_target_value(&ev)); edit(&|d| d.max_tokens = v) }/>
                </label>
                <label>{move || t().max_tool_rounds}
                    <input type="number" data-testid="settings-max-tool-rounds" min="1" max="50" step="1"
                        prop:value=move || draft.with(|d| d.max_tool_rounds.to_string())
                        on:input=move |ev| { let v = parse_opt::<u32>(&event_target_value(&ev)).unwrap_or(5); edit(&|d| d.max_tool_rounds = v) }/>
                </label>
            </div>
            <label>{move || t().system_prompt}
                <textarea data-testid="settings-system-prompt" rows="4"
                    placeholder=move || tl().system_prompt_hint
                    prop:value=move || draft.with(|d| d.system_prompt.clone())
                    on:input=move |ev| { let v = event_target_value(&ev); edit(&|d| d.system_prompt = v.clone()) }></textarea>
            </label>
            <label class="check">
                <input type="checkbox" data-testid="settings-transitive"
                    prop:checked=move || draft.with(|d| d.transitive_thinking)
                    on:change=move |ev| { let v = event_target_checked(&ev); edit(&|d| d.transitive_thinking = v) }/>
                {move || tl().transitive}
            </label>
            <label class="check">
                <input type="checkbox" data-testid="settings-tools"
                    prop:checked=move || draft.with(|d| d.tools_enabled)
                    on:change=move |ev| { let v = event_target_checked(&ev); edit(&|d| d.tools_enabled = v) }/>
                {move || t().tools_enabled}
            </label>
            <ToolCallingSelect draft=draft/>
            <super::policies::ToolPolicies draft=draft/>
        </fieldset>
    }
}

/// How tools are called: found out (with what was found), native or in the prompt.
#[component]
fn ToolCallingSelect(draft: RwSignal<Settings>) -> impl IntoView {
    let edit = editor(draft);
    view! {
        <label>{move || t().tool_calling}
            <select data-testid="settings-tool-calling" on:change=move |ev| {
                let c = match event_target_value(&ev).as_str() { "native" => ToolCalling::Native, "prompt" => ToolCalling::Prompt, _ => ToolCalling::Auto };
                edit(&|d| d.tool_calling = c)
            }>
                <option value="auto" selected=move || draft.with(|d| d.tool_calling == ToolCalling::Auto)>{move || {
                    let t = tl();
                    let found = draft.with(|d| d.probed_tool_calling.get(&d.tool_calling_key()).copied());
                    match found {
                        Some(ToolCalling::Native) => format!("{} ({})", t.tool_calling_auto, t.tool_calling_native),
                        Some(ToolCalling::Prompt) => format!("{} ({})", t.tool_calling_auto, t.tool_calling_prompt),
                        _ => t.tool_calling_auto.to_owned(),
                    }
                }}</option>
                <option value="native" selected=move || draft.with(|d| d.tool_calling == ToolCalling::Native)>{move || tl().tool_calling_native}</option>
                <option value="prompt" selected=move || draft.with(|d| d.tool_calling == ToolCalling::Prompt)>{move || tl().tool_calling_prompt}</option>
            </select>
        </label>
    }
}

/// Settings → Appearance: theme and language.
#[component]
fn AppearanceSection(draft: RwSignal<Settings>) -> impl IntoView {
    let edit = editor(draft);
    view! {
        <fieldset>
            <legend>{move || tl().appearance}</legend>
            <div class="row">
                <label>{move || t().theme}
                    <select data-testid="settings-theme" on:change=move |ev| {
                        let t = match event_target_value(&ev).as_str() { "light" => Theme::Light, "dark" => Theme::Dark, _ => Theme::System };
                        edit(&|d| d.theme = t)
                    }>
                        <option value="system" selected=move || draft.with(|d| d.theme == Theme::System)>{move || tl().theme_system}</option>
                        <option value="light" selected=move || draft.with(|d| d.theme == Theme::Light)>{move || tl().theme_light}</option>
                        <option value="dark" selected=move || draft.with(|d| d.theme == Theme::Dark)>{move || tl().theme_dark}</option>
                    </select>
                </label>
                <label>{move || t().language}
                    <select data-testid="settings-language" on:change=move |ev| {
                        let l = if event_target_value(&ev) == "zh" { Language::Chinese } else { Language::English };
                        edit(&|d| d.language.choose(l))
                    }>
                        <option value="en" selected=move || draft.with(|d| d.language.current() == Language::English)>"English"</option>
                        <option value="zh" selected=move || draft.with(|d| d.language.current() == Language::Chinese)>"中文"</option>
                    </select>
                </label>
            </div>
        </fieldset>
    }
}

/// Settings → Experimental: dynamic MCP loading and its options.
#[component]
fn ExperimentalSection(draft: RwSignal<Settings>) -> impl IntoView {
    let state = use_app();
    let edit = editor(draft);
    view! {
        <fieldset data-testid="settings-experimental">
            <legend>{move || tl().experimental}</legend>
            <label class="check">
                <input type="checkbox" data-testid="settings-dynamic-mcp"
                    prop:checked=move || draft.with(|d| d.dynamic_mcp_loading)
                    on:change=move |ev| { let v = event_target_checked(&ev); edit(&|d| d.dynamic_mcp_loading = v) }/>
                {move || tl().dynamic_mcp}
            </label>
            <p class="hint">{move || tl().dynamic_mcp_hint}</p>
            <p class="hint warn">{move || tl().dynamic_mcp_risk}</p>
            <Show when=move || draft.with(|d| d.dynamic_mcp_loading)>
                <p class="hint" data-testid="dynamic-metrics">{move || format!("{} {}", t().metrics_overall, crate::i18n::metrics_text(&state.chat.metrics_overall.get()))}</p>
                <label class="check">
                    <input type="checkbox" data-testid="settings-auto-load"
                        prop:checked=move || draft.with(|d| d.mcp_auto_load_once)
                        on:change=move |ev| { let v = event_target_checked(&ev); edit(&|d| d.mcp_auto_load_once = v) }/>
                    {move || tl().mcp_auto_load}
                </label>
                <super::summarizer::SummarizerSelect draft=draft/>
            </Show>
        </fieldset>
    }
}

/// Export, import and storage usage.
#[component]
fn DataSection() -> impl IntoView {
    let state = use_app();
    let include_secrets = RwSignal::new(false);
    view! {
        <fieldset>
            <legend>{move || t().data}</legend>
            <div class="row wrap">
                <button type="button" data-testid="export-all"
                    on:click=move |_| state.dispatch(Command::Data(air_workspace::data::Action::Export { only: None, format: Format::All { secrets: include_secrets.get_untracked() } }))>{move || tl().export_all}</button>
                <Show when=move || state.sessions.active.with(Option::is_some)>
                    <button type="button" data-testid="export-one"
                        on:click=move |_| { if let Some(id) = state.sessions.active.get_untracked() { state.dispatch(Command::Data(air_workspace::data::Action::Export { only: Some(id), format: Format::One })) } }>{move || tl().export_one}</button>
                    <button type="button" data-testid="export-markdown"
                        on:click=move |_| { if let Some(id) = state.sessions.active.get_untracked() { state.dispatch(Command::Data(air_workspace::data::Action::Export { only: Some(id), format: Format::Markdown })) } }>{move || tl().export_markdown}</button>
                </Show>
                <label class="file-button">{move || t().import}
                    <input type="file" multiple accept=".json,.zip,application/json,application/zip" data-testid="import-file"
                        on:change=move |ev| crate::binding::import_chosen(state, ev)/>
                </label>
            </div>
            // What the import did, by its button: an error (a refused file) as one.
            <p class=move || if state.shell.import_failed.get() { "error-text" } else { "hint" }
                role=move || state.shell.import_failed.get().then_some("alert")
                data-testid="import-result">{move || state.shell.import_result.get().unwrap_or_default()}</p>
            <label class="check">
                <input type="checkbox" data-testid="export-secrets"
                    prop:checked=move || include_secrets.get()
                    on:change=move |ev| include_secrets.set(event_target_checked(&ev))/>
                {move || tl().include_secrets}
            </label>
            <p class="hint" data-testid="storage-usage">{move || state.shell.storage_line.get()}</p>
        </fieldset>
    }
}

/// Settings → Other providers: each with its own base URL, key and model,
/// picked per chat in the top bar (or by an assistant).
#[component]
fn ProfilesSection(draft: RwSignal<Settings>) -> impl IntoView {
    let edit = move |id: &str, f: &dyn Fn(&mut air_store::settings::Profile)| {
        draft.update(|d| {
            if let Some(p) = d.profiles.iter_mut().find(|p| p.id == id) {
                f(p);
            }
        })
    };
    let field = move |id: String, label: fn(&crate::i18n::Text) -> &'static str, testid: &'static str, kind: &'static str, value: String, set: fn(&mut air_store::settings::Profile, String)| {
        view! {
            <label>{move || label(t())}
                <input type=kind data-testid=testid prop:value=value
                    on:input=move |ev| { let v = event_target_value(&ev); edit(&id, &|p| set(p, v.clone())) }/>
            </label>
        }
    };
    view! {
        <fieldset data-testid="profiles">
            <legend>{move || t().profiles}</legend>
            <p class="hint">{move || tl().profiles_hint}</p>
            // Keyed rows: typing in one does not draw the others again.
            <For each=move || draft.with(|d| d.profiles.iter().map(|p| p.id.clone()).collect::<Vec<_>>()) key=|id| id.clone() let:id>
                {
                    let p = draft.with_untracked(|d| d.profile(&id).cloned()).unwrap_or_default();
                    let gone = id.clone();
                    view! {
                        <div class="profile" data-testid="profile">
                            {field(id.clone(), |t| t.profile_name, "profile-name", "text", p.name.clone(), |p, v| p.name = v)}
                            {field(id.clone(), |t| t.base_url, "profile-base-url", "url", p.base_url.clone(), |p, v| p.edit_base_url(v.trim()))}
                            {field(id.clone(), |t| t.api_key, "profile-api-key", "password", p.api_key.clone(), |p, v| p.api_key = v)}
                            {field(id.clone(), |t| t.model, "profile-model", "text", p.model.clone(), |p, v| p.model = v.trim().to_owned())}
                            <button type="button" data-testid="profile-delete"
                                on:click=move |_| draft.update(|d| d.profiles.retain(|p| p.id != gone))>{move || tl().profile_delete}</button>
                        </div>
                    }
                }
            </For>
            <button type="button" data-testid="profile-new" on:click=move |_| {
                let id = crate::binding::env::new_id();
                draft.update(|d| d.profiles.push(air_store::settings::Profile { id, ..Default::default() }));
            }>{move || tl().profile_new}</button>
        </fieldset>
    }
}

/// Settings → Models: what each provider and model can do (tools, images),
/// as found out or set here by hand (kept in the same maps, so a turn and
/// the composer read both alike); the settings' own and the open chat's
/// are listed even when nothing is known of them yet.
#[component]
fn ModelsSection(draft: RwSignal<Settings>) -> impl IntoView {
    let state = use_app();
    // The drawer is made each time it opens: the models in use are read
    // then (not as the model field is typed into).
    let current = StoredValue::new([state.prefs.settings.with_untracked(Settings::tool_calling_key), state.turn_settings().tool_calling_key()]);
    let list = move || draft.with(|d| current.with_value(|keys| d.known_models(keys.iter().map(String::as_str))));
    view! {
        <fieldset data-testid="known-models">
            <legend>{move || t().known_models}</legend>
            <p class="hint">{move || tl().known_models_hint}</p>
            // Keyed rows: a change in one does not draw the others again.
            <For each=list key=|m| m.key.clone() let:m>
                {
                    let key = StoredValue::new(m.key.clone());
                    let change = move |c: ModelChange| key.with_value(|k| draft.update(|d| d.set_known_model(k, c)));
                    let tools = move || key.with_value(|k| draft.with(|d| d.known_tools(k)));
                    let images = move || key.with_value(|k| draft.with(|d| d.known_images(k)));
                    let tool_option = move |value: &'static str, c: ToolCalling, label: fn(&air_i18n::Later) -> &'static str| {
                        view! { <option value=value prop:selected=move || tools() == c>{move || label(tl())}</option> }
                    };
                    let image_option = move |value: &'static str, v: Option<bool>, label: fn(&air_i18n::Later) -> &'static str| {
                        view! { <option value=value prop:selected=move || images() == v>{move || label(tl())}</option> }
                    };
                    view! {
                        <div class="known-model" data-testid="known-model" data-key=m.key.clone()>
                            <span class="known-model-name" title=m.key.clone()>
                                <strong>{m.model}</strong>" "<span class="muted">{m.base_url}</span>
                            </span>
                            <label>{move || tl().known_model_tools}
                                <select data-testid="known-model-tools" on:change=move |ev| {
                                    let c = match event_target_value(&ev).as_str() { "native" => ToolCalling::Native, "prompt" => ToolCalling::Prompt, _ => ToolCalling::Auto };
                                    change(ModelChange::Tools(c));
                                }>
                                    {tool_option("auto", ToolCalling::Auto, |t| t.known_model_tools_find_out)}
                                    {tool_option("native", ToolCalling::Native, |t| t.known_model_tools_native)}
                                    {tool_option("prompt", ToolCalling::Prompt, |t| t.known_model_tools_prompt)}
                                </select>
                            </label>
                            <label>{move || tl().known_model_images}
                                <select data-testid="known-model-images" on:change=move |ev| {
                                    let v = match event_target_value(&ev).as_str() { "accepted" => Some(true), "refused" => Some(false), _ => None };
                                    change(ModelChange::Images(v));
                                }>
                                    {image_option("unknown", None, |t| t.known_model_images_unknown)}
                                    {image_option("accepted", Some(true), |t| t.known_model_images_accepted)}
                                    {image_option("refused", Some(false), |t| t.known_model_images_refused)}
                                </select>
                            </label>
                            <button type="button" data-testid="known-model-forget"
                                on:click=move |_| change(ModelChange::Forget)>{move || tl().known_model_forget}</button>
                        </div>
                    }
                }
            </For>
        </fieldset>
    }
}

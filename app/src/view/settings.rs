use leptos::prelude::*;

use crate::state::use_app;

/// The settings drawer: provider address, key and model.
#[component]
pub fn SettingsPanel() -> impl IntoView {
    let state = use_app();
    let current = state.settings.get_untracked();
    let base_url = RwSignal::new(current.base_url.clone());
    let api_key = RwSignal::new(current.api_key.clone());
    let model = RwSignal::new(current.model.clone());
    let system_prompt = RwSignal::new(current.system_prompt.clone());
    // Re-read the saved values whenever the drawer opens.
    Effect::new(move |_| {
        if state.settings_open.get() {
            let s = state.settings.get_untracked();
            base_url.set(s.base_url);
            api_key.set(s.api_key);
            model.set(s.model);
            system_prompt.set(s.system_prompt);
        }
    });
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let mut s = state.settings.get_untracked();
        s.base_url = base_url.get_untracked().trim().to_owned();
        s.api_key = api_key.get_untracked().trim().to_owned();
        s.model = model.get_untracked().trim().to_owned();
        s.system_prompt = system_prompt.get_untracked();
        if s.base_url != air_store::settings::LOCAL_BASE_URL {
            s.provider = "custom".into();
        }
        state.save_settings(s);
        state.settings_open.set(false);
    };
    view! {
        <Show when=move || state.settings_open.get()>
            <div class="drawer-backdrop" on:click=move |_| state.settings_open.set(false)></div>
            <aside class="drawer" data-testid="settings" role="dialog" aria-label="Settings">
                <form on:submit=save>
                    <h2>"Settings"</h2>
                    <label>"Base URL"
                        <input type="url" data-testid="settings-base-url" required
                            prop:value=move || base_url.get()
                            on:input=move |ev| base_url.set(event_target_value(&ev))/>
                    </label>
                    <label>"API key"
                        <input type="password" data-testid="settings-api-key" autocomplete="off"
                            placeholder="Not needed for the local model"
                            prop:value=move || api_key.get()
                            on:input=move |ev| api_key.set(event_target_value(&ev))/>
                    </label>
                    <label>"Model"
                        <input type="text" data-testid="settings-model" required
                            prop:value=move || model.get()
                            on:input=move |ev| model.set(event_target_value(&ev))/>
                    </label>
                    <label>"System prompt"
                        <textarea data-testid="settings-system-prompt" rows="4"
                            placeholder="Variables: {{date}} {{time}} {{model}} {{locale}}"
                            prop:value=move || system_prompt.get()
                            on:input=move |ev| system_prompt.set(event_target_value(&ev))></textarea>
                    </label>
                    <div class="drawer-actions">
                        <button type="button" on:click=move |_| state.settings_open.set(false)>"Cancel"</button>
                        <button type="submit" class="primary" data-testid="settings-save">"Save"</button>
                    </div>
                </form>
            </aside>
        </Show>
    }
}

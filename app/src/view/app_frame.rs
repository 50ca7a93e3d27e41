//! A tool's MCP App under its card: the View in a sandboxed frame, sized
//! as it asks, with a question before it opens a link.

use std::rc::Rc;

use air_apps::UiResource;
use air_store::MessageRecord;
use air_store::mcp::{McpServer, SavedTool};
use air_store::records::ToolStatus;
use leptos::html;
use leptos::prelude::*;

use crate::binding::apps::{self, Hooks, Live};
use crate::binding::state::use_app;
use crate::i18n::{t, tl};

/// The signals of one View's card.
#[derive(Clone, Copy)]
struct Card {
    /// The View is wanted (the user opened it, or the call is running).
    open: RwSignal<bool>,
    loaded: RwSignal<Option<Result<Rc<UiResource>, String>>, LocalStorage>,
    hooks: Hooks,
    live: StoredValue<Option<Rc<Live>>, LocalStorage>,
    frame_ref: NodeRef<html::Iframe>,
    /// The user's answer when the View asks for devices (camera…): none
    /// until they say yes.
    granted: RwSignal<Option<bool>>,
}

#[component]
pub fn AppFrame(record: Memo<Option<MessageRecord>>, server: McpServer, tool: SavedTool) -> impl IntoView {
    let status = move || record.with(|r| r.as_ref().and_then(|m| m.tool.as_ref()).map(|t| t.status));
    // A call made while this card was on screen shows its View at once; an
    // older one (a reload, another session) on request.
    let card = Card {
        open: RwSignal::new(status().is_some_and(|s| !s.is_final())),
        loaded: RwSignal::new_local(None),
        hooks: Hooks::new(),
        live: StoredValue::new_local(None),
        frame_ref: NodeRef::new(),
        granted: RwSignal::new(None),
    };
    let (open, hooks, live) = (card.open, card.hooks, card.live);
    let server_name = server.name.clone();
    drive(card, record, server, tool);
    let state_attr = move || {
        if hooks.ready.get() {
            "ready"
        } else if card.loaded.with(|l| matches!(l, Some(Ok(_)))) {
            "starting"
        } else {
            "loading"
        }
    };
    // Nothing to show before the call may run, nor for one refused.
    let shown = move || !matches!(status(), None | Some(ToolStatus::AwaitingApproval) | Some(ToolStatus::Denied));
    view! {
        <Show when=shown>
        <div class="app-view" class:fullscreen=move || hooks.fullscreen.get() data-testid="app-view" data-state=state_attr>
            <Show when=move || open.get()>
                <div class="app-bar">
                    <Show when=move || hooks.fullscreen.get()>
                        <button data-testid="app-exit-fullscreen" on:click=move |_| { if let Some(l) = live.get_value() { l.set_fullscreen(false) } }>{move || tl().app_exit_fullscreen}</button>
                    </Show>
                    <button class="icon-button" data-testid="app-close" title=move || tl().app_close aria-label=move || tl().app_close
                        on:click=move |_| match live.get_value() { Some(l) => l.close(), None => open.set(false) }>"×"</button>
                </div>
            </Show>
            {frame_view(card, server_name.clone())}
            {questions(card)}
            {move || hooks.message_held.get().then(|| view! { <p class="app-error">{tl().app_message_held}</p> })}
        </div>
        </Show>
    }
}

/// The View's life on the card: read once wanted and the call may run,
/// started once its frame is in the page, fed the call as it goes on, told
/// of the app's theme and language, and let go when closed.
fn drive(card: Card, record: Memo<Option<MessageRecord>>, server: McpServer, tool: SavedTool) {
    let state = use_app();
    let Card { open, loaded, hooks, live, frame_ref, granted } = card;
    let status = move || record.with(|r| r.as_ref().and_then(|m| m.tool.as_ref()).map(|t| t.status));
    let uri = tool.ui.clone().unwrap_or_default();
    let record_id = record.with_untracked(|r| r.as_ref().map(|m| m.id.clone())).unwrap_or_default();
    // Its input and result came from a file or another device.
    let imported = record.with_untracked(|r| r.as_ref().and_then(|m| m.tool.as_ref()).is_some_and(|t| t.imported));
    {
        let server = server.clone();
        Effect::new(move |_| {
            if open.get() && status() != Some(ToolStatus::AwaitingApproval) && status() != Some(ToolStatus::Denied) && loaded.with_untracked(Option::is_none) {
                loaded.set(Some(Err(String::new())));
                apps::load(state, &server, uri.clone(), move |r| loaded.set(Some(r)));
            }
        });
    }
    Effect::new(move |_| {
        let Some(frame) = frame_ref.get() else { return };
        if live.with_value(Option::is_some) {
            return;
        }
        let Some(Ok(resource)) = loaded.get_untracked() else { return };
        let allow = resource.permissions.allow_if(granted.get_untracked() == Some(true));
        let l = apps::mount(state, server.clone(), tool.clone(), (record_id.clone(), imported), resource, frame, allow, hooks);
        live.set_value(Some(l));
    });
    Effect::new(move |_| {
        let run = record.with(|r| r.as_ref().and_then(|m| m.tool.clone()));
        hooks.ready.track();
        if let (Some(run), Some(l)) = (run, live.get_value()) {
            l.feed(&run);
        }
    });
    Effect::new(move |prev: Option<()>| {
        state.prefs.settings.with(|s| (s.theme, s.language));
        if prev.is_some()
            && let Some(l) = live.get_value()
        {
            l.refresh_context();
        }
    });
    // Closed: the frame goes, and can be opened again.
    Effect::new(move |_| {
        if hooks.closed.get() {
            if let Some(l) = live.get_value() {
                l.leave();
            }
            live.set_value(None);
            hooks.closed.set(false);
            hooks.ready.set(false);
            hooks.fullscreen.set(false);
            hooks.height.set(None);
            open.set(false);
            loaded.set(None);
        }
    });
    on_cleanup(move || {
        if let Some(Some(l)) = live.try_get_value() {
            l.leave();
        }
    });
}

/// The frame, or what stands for it: the button that opens it, the
/// question about devices, why it failed, or that it is loading.
fn frame_view(card: Card, server_name: String) -> impl Fn() -> AnyView {
    let Card { open, loaded, hooks, frame_ref, granted, .. } = card;
    let height = move || {
        let h = hooks.height.get().unwrap_or(120.0).clamp(40.0, 800.0);
        format!("{h:.0}px")
    };
    move || {
        if !open.get() {
            return view! {
                <button class="app-open" data-testid="app-open" on:click=move |_| open.set(true)>{move || tl().app_open}</button>
            }
            .into_any();
        }
        match loaded.get() {
            Some(Ok(resource)) if resource.permissions.any() && granted.get().is_none() => {
                let (name, asked) = (server_name.clone(), resource.permissions.allow());
                view! {
                    <div class="app-link" data-testid="app-permissions">
                        <span>{move || tl().app_permissions_ask.replace("{server}", &name).replace("{features}", &asked)}</span>
                        <button data-testid="app-permissions-allow" on:click=move |_| granted.set(Some(true))>{move || tl().app_permissions_allow}</button>
                        <button class="primary" data-testid="app-permissions-deny" on:click=move |_| granted.set(Some(false))>{move || tl().app_permissions_deny}</button>
                    </div>
                }
                .into_any()
            }
            Some(Ok(resource)) => {
                let refused = (!resource.csp.refused.is_empty()).then(|| {
                    let d = resource.csp.refused.join(", ");
                    view! { <p class="muted app-note">{move || tl().app_refused.replace("{d}", &d)}</p> }
                });
                view! {
                    {refused}
                    <iframe
                        class="app-frame"
                        data-testid="app-frame"
                        node_ref=frame_ref
                        sandbox="allow-scripts"
                        allow=resource.permissions.allow_if(granted.get_untracked() == Some(true))
                        referrerpolicy="no-referrer"
                        title=resource.uri.clone()
                        style:height=height
                    ></iframe>
                }
                .into_any()
            }
            Some(Err(e)) if !e.is_empty() => view! { <p class="app-error" data-testid="app-error">{move || tl().app_failed.replace("{e}", &e)}</p> }.into_any(),
            _ => view! { <p class="muted">{move || tl().view_loading}</p> }.into_any(),
        }
    }
}

/// What the View asks the user: a link to open, a call to make.
fn questions(card: Card) -> impl IntoView {
    let Card { hooks, live, .. } = card;
    let link = move || {
        hooks.link.get().map(|url| {
            view! {
                <div class="app-link" data-testid="app-link">
                    <span>{move || tl().app_link_ask}</span>
                    <code>{url}</code>
                    <button class="primary" data-testid="app-link-open" on:click=move |_| { if let Some(l) = live.get_value() { l.answer_link(true) } }>{move || tl().app_link_open}</button>
                    <button data-testid="app-link-cancel" on:click=move |_| { if let Some(l) = live.get_value() { l.answer_link(false) } }>{move || t().cancel}</button>
                </div>
            }
        })
    };
    let call = move || {
        hooks.call.get().map(|(tool, args)| {
            let args = serde_json::to_string_pretty(&args).unwrap_or_default();
            view! {
                <div class="app-link" data-testid="app-call">
                    <span>{move || tl().app_call_ask.replace("{tool}", &tool)}</span>
                    <pre class="tool-args">{args}</pre>
                    <button data-testid="app-call-allow" on:click=move |_| { if let Some(l) = live.get_value() { l.answer_call(true) } }>{move || tl().app_call_allow}</button>
                    <button class="primary" data-testid="app-call-deny" on:click=move |_| { if let Some(l) = live.get_value() { l.answer_call(false) } }>{move || tl().app_call_deny}</button>
                </div>
            }
        })
    };
    view! { {link} {call} }
}

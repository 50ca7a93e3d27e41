use air_chat::Role;
use air_store::MessageRecord;
use leptos::prelude::*;

use crate::chat;
use crate::state::use_app;

/// Shown when no session is open: suggestions and the composer below.
#[component]
pub fn SessionCreator() -> impl IntoView {
    let state = use_app();
    const SUGGESTIONS: [&str; 4] = [
        "Explain how a rainbow forms in two sentences.",
        "Write a haiku about the sea.",
        "Give me three ideas for a weekend project.",
        "What is the difference between a list and a set?",
    ];
    view! {
        <section class="creator" data-testid="session-creator">
            <h2>"What can I help with?"</h2>
            <p class="muted">
                "Answers come from " <strong>{move || state.settings.with(|s| s.model.clone())}</strong>
                " at " <code>{move || state.settings.with(|s| s.base_url.clone())}</code> "."
            </p>
            <div class="suggestions">
                {SUGGESTIONS
                    .into_iter()
                    .map(|q| view! {
                        <button class="suggestion" data-testid="suggestion" on:click=move |_| chat::send(state, q.to_owned())>{q}</button>
                    })
                    .collect_view()}
            </div>
        </section>
    }
}

/// The conversation: stored messages, then the answer being streamed.
#[component]
pub fn ChatView() -> impl IntoView {
    let state = use_app();
    let streaming_here = move || {
        let active = state.active.get();
        state.streaming.with(|s| s.as_ref().map(|s| Some(&s.session_id) == active.as_ref()).unwrap_or(false))
    };
    view! {
        <section class="messages" data-testid="messages">
            <For
                each=move || state.messages.get()
                key=|m| (m.id.clone(), m.content.len(), m.error.is_some(), m.incomplete)
                let:message
            >
                <Message message=message/>
            </For>
            <Show when=streaming_here>
                <StreamingMessage/>
            </Show>
        </section>
    }
}

#[component]
fn Message(message: MessageRecord) -> impl IntoView {
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::System => "system",
    };
    let footer = (message.role == Role::Assistant).then(|| {
        let mut parts = Vec::new();
        if let Some(m) = &message.model {
            parts.push(m.clone());
        }
        if let Some(u) = &message.usage {
            parts.push(format!("{} → {} tokens", u.prompt_tokens, u.completion_tokens));
        }
        view! { <footer class="message-meta" data-testid="message-meta">{parts.join(" · ")}</footer> }
    });
    let reasoning = message.reasoning.clone().map(|r| {
        view! { <details class="reasoning"><summary>"Reasoning"</summary><div class="text">{r}</div></details> }
    });
    view! {
        <article class=format!("message {role}") data-testid=format!("message-{role}")>
            {reasoning}
            <div class="text" data-testid="message-text">{message.content.clone()}</div>
            {message.error.clone().map(|e| view! { <div class="message-error" role="alert" data-testid="message-error">{e}</div> })}
            {message.stopped.then(|| view! { <div class="message-flag" data-testid="message-stopped">"Stopped"</div> })}
            {(message.finish == Some(air_chat::FinishReason::Length)).then(|| view! {
                <div class="message-flag" data-testid="message-truncated" title="Raise “max tokens” in Settings for longer answers">"Cut off at the token limit"</div>
            })}
            {message.incomplete.then(|| view! { <div class="message-flag" data-testid="message-incomplete">"Incomplete"</div> })}
            {footer}
        </article>
    }
}

#[component]
fn StreamingMessage() -> impl IntoView {
    let state = use_app();
    let text = move || state.streaming.with(|s| s.as_ref().map(|s| s.text.clone()).unwrap_or_default());
    let reasoning = move || state.streaming.with(|s| s.as_ref().map(|s| s.reasoning.clone()).unwrap_or_default());
    let model = move || state.streaming.with(|s| s.as_ref().map(|s| s.model.clone()).unwrap_or_default());
    view! {
        <article class="message assistant streaming" data-testid="message-streaming" aria-busy="true">
            <Show when=move || !reasoning().is_empty()>
                <details class="reasoning" open><summary>"Reasoning"</summary><div class="text">{reasoning}</div></details>
            </Show>
            <div class="text" data-testid="message-text">{text}<span class="cursor"></span></div>
            <footer class="message-meta">{model}" · answering…"</footer>
        </article>
    }
}

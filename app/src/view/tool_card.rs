//! A tool call's card: its arguments, approval, progress, result, the
//! View of an MCP App, a server's question, and a sign-in when the server
//! asks for one.

use air_agent::Approval;
use air_chat::Role;
use air_store::MessageRecord;
use air_store::records::ToolStatus;
use air_tools::Content;
use air_workspace::signin::{Action as SignIn, Outcome};
use leptos::prelude::*;

use crate::binding::state::use_app;
use crate::i18n::t;

/// A tool call's place in the conversation: its card, redrawn as the
/// record changes, and under it the tool's MCP App if it has one.
#[component]
pub(super) fn ToolSlot(id: String) -> impl IntoView {
    let state = use_app();
    let record = Memo::new(move |_| state.chat.messages.with(|m| m.iter().find(|x| x.id == id).cloned()));
    let app = record.with_untracked(|r| r.as_ref().and_then(|m| m.tool.as_ref()).and_then(|run| crate::binding::apps::app_of(state, run)));
    view! {
        {move || record.get().map(|message| view! { <ToolCard message=message/> })}
        {app.map(|(server, tool)| Suspend::new(async move { crate::binding::lazy::show(app_frame(record, server, tool).await) }))}
    }
}

/// An MCP App's View, with the host's code: fetched when one is shown.
#[crate::binding::lazy::split(app_frame, wasm_split_path = ::leptos::wasm_split, fallible)]
fn app_frame(record: Memo<Option<MessageRecord>>, server: air_store::mcp::McpServer, tool: air_store::mcp::SavedTool) -> Result<AnyView, crate::binding::lazy::NotFetched> {
    Ok(view! { <crate::view::app_frame::AppFrame record=record server=server tool=tool/> }.into_any())
}

/// A running call's question (MCP elicitation): its form is fetched when
/// one is asked.
#[crate::binding::lazy::split(question_form, wasm_split_path = ::leptos::wasm_split, fallible)]
fn question_form(record_id: String, request: air_tools::Elicitation) -> Result<AnyView, crate::binding::lazy::NotFetched> {
    Ok(view! { <crate::view::question::Question record_id=record_id request=request/> }.into_any())
}

/// One tool call: what was called with which arguments, where it stands,
/// and what came back. Collapsed once it has a result.
#[component]
fn ToolCard(message: MessageRecord) -> impl IntoView {
    let state = use_app();
    let Some(run) = message.tool.clone() else { return ().into_any() };
    let id = message.id.clone();
    // Still running or waiting, but no turn in this tab owns it: the tab
    // that ran it closed.
    let live = {
        let id = id.clone();
        // (or another tab is running it right now)
        move || state.chat.busy.get() || state.chat.awaiting.with(|a| a.contains(&id)) || state.chat.remote_streams.with(|r| r.contains(&id))
    };
    let pending = !run.status.is_final();
    let status = {
        let live = live.clone();
        let now = run.status;
        move || if pending && !live() { ("interrupted", t().tool_interrupted) } else { status_of(now) }
    };
    let status2 = status.clone();
    // Only the last round can be picked up again.
    let interrupted = {
        let live = live.clone();
        let id = id.clone();
        // (an imported call is offered again too: it asks before it runs)
        let came_unfinished = run.status == ToolStatus::Interrupted;
        move || (pending || came_unfinished) && !live() && state.chat.messages.with(|m| m.iter().rev().take_while(|x| x.role == Role::Tool).any(|x| x.id == id))
    };
    let source = run.server.as_deref().map(|s| air_render::visible(s).into_owned());
    let http = run.http;
    // Code the model wrote is shown as code, highlighted.
    let code = air_sandbox::tools::code_of(&run.name, &run.arguments);
    let args = serde_json::from_str::<serde_json::Value>(&run.arguments).ok().and_then(|v| serde_json::to_string_pretty(&v).ok()).unwrap_or_else(|| run.arguments.clone());
    let duration = run.duration_ms.map(|ms| if ms < 1000.0 { format!("{ms:.0} ms") } else { format!("{:.1} s", ms / 1000.0) });
    let output = output_view(&run.output);
    // Files it gave back (code wrote them): images shown, the rest saved when clicked.
    let files =
        (!message.attachments.is_empty()).then(|| view! { <div class="thumbs tool-files" data-testid="tool-files"><super::message_parts::Thumbnails files=message.attachments.clone()/></div> });
    let cut = run.full_chars.map(|n| {
        view! { <p class="tool-cut muted" data-testid="tool-cut">{move || t().tool_cut.replace("{n}", &air_tools_max()).replace("{m}", &n.to_string())}</p> }
    });
    let question = {
        let id = id.clone();
        move || {
            let q = state.chat.questions.with(|q| q.iter().find(|(m, _)| *m == id).map(|(_, e)| e.clone()))?;
            let id = id.clone();
            Some(Suspend::new(async move { crate::binding::lazy::show(question_form(id, q).await) }))
        }
    };
    // A server that now wants a sign-in (or more scope): offered here.
    let sign_in = run.server.clone().filter(|_| run.status == ToolStatus::Error).map(|server| view! { <ToolSignIn server=server/> });
    view! {
        <details class="tool-card" data-testid="tool-card" data-status=move || status2().0 open=pending || run.status == ToolStatus::Interrupted>
            <summary>
                <span class="tool-name iso" data-testid="tool-name">{air_render::visible(&run.name).into_owned()}</span>
                <span class="tool-source muted iso" data-testid="tool-source">{move || source.clone().unwrap_or_else(|| if http { t().tool_http } else { t().tool_builtin }.to_owned())}</span>
                <span class="tool-status" data-testid="tool-status">{move || status().1}</span>
                {duration.map(|d| view! { <span class="tool-duration muted" data-testid="tool-duration">{d}</span> })}
            </summary>
            {match code {
                Some((lang, code)) => view! { <pre class="tool-args tool-code" data-testid="tool-code"><code inner_html=air_render::highlight(lang.wire(), &code)/></pre> }.into_any(),
                None => view! { <pre class="tool-args" data-testid="tool-args">{args}</pre> }.into_any(),
            }}
            {pending.then(|| view! { <ToolProgress id=id.clone()/> })}
            {question}
            <div class="tool-output" data-testid="tool-output">{output}</div>
            {files}
            {sign_in}
            {cut}
            <Show when=move || interrupted()>
                <div class="tool-approval">
                    <button data-testid="run-again" on:click=move |_| state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Action::Start(air_workspace::turn::Job::Resume)))>{move || t().run_again}</button>
                </div>
            </Show>
            <ToolApproval id=id/>
        </details>
    }
    .into_any()
}

/// Where a call stands: its key (the card's `data-status`) and its words.
fn status_of(status: ToolStatus) -> (&'static str, &'static str) {
    let t = t();
    match status {
        ToolStatus::AwaitingApproval => ("awaiting", t.tool_awaiting),
        ToolStatus::Running => ("running", t.tool_running),
        ToolStatus::Done => ("done", t.tool_done),
        ToolStatus::Error => ("error", t.tool_error),
        ToolStatus::Denied => ("denied", t.tool_denied),
        ToolStatus::Stopped => ("stopped", t.tool_stopped),
        ToolStatus::Interrupted => ("interrupted", t.tool_interrupted),
    }
}

/// What a call gave back: text, images, audio and links (only http(s)).
fn output_view(output: &[Content]) -> AnyView {
    output
        .iter()
        .map(|c| match c {
            Content::Text { text } => view! { <pre class="tool-text">{text.clone()}</pre> }.into_any(),
            // Only images go in as images (an `<img>` runs no script, even SVG).
            Content::Image { mime, data } if mime.starts_with("image/") && !mime.contains([';', ',']) => {
                let src = format!("data:{mime};base64,{data}");
                view! { <img class="tool-image" src=src alt=""/> }.into_any()
            }
            Content::Image { mime, .. } => view! { <span class="muted">{format!("[{mime}]")}</span> }.into_any(),
            Content::Audio { mime, data } if mime.starts_with("audio/") && !mime.contains([';', ',']) => {
                let src = format!("data:{mime};base64,{data}");
                view! { <audio class="tool-audio" data-testid="tool-audio" controls src=src></audio> }.into_any()
            }
            Content::Audio { mime, .. } => view! { <span class="muted">{format!("[{mime}]")}</span> }.into_any(),
            Content::Link { uri, name } => {
                let safe = air_http::url::is_http(uri);
                let label = name.clone().unwrap_or_else(|| uri.clone());
                if safe { view! { <a href=uri.clone() target="_blank" rel="noopener noreferrer">{label}</a> }.into_any() } else { view! { <span>{label}</span> }.into_any() }
            }
        })
        .collect_view()
        .into_any()
}

/// How far a running call got, as its server reports.
#[component]
fn ToolProgress(id: String) -> impl IntoView {
    let state = use_app();
    move || {
        let p = state.chat.progress.with(|p| p.get(&id).cloned())?;
        let bar = match p.fraction() {
            Some(f) => view! { <progress max="1" value=f></progress> }.into_any(),
            None => view! { <progress></progress> }.into_any(),
        };
        let label = match (p.total, &p.message) {
            (_, Some(m)) => m.clone(),
            (Some(total), None) => format!("{} / {}", p.progress, total),
            (None, None) => p.progress.to_string(),
        };
        Some(view! { <div class="tool-progress" data-testid="tool-progress">{bar}<span class="muted">{label}</span></div> })
    }
}

/// The question a call waiting for the user asks (with how the tool
/// changed since it was approved, if it did), and the three answers.
#[component]
fn ToolApproval(id: String) -> impl IntoView {
    let state = use_app();
    let asking = {
        let id = id.clone();
        move || state.chat.awaiting.with(|a| a.contains(&id))
    };
    let change = {
        let id = id.clone();
        move || state.chat.changes.with(|c| c.iter().find(|(m, ..)| *m == id).map(|(_, old, now)| change_view(old.as_deref(), now)))
    };
    let answer = move |approval: Approval| {
        let id = id.clone();
        move |_| state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Action::Approve { record: id.clone(), approval }))
    };
    view! {
        <Show when=asking.clone()>
            {change.clone()}
            <div class="tool-approval" data-testid="tool-approval">
                <span>{move || t().tool_ask}</span>
                <button class="primary" data-testid="approve-once" on:click=answer(Approval::Once)>{move || t().allow_once}</button>
                <button data-testid="approve-always" on:click=answer(Approval::Always)>{move || t().allow_always}</button>
                <button data-testid="deny" on:click=answer(Approval::Deny)>{move || t().deny}</button>
            </div>
        </Show>
    }
}

/// "The server changed this tool since you approved it", and how, from
/// `old` (the face approved, when known) to `now`: lines gone and added
/// (unchanged ones dimmed).
pub(crate) fn change_view(old: Option<&air_tools::face::Face>, now: &air_tools::face::Face) -> AnyView {
    use air_tools::face::Line;
    let lines = old.map(|o| air_tools::face::lines(&o.text(), &now.text())).unwrap_or_default();
    let rows = lines
        .iter()
        .map(|l| match l {
            Line::Same(s) => view! { <div class="diff-same">{format!("  {s}")}</div> },
            Line::Gone(s) => view! { <div class="diff-gone">{format!("- {s}")}</div> },
            Line::Added(s) => view! { <div class="diff-added">{format!("+ {s}")}</div> },
        })
        .collect_view();
    let shown = !lines.is_empty();
    view! {
        <div class="tool-changed" data-testid="tool-changed" role="alert">
            <strong>{move || t().tool_changed}</strong>
            {shown.then(|| view! { <pre class="tool-diff" data-testid="tool-diff">{rows}</pre> })}
        </div>
    }
    .into_any()
}

/// "This server asks you to sign in", with the button, on a failed call's
/// card while the server waits for it.
#[component]
fn ToolSignIn(server: String) -> impl IntoView {
    let state = use_app();
    let url = state.prefs.mcp_servers.with_untracked(|l| l.iter().find(|s| s.name == server).map(|s| s.url.trim().to_owned())).unwrap_or_default();
    let needed = {
        let url = url.clone();
        move || state.prefs.sign_ins.with(|m| m.needed(&url))
    };
    let busy = {
        let url = url.clone();
        Signal::derive(move || state.prefs.sign_ins.with(|m| m.running(&url)))
    };
    // Said once a sign-in started from this card ends.
    let clicked = RwSignal::new(false);
    let outcome = {
        let url = url.clone();
        move || {
            if !clicked.get() {
                return None;
            }
            state.prefs.sign_ins.with(|m| match m.outcome(&url) {
                Some(Outcome::Done) => Some(state.t().tool_signed_in.to_owned()),
                Some(Outcome::Failed(e)) => Some(state.t().mcp_sign_in_failed.replace("{e}", &crate::binding::oauth::failure_text(state, e))),
                _ => None,
            })
        }
    };
    let click = move |_| {
        clicked.set(true);
        state.dispatch(air_workspace::Command::SignIn(SignIn::Start { url: url.clone(), client_id: None, form: None }));
    };
    view! {
        <Show when=needed.clone()>
            <div class="tool-approval" data-testid="tool-sign-in">
                <span>{move || t().mcp_sign_in_needed}</span>
                <button class="primary" data-testid="tool-sign-in-button" disabled=busy on:click=click.clone()>
                    {move || if busy.get() { t().mcp_signing_in } else { t().mcp_sign_in }}
                </button>
            </div>
        </Show>
        {move || outcome().map(|o| view! { <p class="muted" data-testid="tool-sign-in-outcome">{o}</p> })}
    }
}

fn air_tools_max() -> String {
    air_agent::MAX_TOOL_TEXT.to_string()
}

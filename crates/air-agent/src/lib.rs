//! The turn and the tool loop, over an injected environment.
//!
//! A turn starts with a user action (send, regenerate, continue, edit and
//! resend) and ends when the model answers without asking for tools, the
//! round limit is reached, something fails, or the user stops it. Between,
//! it: saves the user message; optionally streams a Transitive Thinking
//! chain; streams each answer with retries, checkpointing it as it grows;
//! runs the tools the answer asks for (in parallel, validated, approved,
//! stoppable) and stores their results as `tool` messages; and asks again.
//!
//! Everything outside comes through [`Env`] (module `env`): clock, ids,
//! sleep, HTTP, the store, template variables, the approval question, a
//! server's questions (`Env::elicit`), and the [`Event`]s the UI turns into
//! signals (`MessageSaved`, `StreamStarted`/`Delta`/`Ended`, `Broadcast`,
//! `ToolProgress`…: all the UI learns). So every turn runs on the host,
//! deterministically, and its tests are transcripts of what was sent and
//! what happened.
//!
//! Modules:
//!
//! * [`conversation`] (stored records → a request; it uses nothing else of
//!   the crate): the system-prompt template, `build_request` (failed answers
//!   and special messages left out; every tool call answered by one `tool`
//!   message right after its assistant message, a missing or unfinished
//!   result by a fixed "no result" text, and a stray result dropped, because
//!   providers reject anything else; a Transitive Thinking chain that
//!   precedes the answer goes into the system prompt),
//!   `build_thought_request`, `build_prompt_mode_request`, and `Checkpoint`
//!   (save a streaming answer at most every 500 ms).
//! * [`provider`]: the leaf the turn stands on: the key header (sent only
//!   to the configured base URL), `send` (the one place an unsuccessful
//!   answer is read: statuses classified, CORS told apart from a network
//!   failure, Stop), and the requests made outside a turn (the model list,
//!   the tool-calling probe, one-off completions). It uses nothing else of
//!   the crate, so the crate's modules form no cycle.
//! * `stream`: one streamed request: retries, checkpoints, the stored
//!   result. An answer shown as it arrives is held in pieces of 256 KiB,
//!   handed to the store as they are at a checkpoint
//!   (`Store::put_message_parts`: IndexedDB joins them as JavaScript
//!   strings) and joined once when it is saved, so its text is never held
//!   in one buffer grown and copied again and again. Text files attached
//!   are given to the model after their message's text.
//! * `tools`: one round of calls. Each call is checked (a known tool,
//!   arguments parsed and valid, not denied, not an identical repeat within
//!   the turn), approved where the policy says so, and run concurrently with
//!   the others (at most `MAX_CALLS_PER_ROUND`, 16, per answer; each raced
//!   against Stop, and a stopped call gets up to 2 s to cancel its work on
//!   its server first). Its result is stored as a `tool` message: the whole
//!   output for the card (at most 4 MB), at most [`MAX_TOOL_TEXT`] (16,000)
//!   characters for the model.
//! * `turn`: [`Turn`]: `send` (and `send_with_files`: context after the
//!   text, which does not title the chat, and images, each stored as a file
//!   before the message that names it), `regenerate`, `continue_answer`,
//!   `edit_and_resend` (the last two keep what they replace as an
//!   alternative, `air_store::branches`: every message a turn writes goes on
//!   the branch shown, and every request is built from it), `resume_tools`
//!   (a tool round a closed tab left unfinished) and `warm` (the in-browser
//!   model reads the next request ahead: the tool-calling probe if not known
//!   yet, then the request the next message will make with that message
//!   empty and `max_tokens: 0`, nothing shown or saved). While the answer
//!   asks for tools and rounds are left (`max_tool_rounds`), it runs them
//!   and asks again; hitting the limit answers the last calls as not run
//!   and stores a `round-limit` notice. `Turn::with_offer` takes dynamic
//!   loading's `air_tools::offer::Offer`: native requests list only what is
//!   offered, prompt mode describes only that, and calls of other tools are
//!   asked of the offer.
//! * [`text`]: the few sentences a turn writes itself, in the user's
//!   language.
//!
//! Tools reach the model one of three ways ([`ToolMode`]): natively (the
//! request's `tools`), through the prompt (the tools section in the system
//! prompt, calls written back as `<tool_call>` text, results as one user
//! message of `<tool_response>` blocks; the answer's calls are read out of
//! its text while it streams and never shown), or auto: a one-off probe
//! (`provider::probe_tool_calling`) per provider and model decides, and the
//! finding is remembered in the settings (`Event::ToolCallingLearnt`). A way
//! set by hand in Settings → Models is in the same map, so auto uses it and
//! does not probe.
//!
//! Its tests (`tests/turns_*.rs`: streaming, branches, tools, approvals,
//! dynamic loading) drive whole turns against `ScriptedHttp` and a logging
//! `MemoryStore` and compare transcripts (every store write, every event,
//! every request body) with golden files in `tests/transcripts/`
//! (`UPDATE_EXPECT=1` rewrites them). One test checks that the next
//! request after a reload (all records through JSON) is byte for byte the
//! same. `tests/turns_dynamic.rs` runs the same turn with every "off"
//! combination of dynamic loading's switches, native and prompt, and
//! compares every request with the turn without the feature.
//!
//! Architecture invariant: a turn reads no clock, makes no ids and does no
//! IO except through its [`Env`].

pub mod conversation;
mod env;
pub mod provider;
mod stream;
pub mod text;
mod tools;
mod turn;

pub use env::{Approval, Env, Event, Status};
pub use provider::auth_header;
pub use tools::MAX_TOOL_TEXT;
pub use turn::{NewFile, ToolMode, Turn};

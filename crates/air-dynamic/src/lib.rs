//! MCP dynamic loading (seed 001), without IO. The app's side is
//! `air_workspace::dynamic` (the catalog kept up to date, the summarizer,
//! the metrics) and the loaders' kind of tool in `air_workspace::toolbox`.
//!
//! With many servers, the model is not given every tool schema. It gets a
//! one-line catalog entry per server and two loaders; what it loads joins
//! the tools of the next request, per conversation, for as long as it
//! stays valid.
//!
//! - [`enabled`]: the switches (global, and the assistant's, on by
//!   default).
//! - `catalog` ([`Catalog`], [`schema_hash`]: FNV-1a 64 of the canonical
//!   JSON of an input schema): per server a summary (the summarizer's, or
//!   "N tools: …" until then), an epoch and the last refresh; per tool a
//!   summary (the description's first sentence until summarized), keywords,
//!   the schema hash and the epoch it last changed in.
//!   [`Catalog::refresh`] rebuilds it from the saved servers and moves a
//!   server's epoch when its model-visible tools are added, removed, changed
//!   or switched off or on, or the server itself is switched (a refresh that
//!   finds everything as it was keeps the epoch and the summaries written
//!   for it). [`Catalog::summarized`] takes the summarizer's text only for
//!   the epoch it was written for, dated (`summary_generated_at`, ms;
//!   absent in older documents, and while the fallback is in use).
//! - `loaded` ([`Loaded`]): a conversation's loaded tools (schema hash,
//!   epoch, status, reason, source: `manual`, `auto` or `policy_preload`,
//!   times). [`Loaded::gate`] marks each `invalid_deleted` (its server
//!   removed, or the server no longer lists it), `invalid_server_disabled`,
//!   `invalid_disabled` (switched off, or left out when the server was added
//!   again), `invalid_changed` (another schema hash) or `invalid_renamed`
//!   (gone while exactly one new tool of its schema appeared), or valid
//!   again; a valid tool found valid at a later epoch of its server is
//!   restamped with it, so every valid tool's epoch is its server's.
//! - `finder` ([`Finder`]): the catalog on two `air_search` indexes
//!   (servers, tools), updated incrementally.
//! - `loaders`: [`answer_load_server`] and [`answer_load_tools`] answer
//!   `load_mcp_server` and `load_mcp_tool` from the finder (exact names
//!   first, then the best match; tool answers carry the name to call and
//!   the full schema); [`loader_defs`], [`prompt_section`] and
//!   [`not_loaded_error`] are what the model reads.
//! - `session` ([`Session`], [`prepare`]): one conversation's dynamic
//!   loading for a turn. It implements `air_tools::offer::Offer`: offer the
//!   built-ins, the loaders and the valid loaded tools, after the validity
//!   gate; add the catalog to the system prompt; refuse a call of a tool not
//!   loaded, or load it once when "auto-load" is on; count each request's
//!   estimated tool context and, from `Offer::note_answer`, the prompt
//!   tokens the provider reported and the rounds that only loaded tools. It
//!   provides the two loader tools; `Session::preload` loads what the
//!   chat's assistant preloads. `prepare` returns the offer and registers
//!   the loaders only when both switches are on and some switched-on server
//!   offers a tool, so with the feature off a turn is untouched
//!   (`air-agent`'s `tests/turns_dynamic.rs` compares every request).
//! - `metrics` ([`Metrics`]): the token counts and rates the side panel and
//!   Settings show.
//! - `summarizer`: the summarizer's prompt, input and parsing;
//!   [`summarize_one`] asks about one server and says why nothing came
//!   ([`SummaryFailure`]: an HTTP status, a timeout, the provider
//!   unreachable, an answer that cannot be read).
//! - [`docs`]: where all of that is kept in the store.

mod catalog;
pub mod docs;
mod finder;
mod loaded;
mod loaders;
mod metrics;
mod session;
mod summarizer;

pub use catalog::{Catalog, ServerEntry, ToolEntry, first_sentence, keywords, schema_hash};
pub use finder::Finder;
pub use loaded::{Loaded, LoadedTool, Source, Status};
pub use loaders::{answer_load_server, answer_load_tools, loader_defs, not_loaded_error, prompt_section};
pub use metrics::{Metrics, estimate_tokens};
pub use session::{Session, prepare};
pub use summarizer::{Failure as SummaryFailure, SUMMARIZER_PROMPT, Summaries, parse_summaries, summarize_one, summarizer_input, unsummarized};

/// The loader tools' names.
pub const LOAD_SERVER: &str = "load_mcp_server";
pub const LOAD_TOOL: &str = "load_mcp_tool";

/// Dynamic behaviour only when the global switch is on and the assistant
/// does not turn it off (its override is on by default).
pub fn enabled(global: bool, assistant_override: Option<bool>) -> bool {
    global && assistant_override.unwrap_or(true)
}

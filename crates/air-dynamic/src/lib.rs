//! MCP dynamic loading (seed 001), without IO.
//!
//! With many servers, the model is not given every tool schema. It gets a
//! one-line catalog entry per server and two loaders; what it loads joins
//! the tools of the next request, per conversation, for as long as it
//! stays valid.
//!
//! - [`enabled`]: the switches (global, per assistant).
//! - [`Catalog`]: per server a summary, an epoch and the last refresh; per
//!   tool a summary, keywords, the hash of its input schema and the epoch
//!   it was seen in. Rebuilt from the saved servers with
//!   [`Catalog::refresh`], which moves a server's epoch on when its tools
//!   changed.
//! - [`Loaded`]: the tools a conversation loaded, with their status;
//!   [`Loaded::gate`] checks each against the catalog before every request.
//! - [`Finder`]: the catalog on an `air_search::Index`, answering
//!   `load_mcp_server` and `load_mcp_tool` locally.
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

//! Conversations exported by other chat apps, made this app's
//! [`air_store::export::Export`], which `air_store::import` then writes as
//! it writes its own (never over anything, tool calls never runnable).
//!
//! * [`chatgpt`]: ChatGPT's `conversations.json`: each conversation's
//!   message tree becomes branches, the one it showed (`current_node`)
//!   shown here.
//! * [`tree`]: what every format's conversation becomes a session by
//!   (messages with parents → numbered, linked, branches, one shown).
//!
//! Every id is made from the file's own (`chatgpt-…`), so importing the
//! same file twice adds nothing the second time.

pub mod chatgpt;
pub mod tree;

/// What an import brought, to tell the user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub conversations: usize,
    pub messages: usize,
    /// Hidden messages left out (system prompts, context the app kept
    /// from view).
    pub hidden: usize,
    /// Parts kept as a line of text instead (an image without its bytes,
    /// a tool's display).
    pub as_text: usize,
    /// Conversations that could not be read, with why.
    pub skipped: Vec<String>,
    /// The file held API keys or other credentials, left out.
    pub keys_left_out: bool,
}

//! Offering part of a registry: the model is sent some tools, and may
//! still call others (MCP dynamic loading decides which, and what a call of
//! one not offered gets).

use crate::{Registry, ToolDef};

pub trait Offer {
    /// The definitions a request offers now, in the registry's order. Asked
    /// before each request (what was loaded since, or has gone invalid,
    /// shows there).
    fn offered<'a>(&self, all: &'a Registry) -> Vec<&'a ToolDef>;

    /// What the system prompt says about the tools that are not offered.
    fn prompt(&self) -> Option<String>;

    /// A call of a registry tool that was not offered: `Err` with what the
    /// model is told, or `Ok` to run it (loaded on the spot).
    fn admit(&self, name: &str) -> Result<(), String>;

    /// A request is being sent with `offered` out of `all` (for metrics).
    fn note_request(&self, _all: &Registry, _offered: &[&ToolDef]) {}

    /// The answer to that request came: the prompt tokens the provider
    /// counted for it (if it said), and the names of the tools it calls
    /// (for metrics).
    fn note_answer(&self, _prompt_tokens: Option<u64>, _calls: &[&str]) {}
}

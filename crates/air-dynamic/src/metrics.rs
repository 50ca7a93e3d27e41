//! What dynamic loading did and saved, counted per conversation.

use serde::{Deserialize, Serialize};

/// What dynamic loading did, and what it saved (NFR-3), per conversation
/// and added up over all of them.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Metrics {
    /// Requests sent with dynamic loading.
    pub requests: u64,
    /// Names asked of `load_mcp_tool`, and how many found a tool.
    pub asked: u64,
    pub found: u64,
    /// Calls of tools that were not loaded (refused, or loaded on the spot).
    pub unloaded_calls: u64,
    /// Loaded tools that became invalid.
    pub invalidations: u64,
    /// Loader calls: each costs the model one more step.
    pub extra_steps: u64,
    /// Estimated tokens of tool context sent, and what every tool would
    /// have cost.
    pub context_tokens: u64,
    pub context_tokens_without: u64,
}

impl Metrics {
    /// The share of asked names that found a tool.
    pub fn hit_rate(&self) -> Option<f64> {
        (self.asked > 0).then(|| self.found as f64 / self.asked as f64)
    }

    pub fn add(&mut self, o: &Metrics) {
        self.requests += o.requests;
        self.asked += o.asked;
        self.found += o.found;
        self.unloaded_calls += o.unloaded_calls;
        self.invalidations += o.invalidations;
        self.extra_steps += o.extra_steps;
        self.context_tokens += o.context_tokens;
        self.context_tokens_without += o.context_tokens_without;
    }

    /// What happened since `earlier`.
    pub fn since(&self, earlier: &Metrics) -> Metrics {
        Metrics {
            requests: self.requests.saturating_sub(earlier.requests),
            asked: self.asked.saturating_sub(earlier.asked),
            found: self.found.saturating_sub(earlier.found),
            unloaded_calls: self.unloaded_calls.saturating_sub(earlier.unloaded_calls),
            invalidations: self.invalidations.saturating_sub(earlier.invalidations),
            extra_steps: self.extra_steps.saturating_sub(earlier.extra_steps),
            context_tokens: self.context_tokens.saturating_sub(earlier.context_tokens),
            context_tokens_without: self.context_tokens_without.saturating_sub(earlier.context_tokens_without),
        }
    }
}

/// A rough token count for the page, which ships no tokenizer: a token per
/// four characters (the benchmark counts real ones).
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

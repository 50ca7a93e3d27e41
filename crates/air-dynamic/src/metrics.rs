//! What dynamic loading did and saved, counted per conversation.

use serde::{Deserialize, Serialize};

/// What dynamic loading did, and what it saved (NFR-3), per conversation
/// and added up over all of them.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Metrics {
    /// Requests sent with dynamic loading, and the turns they were in.
    pub requests: u64,
    pub turns: u64,
    /// Names asked of `load_mcp_tool`, and how many found a tool.
    pub asked: u64,
    pub found: u64,
    /// Calls of tools that were not loaded (refused, or loaded on the spot).
    pub unloaded_calls: u64,
    /// Loaded tools that became invalid.
    pub invalidations: u64,
    /// Model rounds that only loaded tools: rounds the model would not
    /// have needed with every tool offered.
    pub extra_steps: u64,
    /// Estimated tokens of tool context sent, and what every tool would
    /// have cost ([`estimate_tokens`]).
    pub context_tokens: u64,
    pub context_tokens_without: u64,
    /// Requests whose prompt tokens the provider counted; those tokens;
    /// and what those prompts would have counted with every tool (the
    /// provider's count, less the estimated tool context sent, plus the
    /// estimated context of every tool).
    pub measured_requests: u64,
    pub prompt_tokens: u64,
    pub prompt_tokens_without: u64,
}

impl Metrics {
    /// The share of asked names that found a tool.
    pub fn hit_rate(&self) -> Option<f64> {
        (self.asked > 0).then(|| self.found as f64 / self.asked as f64)
    }

    /// Loaded tools that went invalid, per turn.
    pub fn invalidation_rate(&self) -> Option<f64> {
        (self.turns > 0).then(|| self.invalidations as f64 / self.turns as f64)
    }

    pub fn add(&mut self, o: &Metrics) {
        self.requests += o.requests;
        self.turns += o.turns;
        self.measured_requests += o.measured_requests;
        self.prompt_tokens += o.prompt_tokens;
        self.prompt_tokens_without += o.prompt_tokens_without;
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
            turns: self.turns.saturating_sub(earlier.turns),
            measured_requests: self.measured_requests.saturating_sub(earlier.measured_requests),
            prompt_tokens: self.prompt_tokens.saturating_sub(earlier.prompt_tokens),
            prompt_tokens_without: self.prompt_tokens_without.saturating_sub(earlier.prompt_tokens_without),
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

/// An estimate of the tokens of `text`, for the page, which ships no
/// tokenizer (the provider's own count is used where it gives one): a
/// token per four characters of Latin text, one per CJK character, and
/// one per other non-ASCII character, as BPE tokenizers of the GPT and
/// Llama families roughly count. Shown as an estimate.
pub fn estimate_tokens(text: &str) -> u64 {
    let (mut ascii, mut other) = (0u64, 0u64);
    for c in text.chars() {
        if c.is_ascii() { ascii += 1 } else { other += 1 }
    }
    ascii.div_ceil(4) + other
}

//! Where dynamic loading keeps its state in the store, typed.

use air_store::doc::Doc;

use crate::{Catalog, Loaded, Metrics};

/// The catalog of every saved server's tools, with their summaries.
pub const CATALOG: Doc<Catalog> = Doc::fixed("mcp-catalog");

/// The counts of loads, calls and tokens over all conversations.
pub const METRICS: Doc<Metrics> = Doc::fixed("mcp-metrics");

/// What the keys of the conversations' loaded tools begin with.
pub const LOADED_PREFIX: &str = "mcp-loaded/";

/// The tools a conversation loaded.
pub fn loaded(session: &str) -> Doc<Loaded> {
    Doc::keyed(format!("{LOADED_PREFIX}{session}"))
}

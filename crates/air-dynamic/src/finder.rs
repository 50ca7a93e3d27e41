//! The catalog on a search index, to find servers and tools by what they do.

use air_search::Index;

use crate::{Catalog, ServerEntry, ToolEntry};

/// The catalog on a search index: servers and tools, found by what they
/// do, in English or Chinese.
#[derive(Debug, Default)]
pub struct Finder {
    servers: Index,
    tools: Index,
}

fn tool_key(server: &str, tool: &str) -> String {
    format!("{server}\u{1f}{tool}")
}

impl Finder {
    pub fn new(catalog: &Catalog) -> Self {
        let mut f = Finder::default();
        f.update(catalog);
        f
    }

    /// Brings the index in line with `catalog` (incrementally: only what
    /// changed is re-indexed).
    pub fn update(&mut self, catalog: &Catalog) {
        let servers: Vec<&ServerEntry> = catalog.servers.iter().filter(|s| s.enabled).collect();
        for s in &servers {
            let tools: Vec<&ToolEntry> = catalog.tools.iter().filter(|t| t.server == s.name).collect();
            let names = tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(" ");
            let summaries = tools.iter().map(|t| t.summary.as_str()).collect::<Vec<_>>().join(" ");
            self.servers.upsert(&s.name, &[(&s.name, 3.0), (&s.summary, 1.5), (&names, 1.0), (&summaries, 0.7)]);
        }
        let gone: Vec<String> = catalog.servers.iter().filter(|s| !s.enabled).map(|s| s.name.clone()).collect();
        for name in gone {
            self.servers.remove(&name);
        }
        let mut live = std::collections::HashSet::new();
        for t in catalog.tools.iter().filter(|t| servers.iter().any(|s| s.name == t.server)) {
            let key = tool_key(&t.server, &t.name);
            let keywords = t.keywords.join(" ");
            self.tools.upsert(&key, &[(&t.name, 3.0), (&t.summary, 1.5), (&keywords, 1.0), (&t.server, 0.5)]);
            live.insert(key);
        }
        // Tools no longer in the catalog: the index forgets them.
        let stale: Vec<String> = self.tool_keys().into_iter().filter(|k| !live.contains(k)).collect();
        for k in stale {
            self.tools.remove(&k);
        }
    }

    fn tool_keys(&self) -> Vec<String> {
        self.tools.ids().map(str::to_owned).collect()
    }

    /// Servers for a need or a name, best first.
    pub fn servers(&self, query: &str, limit: usize) -> Vec<String> {
        self.servers.search(query, limit).into_iter().map(|h| h.id).collect()
    }

    /// Tools for a need or a name (optionally within one server), best
    /// first, as (server, tool).
    pub fn tools(&self, query: &str, server: Option<&str>, limit: usize) -> Vec<(String, String)> {
        self.tools
            .search(query, if server.is_some() { limit * 20 } else { limit })
            .into_iter()
            .filter_map(|h| h.id.split_once('\u{1f}').map(|(s, t)| (s.to_owned(), t.to_owned())))
            .filter(|(s, _)| server.is_none_or(|want| want == s))
            .take(limit)
            .collect()
    }
}

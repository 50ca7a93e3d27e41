//! One conversation's dynamic loading for a turn: the tools offered, the
//! loaders run, and the turn's set-up.

use air_store::mcp::McpServer;
use serde_json::Value;

use crate::{Catalog, Finder, LOAD_SERVER, LOAD_TOOL, Loaded, Source, answer_load_server, answer_load_tools, enabled, estimate_tokens, loader_defs, not_loaded_error, prompt_section};

/// One conversation's dynamic loading for a turn: the catalog, its index,
/// the saved servers, the conversation's loaded set, and the registry
/// names of the MCP tools. Offers the built-in tools, the loaders and the
/// valid loaded tools ([`air_tools::offer::Offer`]); the loaders are
/// [`Session::loaders`].
pub struct Session {
    catalog: Catalog,
    finder: Finder,
    servers: Vec<McpServer>,
    loaded: std::cell::RefCell<Loaded>,
    /// (server, tool) → the name the model calls.
    names: Vec<(String, String, String)>,
    auto_load: bool,
    now: Box<dyn Fn() -> f64>,
    /// Told each time the loaded set changes (to be saved).
    on_change: Box<dyn Fn(&Loaded)>,
    /// The estimated tool context of the request under way, and of every
    /// tool (for the provider's count of its prompt); whether this turn
    /// was counted.
    last_context: std::cell::Cell<(u64, u64)>,
    counted_turn: std::cell::Cell<bool>,
}

impl Session {
    /// `names`: (server, tool, registry name) of the MCP tools registered;
    /// `auto_load`: a call of a tool that is not loaded loads it and runs.
    pub fn new(
        catalog: Catalog,
        servers: Vec<McpServer>,
        loaded: Loaded,
        names: Vec<(String, String, String)>,
        auto_load: bool,
        now: Box<dyn Fn() -> f64>,
        on_change: Box<dyn Fn(&Loaded)>,
    ) -> std::rc::Rc<Self> {
        let finder = Finder::new(&catalog);
        let (last_context, counted_turn) = (std::cell::Cell::new((0, 0)), std::cell::Cell::new(false));
        std::rc::Rc::new(Session { catalog, finder, servers, loaded: std::cell::RefCell::new(loaded), names, auto_load, now, on_change, last_context, counted_turn })
    }

    /// The two loader tools, to register with the turn's tools.
    pub fn loaders(self: &std::rc::Rc<Self>) -> Vec<std::rc::Rc<dyn air_tools::Tool>> {
        loader_defs().into_iter().map(|def| std::rc::Rc::new(Loader { def, session: self.clone() }) as std::rc::Rc<dyn air_tools::Tool>).collect()
    }

    /// Loads what the conversation's assistant preloads (server, tool)
    /// and is not loaded and valid already; said as a change if any was.
    pub fn preload(&self, tools: &[(String, String)]) {
        let now = (self.now)();
        let mut any = false;
        {
            let mut loaded = self.loaded.borrow_mut();
            loaded.gate(&self.catalog, &self.servers, now);
            for (server, tool) in tools {
                if !loaded.is_loaded(server, tool) && self.mcp_tool_of(&self.registry_name(server, tool)).is_some() {
                    any |= loaded.load(&self.catalog, server, tool, Source::PolicyPreload, now);
                }
            }
        }
        if any {
            self.changed();
        }
    }

    /// The conversation's loaded set as it stands.
    pub fn loaded(&self) -> Loaded {
        self.loaded.borrow().clone()
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    fn registry_name(&self, server: &str, tool: &str) -> String {
        self.names.iter().find(|(s, t, _)| s == server && t == tool).map_or_else(|| tool.to_owned(), |(_, _, n)| n.clone())
    }

    fn mcp_tool_of(&self, name: &str) -> Option<(&str, &str)> {
        self.names.iter().find(|(_, _, n)| n == name).map(|(s, t, _)| (s.as_str(), t.as_str()))
    }

    fn changed(&self) {
        let loaded = self.loaded.borrow().clone();
        (self.on_change)(&loaded);
    }
}

impl air_tools::offer::Offer for Session {
    fn offered<'a>(&self, all: &'a air_tools::Registry) -> Vec<&'a air_tools::ToolDef> {
        // The validity gate, before every request.
        let changed = self.loaded.borrow_mut().gate(&self.catalog, &self.servers, (self.now)());
        if changed {
            self.changed();
        }
        let offered: Vec<&air_tools::ToolDef> = {
            let loaded = self.loaded.borrow();
            all.definitions()
                .filter(|d| match &d.source {
                    // HTTP tools are few and the user's own: offered like built-ins.
                    air_tools::ToolSource::BuiltIn | air_tools::ToolSource::Http => true,
                    air_tools::ToolSource::Mcp { .. } => self.mcp_tool_of(&d.name).is_some_and(|(s, t)| loaded.is_loaded(s, t)),
                })
                .collect()
        };
        offered
    }

    fn note_request(&self, all: &air_tools::Registry, offered: &[&air_tools::ToolDef]) {
        // What this request's tool context costs, and what every tool
        // (without the loaders) would have.
        let json = |defs: &mut dyn Iterator<Item = &air_tools::ToolDef>| defs.map(|d| d.to_openai().to_string()).collect::<Vec<_>>().join(",");
        let with = estimate_tokens(&json(&mut offered.iter().copied())) + estimate_tokens(&prompt_section(&self.catalog));
        let without = estimate_tokens(&json(&mut all.definitions().filter(|d| d.name != LOAD_SERVER && d.name != LOAD_TOOL)));
        self.last_context.set((with, without));
        {
            let mut l = self.loaded.borrow_mut();
            l.metrics.requests += 1;
            l.metrics.turns += u64::from(!self.counted_turn.replace(true));
            l.metrics.context_tokens += with;
            l.metrics.context_tokens_without += without;
        }
        self.changed();
    }

    fn note_answer(&self, prompt_tokens: Option<u64>, calls: &[&str]) {
        let mut l = self.loaded.borrow_mut();
        if let Some(p) = prompt_tokens {
            let (with, without) = self.last_context.get();
            l.metrics.measured_requests += 1;
            l.metrics.prompt_tokens += p;
            l.metrics.prompt_tokens_without += p.saturating_sub(with) + without;
        }
        // A round that only loaded tools is one the model needed because
        // they were not offered.
        if !calls.is_empty() && calls.iter().all(|c| *c == LOAD_SERVER || *c == LOAD_TOOL) {
            l.metrics.extra_steps += 1;
        }
        drop(l);
        self.changed();
    }

    fn prompt(&self) -> Option<String> {
        Some(prompt_section(&self.catalog))
    }

    fn admit(&self, name: &str) -> Result<(), String> {
        let Some((server, tool)) = self.mcp_tool_of(name) else { return Ok(()) };
        if self.loaded.borrow().is_loaded(server, tool) {
            return Ok(());
        }
        self.loaded.borrow_mut().metrics.unloaded_calls += 1;
        let usable = self.catalog.tool(server, tool).is_some() && self.catalog.server(server).is_some_and(|s| s.enabled);
        if self.auto_load && usable && self.loaded.borrow_mut().load(&self.catalog, server, tool, Source::Auto, (self.now)()) {
            self.changed();
            return Ok(());
        }
        self.changed();
        Err(not_loaded_error(name))
    }
}

/// `load_mcp_server` or `load_mcp_tool`.
struct Loader {
    def: air_tools::ToolDef,
    session: std::rc::Rc<Session>,
}

impl air_tools::Tool for Loader {
    fn def(&self) -> &air_tools::ToolDef {
        &self.def
    }

    fn call<'a>(&'a self, args: Value, _ctx: air_tools::CallContext<'a>) -> futures_util::future::LocalBoxFuture<'a, air_tools::ToolOutput> {
        let s = &self.session;
        let answer = if self.def.name == LOAD_SERVER {
            answer_load_server(&s.catalog, &s.finder, args.get("name").and_then(Value::as_str).unwrap_or_default())
        } else {
            let names: Vec<String> = match args.get("names") {
                Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
                Some(Value::String(one)) => vec![one.clone()],
                _ => Vec::new(),
            };
            let server = args.get("server_name").and_then(Value::as_str).filter(|v| !v.trim().is_empty());
            let (answer, pairs) = answer_load_tools(&s.catalog, &s.finder, &s.servers, &names, server, |sv, t| s.registry_name(sv, t));
            {
                let mut l = s.loaded.borrow_mut();
                l.metrics.asked += names.len() as u64;
                l.metrics.found += names.len().saturating_sub(answer.get("not_found").and_then(Value::as_array).map_or(0, Vec::len)) as u64;
            }
            if !pairs.is_empty() {
                let now = (s.now)();
                {
                    let mut loaded = s.loaded.borrow_mut();
                    for (sv, t) in &pairs {
                        loaded.load(&s.catalog, sv, t, Source::Manual, now);
                    }
                }
                s.changed();
            }
            answer
        };
        if self.def.name == LOAD_SERVER {
            s.changed();
        }
        let text = serde_json::to_string_pretty(&answer).unwrap_or_default();
        Box::pin(std::future::ready(air_tools::ToolOutput::text(text)))
    }
}

/// What a turn needs for dynamic loading, only when it is on (both
/// switches): the loaders are added to `registry` and the session is the
/// turn's offer. Off, nothing is touched and the turn is as it always was;
/// so too with no server switched on that offers a tool (there is nothing
/// to load: the loaders are not offered).
pub fn prepare(global: bool, assistant: Option<bool>, registry: &mut air_tools::Registry, session: impl FnOnce() -> std::rc::Rc<Session>) -> Option<std::rc::Rc<dyn air_tools::offer::Offer>> {
    if !enabled(global, assistant) {
        return None;
    }
    let session = session();
    let catalog = session.catalog();
    if !catalog.servers.iter().any(|s| s.enabled && catalog.tools.iter().any(|t| t.server == s.name)) {
        return None;
    }
    for loader in session.loaders() {
        registry.register(loader);
    }
    Some(session)
}

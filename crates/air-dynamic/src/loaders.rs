//! The two loader tools: their definitions, the prompt that explains them
//! and their answers.

use air_store::mcp::McpServer;
use serde_json::{Value, json};

use crate::{Catalog, Finder, LOAD_SERVER, LOAD_TOOL};

/// The loader tools, as the model sees them.
pub fn loader_defs() -> Vec<air_tools::ToolDef> {
    use air_tools::{Annotations, ToolDef, ToolSource};
    let read_only = Annotations { read_only_hint: Some(true), ..Annotations::default() };
    vec![
        ToolDef {
            name: LOAD_SERVER.into(),
            description: "Show what one MCP server offers: its summary and a one-line summary of each of its tools. Give the server's name, or words for what you need.".into(),
            input_schema: json!({"type": "object", "properties": {"name": {"type": "string", "description": "A server name, or words for what you need"}}, "required": ["name"]}),
            annotations: read_only.clone(),
            source: ToolSource::BuiltIn,
            mcp: None,
        },
        ToolDef {
            name: LOAD_TOOL.into(),
            description: "Load MCP tools so you can call them from your next step: gives their full parameters. Give tool names, or words for what each should do.".into(),
            input_schema: json!({"type": "object", "properties": {
                "names": {"type": "array", "items": {"type": "string"}, "description": "Tool names, or words for what each should do"},
                "server_name": {"type": "string", "description": "Only look in this server"}
            }, "required": ["names"]}),
            annotations: read_only,
            source: ToolSource::BuiltIn,
            mcp: None,
        },
    ]
}

/// The system prompt's section on loading tools, with the catalog.
pub fn prompt_section(catalog: &Catalog) -> String {
    format!(
        "MCP servers are connected, but their tools are not loaded yet. To use one: call `{LOAD_SERVER}` to see what a server offers, then `{LOAD_TOOL}` with the tools you need; loaded tools can be called from your next step. Do not call a tool before loading it.\nServers:\n{}",
        catalog.context_lines()
    )
}

/// `load_mcp_server`'s answer: the best server for `name` with its tools'
/// summaries, or what there is when nothing matches.
pub fn answer_load_server(catalog: &Catalog, finder: &Finder, name: &str) -> Value {
    let exact = catalog.servers.iter().find(|s| s.enabled && s.name.eq_ignore_ascii_case(name.trim()));
    let found = exact.map(|s| s.name.clone()).or_else(|| finder.servers(name, 1).into_iter().next());
    match found.and_then(|n| catalog.server(&n)) {
        Some(s) => json!({
            "server": s.name,
            "summary": s.summary,
            "tools": catalog.tools.iter().filter(|t| t.server == s.name).map(|t| json!({"name": t.name, "summary": t.summary})).collect::<Vec<_>>(),
            "next": format!("Call {LOAD_TOOL} with the names of the tools you need."),
        }),
        None => json!({
            "error": format!("No MCP server matches \"{name}\"."),
            "servers": catalog.servers.iter().filter(|s| s.enabled).map(|s| json!({"name": s.name, "summary": s.summary})).collect::<Vec<_>>(),
        }),
    }
}

/// `load_mcp_tool`'s answer, and what it loaded: for each name, the exact
/// tool of that name (in `server_name` if given), else the best match;
/// each with the name to call it by (`call_name`) and its full schema
/// (from the saved `servers`).
pub fn answer_load_tools(
    catalog: &Catalog,
    finder: &Finder,
    servers: &[McpServer],
    names: &[String],
    server: Option<&str>,
    call_name: impl Fn(&str, &str) -> String,
) -> (Value, Vec<(String, String)>) {
    let mut loaded: Vec<(String, String)> = Vec::new();
    let mut missing = Vec::new();
    for want in names {
        let want = want.trim();
        let exact = catalog
            .tools
            .iter()
            .filter(|t| server.is_none_or(|s| s == t.server) && catalog.server(&t.server).is_some_and(|s| s.enabled))
            .find(|t| t.name == want || format!("{}/{}", t.server, t.name) == want)
            .map(|t| (t.server.clone(), t.name.clone()));
        match exact.or_else(|| finder.tools(want, server, 1).into_iter().next()) {
            Some(pair) if !loaded.contains(&pair) => loaded.push(pair),
            Some(_) => {}
            None => missing.push(want.to_owned()),
        }
    }
    let schema = |s: &str, t: &str| {
        servers.iter().find(|x| x.name == s).and_then(|x| x.tools.iter().find(|y| y.name == t)).map(|y| {
            let face = y.told();
            (face.description, face.input_schema)
        })
    };
    let mut answer = json!({
        "loaded": loaded.iter().map(|(s, t)| {
            let (description, parameters) = schema(s, t).unwrap_or_else(|| (String::new(), json!({"type": "object"})));
            json!({"name": call_name(s, t), "server": s, "description": description, "parameters": parameters})
        }).collect::<Vec<_>>(),
    });
    if !loaded.is_empty() {
        answer["next"] = json!("These tools can be called from your next step.");
    }
    if !missing.is_empty() {
        answer["not_found"] = json!(missing);
    }
    (answer, loaded)
}

/// What a call of a tool that is not loaded gets back.
pub fn not_loaded_error(tool: &str) -> String {
    format!("The tool {tool} is not loaded. Call {LOAD_TOOL} with its name first, then call it.")
}

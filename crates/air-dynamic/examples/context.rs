//! The tool context a first request carries for 10 MCP servers of 30 tools
//! each, with dynamic loading off (every definition, as the native `tools`
//! array) and on (the two loaders, plus the catalog in the system prompt).
//! Prints JSON `{"off": …, "on": …}` of the exact texts, for a tokenizer to
//! count (`tests/bench/context.mjs`).
//!
//!     cargo run --release -p air-dynamic --example context

use air_dynamic::{Catalog, loader_defs, prompt_section};
use air_store::mcp::{McpServer, SavedTool};
use serde_json::{Value, json};

const SERVERS: [(&str, &str); 10] = [
    ("github", "repository"),
    ("jira", "ticket"),
    ("slack", "message"),
    ("gdrive", "document"),
    ("postgres", "table"),
    ("calendar", "event"),
    ("notion", "page"),
    ("stripe", "invoice"),
    ("sentry", "issue"),
    ("filesystem", "file"),
];

const ACTIONS: [(&str, &str); 30] = [
    ("create", "Creates a new {n} with the given fields and returns it with its id."),
    ("get", "Gets one {n} by its id, with all its fields."),
    ("list", "Lists {n}s, newest first, filtered and paged."),
    ("update", "Updates the given fields of a {n}; other fields are left as they are."),
    ("delete", "Deletes a {n} for good. This cannot be undone."),
    ("search", "Searches {n}s by full text, with optional filters."),
    ("archive", "Archives a {n} so that it no longer shows in lists."),
    ("restore", "Restores an archived {n}."),
    ("comment", "Adds a comment to a {n}."),
    ("list_comments", "Lists the comments of a {n}, oldest first."),
    ("assign", "Assigns a {n} to a user."),
    ("unassign", "Removes the user a {n} is assigned to."),
    ("label", "Adds labels to a {n}."),
    ("unlabel", "Removes labels from a {n}."),
    ("move", "Moves a {n} to another project or folder."),
    ("copy", "Copies a {n}, with or without its comments."),
    ("export", "Exports a {n} as JSON, CSV or PDF."),
    ("import", "Imports {n}s from a JSON or CSV file."),
    ("share", "Shares a {n} with users or groups, with a permission level."),
    ("unshare", "Stops sharing a {n} with users or groups."),
    ("history", "Lists the changes made to a {n}, with who made them and when."),
    ("revert", "Reverts a {n} to an earlier version."),
    ("watch", "Starts notifying the user of changes to a {n}."),
    ("unwatch", "Stops notifying the user of changes to a {n}."),
    ("link", "Links two {n}s with a relation."),
    ("unlink", "Removes the relation between two {n}s."),
    ("count", "Counts {n}s that match a filter."),
    ("stats", "Gives statistics about {n}s over a period."),
    ("lock", "Locks a {n} against changes."),
    ("unlock", "Unlocks a locked {n}."),
];

fn schema(noun: &str, i: usize) -> Value {
    let mut props = serde_json::Map::new();
    props.insert("id".into(), json!({"type": "string", "description": format!("The {noun}'s id")}));
    if i.is_multiple_of(3) {
        props.insert("fields".into(), json!({"type": "object", "description": "Field names and values", "additionalProperties": true}));
    }
    if i % 4 == 1 {
        props.insert("limit".into(), json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 20, "description": "How many to return"}));
        props.insert("cursor".into(), json!({"type": "string", "description": "Where the previous page ended"}));
    }
    if i % 5 == 2 {
        props.insert("format".into(), json!({"type": "string", "enum": ["json", "csv", "pdf"], "description": "The output format"}));
    }
    if i % 2 == 1 {
        props.insert("users".into(), json!({"type": "array", "items": {"type": "string"}, "description": "User names or emails"}));
    }
    json!({"type": "object", "properties": props, "required": ["id"]})
}

fn main() {
    let servers: Vec<McpServer> = SERVERS
        .iter()
        .map(|(server, noun)| McpServer {
            id: (*server).into(),
            name: (*server).into(),
            url: format!("https://{server}.example/mcp"),
            headers: Vec::new(),
            enabled: true,
            tools: ACTIONS.iter().enumerate().map(|(i, (verb, text))| SavedTool::new(format!("{verb}_{noun}"), text.replace("{n}", noun), schema(noun, i))).collect(),
            excluded: Vec::new(),
            protocol: None,
            trust_hints: false,
        })
        .collect();
    let off: Vec<Value> = servers
        .iter()
        .flat_map(|s| s.tools.iter().map(move |t| json!({"type": "function", "function": {"name": format!("mcp_{}_{}", s.name, t.name), "description": t.description, "parameters": t.input_schema}})))
        .collect();
    let catalog = Catalog::default().refresh(&servers, 0.0);
    let on: Vec<Value> = loader_defs().iter().map(air_tools::ToolDef::to_openai).collect();
    let out = json!({
        "tools": off.len(),
        "off": serde_json::to_string(&off).unwrap_or_default(),
        "on": format!("{}\n{}", serde_json::to_string(&on).unwrap_or_default(), prompt_section(&catalog)),
    });
    println!("{out}");
}

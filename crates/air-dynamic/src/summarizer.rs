//! The summarizer: asking a model for better catalog summaries, and
//! reading its answer.

use air_store::mcp::McpServer;
use serde_json::Value;

use crate::Catalog;

/// The summarizer's fixed instructions.
pub const SUMMARIZER_PROMPT: &str = "You write the catalog of an AI assistant's tools. Given an MCP server and its tools, answer with JSON only, no prose: {\"server\": \"one short sentence (at most 15 words) on what the server is for\", \"tools\": {\"TOOL_NAME\": \"one short phrase (at most 12 words) on what the tool does\"}}. Write in the language of the descriptions. Keep names exactly as given.";

/// The summarizer's request for one server of the catalog: the user
/// message listing its tools (name and description, from the saved
/// server). `None` if the catalog does not know the server.
pub fn summarizer_input(catalog: &Catalog, server: &McpServer) -> Option<String> {
    catalog.server(&server.name)?;
    let mut text = format!("Server: {}\nTools:\n", server.name);
    for t in catalog.tools.iter().filter(|t| t.server == server.name) {
        let description = server.tools.iter().find(|x| x.name == t.name).map(|x| x.told().description).unwrap_or_default();
        let short: String = description.chars().take(400).collect();
        text.push_str(&format!("- {}: {}\n", t.name, short.replace('\n', " ")));
    }
    Some(text)
}

/// The summarizer's answer: the server's summary and (tool, summary)
/// pairs. Reads JSON even inside a code fence or after some words; `None`
/// when there is none.
pub fn parse_summaries(answer: &str) -> Option<(String, Vec<(String, String)>)> {
    let start = answer.find('{')?;
    let end = answer.rfind('}')?;
    let v: Value = serde_json::from_str(answer.get(start..=end)?).ok()?;
    let server = v.get("server").and_then(Value::as_str).unwrap_or_default().trim().to_owned();
    let tools = v.get("tools").and_then(Value::as_object).map(|m| m.iter().filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.trim().chars().take(160).collect()))).collect()).unwrap_or_default();
    Some((server.chars().take(200).collect(), tools))
}

/// The servers whose summaries the summarizer has not written for their
/// current epoch.
pub fn unsummarized(catalog: &Catalog) -> Vec<(String, u64)> {
    catalog.servers.iter().filter(|s| s.enabled && !s.summarized).map(|s| (s.name.clone(), s.epoch)).collect()
}

/// Why the summarizer wrote no summary for a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The provider answered with this HTTP status.
    Status(u16),
    /// No answer in the time allowed.
    Timeout,
    /// The provider could not be reached (the network, or the browser
    /// hid its answer).
    Unreachable,
    /// It answered, but nothing usable could be read from the answer.
    Unreadable,
}

/// What the summarizer wrote for one server: the epoch asked about, the
/// server's summary and the tools' (for [`Catalog::summarized`]).
pub type Summaries = (u64, String, Vec<(String, String)>);

/// Asks the summarizer about one server of the catalog (`ask` sends the
/// user message with [`SUMMARIZER_PROMPT`] and gives the answer's text,
/// or why there is none) and returns what to apply with
/// [`Catalog::summarized`], or why nothing can be: then the descriptions
/// stay. `None` when the catalog does not know the server (nothing to ask).
pub async fn summarize_one<F, Fut>(catalog: &Catalog, server: &McpServer, ask: F) -> Option<Result<Summaries, Failure>>
where
    F: FnOnce(String) -> Fut,
    Fut: std::future::Future<Output = Result<String, Failure>>,
{
    let epoch = catalog.server(&server.name)?.epoch;
    let input = summarizer_input(catalog, server)?;
    let answer = match ask(input).await {
        Ok(answer) => answer,
        Err(why) => return Some(Err(why)),
    };
    let read = parse_summaries(&answer).filter(|(summary, tools)| !summary.is_empty() || !tools.is_empty());
    Some(read.map(|(summary, tools)| (epoch, summary, tools)).ok_or(Failure::Unreadable))
}

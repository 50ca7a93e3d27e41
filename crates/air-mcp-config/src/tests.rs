//! Each client's form, as its users' files have it, and hostile input.

use super::*;

fn stdio(command: &str, args: &[&str], env: &[(&str, &str)]) -> Server {
    Server::Stdio(Stdio { command: command.into(), args: args.iter().map(|a| (*a).to_owned()).collect(), env: env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(), cwd: None })
}

fn remote(url: &str, transport: Transport, headers: &[(&str, &str)]) -> Server {
    Server::Remote { url: url.into(), transport, headers: headers.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect() }
}

#[test]
fn claude_desktop_stdio_servers_beside_other_settings() {
    let text = r#"{
      "globalShortcut": "Ctrl+Space",
      "mcpServers": {
        "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]},
        "github": {"command": "docker", "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x"}}
      }
    }"#;
    let p = parse(text).expect("parses");
    assert_eq!(p.dialect, Dialect::McpServers);
    let names: Vec<&str> = p.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["filesystem", "github"], "in the file's order");
    assert_eq!(p.entries[0].server, stdio("npx", &["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"], &[]));
    assert!(matches!(&p.entries[1].server, Server::Stdio(s) if s.env == [("GITHUB_PERSONAL_ACCESS_TOKEN".to_owned(), "ghp_x".to_owned())]));
}

#[test]
fn cursor_and_windsurf_remote_entries_with_headers_and_variables() {
    let text = r#"{"mcpServers": {
        "linear": {"url": "https://mcp.linear.app/sse", "headers": {"Authorization": "Bearer ${env:LINEAR_TOKEN}"}},
        "docs": {"serverUrl": "https://docs.example/mcp", "disabled": true}
    }}"#;
    let p = parse(text).expect("parses");
    assert_eq!(p.entries[0].server, remote("https://mcp.linear.app/sse", Transport::Auto, &[("Authorization", "Bearer ${env:LINEAR_TOKEN}")]));
    assert_eq!(p.entries[0].placeholders().iter().map(|p| p.key.as_str()).collect::<Vec<_>>(), ["env:LINEAR_TOKEN"]);
    assert_eq!(p.entries[1].server, remote("https://docs.example/mcp", Transport::Auto, &[]));
    assert!(p.entries[1].disabled && !p.entries[0].disabled);
}

#[test]
fn vs_code_jsonc_with_inputs_types_and_unset_variables() {
    let text = r#"{
      // Workspace servers
      "inputs": [{"type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true}],
      "servers": {
        "Perplexity": {"type": "stdio", "command": "npx", "args": ["-y", "server-perplexity-ask"], "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}", "DEBUG": null, "PORT": 3000}},
        "fetch": {"type": "sse", "url": "http://localhost:3001/sse",},
        "api": {"type": "http", "url": "https://api.example/mcp", "headers": {"X-Key": "${input:perplexity-key}"}},
      },
    }"#;
    let p = parse(text).expect("JSONC parses");
    assert_eq!(p.dialect, Dialect::VsCode);
    assert_eq!(p.inputs, vec![Input { id: "perplexity-key".into(), description: "Perplexity API Key".into(), password: true, default: None }]);
    assert_eq!(p.entries[0].server, stdio("npx", &["-y", "server-perplexity-ask"], &[("PERPLEXITY_API_KEY", "${input:perplexity-key}"), ("PORT", "3000")]));
    assert_eq!(p.entries[1].server, remote("http://localhost:3001/sse", Transport::Sse, &[]));
    assert!(matches!(p.entries[2].server, Server::Remote { transport: Transport::StreamableHttp, .. }));
}

#[test]
fn zeds_three_shapes() {
    let text = r#"{"theme": "One Dark", "context_servers": {
        "a": {"command": {"path": "uvx", "args": ["mcp-server-git"], "env": {}}, "settings": {}},
        "b": {"source": "custom", "command": "node", "args": ["server.js"]},
        "c": {"url": "https://remote.example/mcp"}
    }}"#;
    let p = parse(text).expect("parses");
    assert_eq!(p.dialect, Dialect::Zed);
    assert_eq!(p.entries[0].server, stdio("uvx", &["mcp-server-git"], &[]));
    assert_eq!(p.entries[1].server, stdio("node", &["server.js"], &[]));
    assert_eq!(p.entries[2].server, remote("https://remote.example/mcp", Transport::Auto, &[]));
}

#[test]
fn claude_codes_projects_a_bare_map_and_a_single_entry() {
    let code = r#"{"numStartups": 3, "projects": {"/home/me/app": {"mcpServers": {"sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp"}}}}}"#;
    assert_eq!(parse(code).map(|p| p.entries[0].name.clone()).ok().as_deref(), Some("sentry"));
    let bare = r#"{"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}"#;
    assert_eq!(parse(bare).map(|p| p.dialect).ok(), Some(Dialect::Bare));
    let single = r#"{"command": "uvx", "args": ["mcp-server-time"]}"#;
    let p = parse(single).expect("one entry");
    assert_eq!((p.dialect, p.entries[0].name.as_str()), (Dialect::Single, "server"));
}

#[test]
fn an_entry_that_cannot_work_says_why_and_the_others_go_on() {
    let text = r#"{"mcpServers": {
        "ws": {"url": "ws://localhost:9000"},
        "nothing": {"env": {"A": "b"}},
        "list": ["not", "an", "entry"],
        "badargs": {"command": "npx", "args": "-y server"},
        "badenv": {"command": "npx", "env": {"A": {"nested": true}}},
        "stdio-only": {"type": "stdio"},
        "ok": {"command": "uvx", "args": ["mcp-server-fetch", 8080, true]}
    }}"#;
    let p = parse(text).expect("parses");
    let why: Vec<String> = p
        .entries
        .iter()
        .map(|e| match &e.server {
            Server::Unusable(w) => w.to_string(),
            _ => "usable".into(),
        })
        .collect();
    assert_eq!(
        why,
        [
            "ws://localhost:9000 is not an http(s) address; a page reaches servers over HTTP only",
            "neither a url nor a command",
            "not an object",
            "its args are not a list",
            "its environment value A is not text",
            "a stdio server without a command",
            "usable",
        ]
    );
    assert_eq!(p.entries[6].server, stdio("uvx", &["mcp-server-fetch", "8080", "true"], &[]));
}

#[test]
fn hostile_input_is_a_clear_error_and_nothing_else() {
    let deep = format!("{{\"mcpServers\": {}{}}}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(parse(&deep).map_err(|e| e.to_string()), Err("Nested too deeply to be a configuration.".into()));
    let huge = format!("{{\"mcpServers\": {{\"a\": {{\"command\": \"{}\"}}}}}}", "x".repeat(MAX_BYTES));
    assert!(parse(&huge).map_err(|e| e.to_string()).is_err_and(|e| e.contains("KB")));
    assert!(parse("not json at all").map_err(|e| e.to_string()).is_err_and(|e| e.starts_with("Not JSON")));
    assert!(parse("[1, 2]").map_err(|e| e.to_string()).is_err_and(|e| e.starts_with("Not a configuration")));
    assert!(parse(r#"{"theme": "dark"}"#).map_err(|e| e.to_string()).is_err_and(|e| e.starts_with("No MCP servers")));
    assert!(parse(r#"{"mcpServers": {}}"#).is_err_and(|e| e == ParseError::NoServers));
    assert!(parse(r#"{"mcpServers": "npx"}"#).is_err());
    let many = format!("{{\"mcpServers\": {{{}}}}}", (0..=MAX_ENTRIES).map(|i| format!("\"s{i}\": {{\"command\": \"x\"}}")).collect::<Vec<_>>().join(","));
    assert!(parse(&many).is_err_and(|e| e.to_string().contains("more than")));
}

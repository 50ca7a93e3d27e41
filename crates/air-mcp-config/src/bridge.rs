//! The one line that makes a stdio server reachable from this page: a
//! bridge started on the user's computer that runs the server and serves
//! it over Streamable HTTP on 127.0.0.1, with CORS for this page's origin
//! only, stateful (so the session header is exposed).
//!
//! * `mcp-proxy` (PyPI, through `uvx`): binds 127.0.0.1 by default,
//!   `--allow-origin` lists the origins CORS allows, `-e NAME VALUE` sets
//!   the server's environment. The line offered first.
//! * `supergateway` (npm, through `npx`): for those without Python. It has
//!   no host option and listens on every interface of the computer, which
//!   the page says; its environment is set in the shell.

use crate::Stdio;
use crate::secret;

/// Which shell the line is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    /// sh, bash, zsh (Linux, macOS).
    Posix,
    /// Windows PowerShell and PowerShell 7.
    PowerShell,
}

/// Which bridge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bridge {
    McpProxy,
    Supergateway,
}

pub const MCP_PROXY: &str = "mcp-proxy@0.13.0";
pub const SUPERGATEWAY: &str = "supergateway@4.0.0";

/// A bridge line, and where the server is then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// What to run (copied as it is).
    pub text: String,
    /// The same with secret values masked (shown).
    pub shown: String,
    /// The address to connect to once it runs.
    pub url: String,
    /// What the user should know before running it.
    pub warning: Option<&'static str>,
}

/// The line serving `server` on `port` for `origin`, in `shell`.
pub fn line(server: &Stdio, bridge: Bridge, shell: Shell, origin: &str, port: u16) -> Line {
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (text, shown) = match bridge {
        Bridge::McpProxy => mcp_proxy(server, shell, origin, port),
        Bridge::Supergateway => supergateway(server, shell, origin, port),
    };
    let warning = (bridge == Bridge::Supergateway).then_some("supergateway listens on every network interface of this computer, not only 127.0.0.1: anyone on your network can reach the server while it runs.");
    Line { text, shown, url, warning }
}

/// For a server already on this computer over HTTP but without CORS for
/// pages: `mcp-proxy` in front of it (its client side speaking to `url`,
/// its server side on `port` for `origin`). `None` unless `url` is an
/// `http://` address on this computer (elsewhere the page cannot reach a
/// bridge on the user's computer any better than the server).
pub fn relay(url: &str, shell: Shell, origin: &str, port: u16) -> Option<Line> {
    let rest = url.trim().strip_prefix("http://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    // Who signs in (`user:pass@`) is not where it goes.
    let authority = authority.rsplit('@').next().unwrap_or_default();
    let host = if authority.starts_with('[') { authority.split_inclusive(']').next() } else { authority.split(':').next() }.unwrap_or_default();
    if !matches!(host, "localhost" | "127.0.0.1" | "[::1]") {
        return None;
    }
    let inner = Stdio { command: "uvx".into(), args: vec![MCP_PROXY.into(), "--transport".into(), "streamablehttp".into(), url.trim().into()], env: Vec::new(), cwd: None };
    Some(line(&inner, Bridge::McpProxy, shell, origin, port))
}

/// The words of the line, and each word as shown.
struct Words {
    text: Vec<String>,
    shown: Vec<String>,
    shell: Shell,
}

impl Words {
    fn new(shell: Shell) -> Self {
        Self { text: Vec::new(), shown: Vec::new(), shell }
    }

    fn push(&mut self, word: &str) {
        let quoted = quote(word, self.shell);
        self.shown.push(quoted.clone());
        self.text.push(quoted);
    }

    /// A value that may be a secret (`name`'s).
    fn secret(&mut self, name: &str, value: &str) {
        self.text.push(quote(value, self.shell));
        self.shown.push(quote(&secret::shown(name, value), self.shell));
    }

    fn done(self) -> (String, String) {
        (self.text.join(" "), self.shown.join(" "))
    }
}

fn cd(w: &mut Words, cwd: Option<&str>) {
    if let Some(dir) = cwd {
        match w.shell {
            Shell::Posix => {
                w.push("cd");
                w.push(dir);
                w.text.push("&&".into());
                w.shown.push("&&".into());
            }
            Shell::PowerShell => {
                w.push("Set-Location");
                w.push(dir);
                w.text.push(";".into());
                w.shown.push(";".into());
            }
        }
    }
}

/// The server's arguments, a value after a flag naming a secret (or that
/// looks like one) masked where shown.
fn args(w: &mut Words, args: &[String]) {
    let mut flag = "";
    for a in args {
        w.secret(flag, a);
        flag = if a.starts_with('-') { a.as_str() } else { "" };
    }
}

fn mcp_proxy(server: &Stdio, shell: Shell, origin: &str, port: u16) -> (String, String) {
    let mut w = Words::new(shell);
    cd(&mut w, server.cwd.as_deref());
    for word in ["uvx", MCP_PROXY, "--port", &port.to_string(), "--allow-origin", origin] {
        w.push(word);
    }
    for (name, value) in &server.env {
        w.push("-e");
        w.push(name);
        w.secret(name, value);
    }
    w.push("--");
    w.push(&server.command);
    args(&mut w, &server.args);
    w.done()
}

fn supergateway(server: &Stdio, shell: Shell, origin: &str, port: u16) -> (String, String) {
    let mut w = Words::new(shell);
    cd(&mut w, server.cwd.as_deref());
    for (name, value) in &server.env {
        match shell {
            Shell::Posix => {
                w.text.push(format!("{name}={}", quote(value, shell)));
                w.shown.push(format!("{name}={}", quote(&secret::shown(name, value), shell)));
            }
            Shell::PowerShell => {
                w.text.push(format!("$env:{name}={};", quote_always(value)));
                w.shown.push(format!("$env:{name}={};", quote_always(&secret::shown(name, value))));
            }
        }
    }
    // supergateway runs `--stdio` through a POSIX shell (cmd.exe on Windows).
    let inner: Vec<String> = std::iter::once(&server.command).chain(&server.args).map(|a| quote(a, Shell::Posix)).collect();
    let port = port.to_string();
    for word in ["npx", "-y", SUPERGATEWAY, "--stdio", &inner.join(" "), "--outputTransport", "streamableHttp", "--stateful", "--port", &port, "--cors", origin] {
        w.push(word);
    }
    w.done()
}

/// `word` as one argument for `shell`: as it is when nothing in it is
/// special, else in single quotes.
pub fn quote(word: &str, shell: Shell) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./:-@%+=".contains(c) || (shell == Shell::Posix && c == ',');
    // PowerShell takes a bare `--` as its own end of parameters, and a
    // word starting with `@` as splatting.
    let special = word.is_empty() || !word.chars().all(plain) || (shell == Shell::PowerShell && (word == "--" || word.starts_with('@') || word.starts_with("--%")));
    if !special {
        return word.to_owned();
    }
    match shell {
        Shell::Posix => format!("'{}'", word.replace('\'', "'\\''")),
        Shell::PowerShell => quote_always(word),
    }
}

/// PowerShell's single quotes: every character PowerShell takes for one
/// (the typographic ones too) doubled inside.
fn quote_always(word: &str) -> String {
    let mut out = String::with_capacity(word.len() + 2);
    out.push('\'');
    for c in word.chars() {
        if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}') {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory() -> Stdio {
        Stdio { command: "npx".into(), args: vec!["-y".into(), "@modelcontextprotocol/server-memory".into()], env: vec![("MEMORY_FILE_PATH".into(), "/tmp/my memory.json".into())], cwd: None }
    }

    #[test]
    fn mcp_proxy_binds_loopback_allows_only_this_origin_and_passes_the_environment() {
        let l = line(&memory(), Bridge::McpProxy, Shell::Posix, "https://air.example", 8096);
        assert_eq!(l.text, "uvx mcp-proxy@0.13.0 --port 8096 --allow-origin https://air.example -e MEMORY_FILE_PATH '/tmp/my memory.json' -- npx -y @modelcontextprotocol/server-memory");
        assert_eq!(l.url, "http://127.0.0.1:8096/mcp");
        assert_eq!(l.warning, None);
        let ps = line(&memory(), Bridge::McpProxy, Shell::PowerShell, "https://air.example", 8096);
        assert_eq!(ps.text, "uvx mcp-proxy@0.13.0 --port 8096 --allow-origin https://air.example -e MEMORY_FILE_PATH '/tmp/my memory.json' '--' npx -y '@modelcontextprotocol/server-memory'");
    }

    #[test]
    fn secrets_are_in_the_line_copied_and_masked_in_the_line_shown() {
        let s = Stdio { command: "npx".into(), args: vec!["-y".into(), "@modelcontextprotocol/server-github".into()], env: vec![("GITHUB_TOKEN".into(), "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB".into())], cwd: Some("C:\\Users\\me".into()) };
        let l = line(&s, Bridge::McpProxy, Shell::PowerShell, "https://air.example", 8097);
        assert!(l.text.starts_with("Set-Location 'C:\\Users\\me' ; uvx"), "{}", l.text);
        assert!(l.text.contains("ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"));
        assert!(!l.shown.contains("ghp_0123456789") && l.shown.contains("'ghp_… (42 characters)'"), "{}", l.shown);
    }

    #[test]
    fn a_secret_in_the_arguments_is_masked_where_shown() {
        let s = Stdio { command: "npx".into(), args: vec!["-y".into(), "mcp-remote".into(), "--api-key".into(), "plainlooking".into(), "--header".into(), "Authorization: Bearer abcdef".into(), "sk-live-0123456789".into()], env: Vec::new(), cwd: None };
        let l = line(&s, Bridge::McpProxy, Shell::Posix, "https://air.example", 8100);
        assert!(l.text.contains("plainlooking") && l.text.contains("'Authorization: Bearer abcdef'") && l.text.contains("sk-live-0123456789"));
        assert!(!l.shown.contains("plainlooking") && !l.shown.contains("abcdef") && !l.shown.contains("0123456789"), "{}", l.shown);
        assert!(l.shown.contains("mcp-remote"), "the rest as it is");
    }

    #[test]
    fn supergateway_says_it_listens_everywhere_and_quotes_the_server_twice() {
        let l = line(&memory(), Bridge::Supergateway, Shell::Posix, "https://air.example", 8000);
        assert_eq!(l.text, "MEMORY_FILE_PATH='/tmp/my memory.json' npx -y supergateway@4.0.0 --stdio 'npx -y @modelcontextprotocol/server-memory' --outputTransport streamableHttp --stateful --port 8000 --cors https://air.example");
        assert!(l.warning.is_some_and(|w| w.contains("every network interface")));
        let ps = line(&memory(), Bridge::Supergateway, Shell::PowerShell, "https://air.example", 8000);
        assert!(ps.text.starts_with("$env:MEMORY_FILE_PATH='/tmp/my memory.json'; npx -y"), "{}", ps.text);
    }

    #[test]
    fn a_local_http_server_without_cors_gets_mcp_proxy_in_front_and_others_nothing() {
        let l = relay("http://localhost:8931/mcp", Shell::Posix, "https://air.example", 8101).expect("loopback");
        assert_eq!(l.text, "uvx mcp-proxy@0.13.0 --port 8101 --allow-origin https://air.example -- uvx mcp-proxy@0.13.0 --transport streamablehttp http://localhost:8931/mcp");
        assert_eq!(l.url, "http://127.0.0.1:8101/mcp");
        assert!(relay("http://127.0.0.1/mcp", Shell::Posix, "o", 1).is_some());
        assert!(relay("http://[::1]:9/mcp", Shell::Posix, "o", 1).is_some());
        for far in ["http://localhost:1@evil.example/mcp", "https://localhost:8931/mcp", "http://mcp.example/mcp", "http://localhost.evil.example/mcp", "http://127.0.0.1.nip.io/mcp", "ftp://localhost/"] {
            assert!(relay(far, Shell::Posix, "o", 1).is_none(), "{far}");
        }
    }

    #[test]
    fn quoting_survives_quotes_and_blanks() {
        assert_eq!(quote("it's", Shell::Posix), "'it'\\''s'");
        assert_eq!(quote("it's", Shell::PowerShell), "'it''s'");
        assert_eq!(quote("", Shell::Posix), "''");
        assert_eq!(quote("a b", Shell::Posix), "'a b'");
        assert_eq!(quote("$HOME", Shell::PowerShell), "'$HOME'");
        assert_eq!(quote("x@1", Shell::Posix), "x@1");
        assert_eq!(quote("x\u{2019}; calc; #", Shell::PowerShell), "'x\u{2019}\u{2019}; calc; #'", "a typographic quote ends a PowerShell string too");
        assert_eq!(quote("--%", Shell::PowerShell), "'--%'", "the stop-parsing token is quoted");
    }
}

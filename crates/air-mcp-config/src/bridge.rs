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
use crate::unusable::{PowerShellTrouble, Unusable};

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

/// The line serving `server` on `port` for `origin`, in `shell`, or why
/// no line would run as shown (a word Windows would split or change).
pub fn line(server: &Stdio, bridge: Bridge, shell: Shell, origin: &str, port: u16) -> Result<Line, Unusable> {
    line_hiding(server, &[], bridge, shell, origin, port)
}

/// The same, each of `hidden` (answers typed into a password field)
/// masked wherever it is in the line shown.
pub fn line_hiding(server: &Stdio, hidden: &[String], bridge: Bridge, shell: Shell, origin: &str, port: u16) -> Result<Line, Unusable> {
    if shell == Shell::PowerShell {
        windows_words(server, bridge, origin)?;
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut w = Words::new(shell, hidden);
    match bridge {
        Bridge::McpProxy => mcp_proxy(&mut w, server, origin, port),
        Bridge::Supergateway => supergateway(&mut w, server, origin, port),
    }
    let (text, shown) = w.done();
    let warning =
        (bridge == Bridge::Supergateway).then_some("supergateway listens on every network interface of this computer, not only 127.0.0.1: anyone on your network can reach the server while it runs.");
    Ok(Line { text, shown, url, warning })
}

/// For a server already on this computer over HTTP but without CORS for
/// pages: `mcp-proxy` in front of it (its client side speaking to `url`,
/// its server side on `port` for `origin`). `None` unless `url` is an
/// `http://` address on this computer (elsewhere the page cannot reach a
/// bridge on the user's computer any better than the server).
pub fn relay(url: &str, shell: Shell, origin: &str, port: u16) -> Option<Line> {
    url.trim().strip_prefix("http://")?;
    // Who signs in (`user:pass@`) is not where it goes.
    if !air_http::url::is_loopback_url(url.trim()) {
        return None;
    }
    let inner = Stdio { command: "uvx".into(), args: vec![MCP_PROXY.into(), "--transport".into(), "streamablehttp".into(), url.trim().into()], env: Vec::new(), cwd: None };
    line(&inner, Bridge::McpProxy, shell, origin, port).ok()
}

/// The server's command and arguments as the line shows them: each word
/// quoted for a POSIX shell (so two words never read as one), a secret
/// among them masked.
pub fn command_shown(server: &Stdio) -> String {
    let mut w = Words::new(Shell::Posix, &[]);
    w.push(&server.command);
    args(&mut w, &server.args);
    w.done().1
}

/// Refuses a line Windows would not run as shown. Windows PowerShell 5.1
/// (and PowerShell up to 7.2) hands a program its words without escaping
/// a `"` in them, drops an empty one, and lets a trailing `\` of a word
/// with a blank escape the quote it adds; and a `.cmd` program (npx, and
/// the server commands started through it) runs through cmd.exe, which
/// splits at `&` and reads `%`, `!`, `^`, `|`, `<` and `>` its own way.
fn windows_words(server: &Stdio, bridge: Bridge, origin: &str) -> Result<(), Unusable> {
    let server_words = || std::iter::once(&server.command).chain(&server.args).map(String::as_str);
    for word in server_words().chain([origin]) {
        powershell_word(word)?;
    }
    // supergateway is started with npx, so all of it goes through cmd.exe.
    let through_cmd = bridge == Bridge::Supergateway || !native_program(&server.command);
    if through_cmd {
        let program = if bridge == Bridge::Supergateway { "npx" } else { server.command.as_str() };
        for word in server_words().chain((bridge == Bridge::Supergateway).then_some(origin)) {
            cmd_word(word, program)?;
        }
    }
    Ok(())
}

fn powershell_word(word: &str) -> Result<(), Unusable> {
    let trouble = if word.contains('"') {
        PowerShellTrouble::Quote
    } else if word.is_empty() {
        PowerShellTrouble::Empty
    } else if word.ends_with('\\') && word.contains(char::is_whitespace) {
        PowerShellTrouble::TrailingBackslash
    } else {
        return Ok(());
    };
    Err(Unusable::PowerShell { word: word.to_owned(), trouble })
}

fn cmd_word(word: &str, program: &str) -> Result<(), Unusable> {
    let Some(mark) = word.chars().find(|c| "&|<>^%!\r\n".contains(*c)) else { return Ok(()) };
    Err(Unusable::Cmd { word: word.to_owned(), mark, program: program.to_owned() })
}

/// Programs Windows starts as themselves (`.exe`), not through cmd.exe.
fn native_program(command: &str) -> bool {
    let name = command.rsplit(['\\', '/']).next().unwrap_or(command).to_ascii_lowercase();
    if name.ends_with(".exe") {
        return true;
    }
    matches!(name.as_str(), "uvx" | "uv" | "python" | "python3" | "py" | "node" | "docker" | "deno" | "bun")
}

/// The words of the line, and each word as shown.
struct Words<'a> {
    text: Vec<String>,
    shown: Vec<String>,
    shell: Shell,
    /// Answers given as passwords: masked wherever they are.
    hidden: &'a [String],
}

impl<'a> Words<'a> {
    fn new(shell: Shell, hidden: &'a [String]) -> Self {
        Self { text: Vec::new(), shown: Vec::new(), shell, hidden }
    }

    /// `value` as shown: a password answer in it masked, else masked if it
    /// looks secret (as `name`'s; `None`: a word that is not a value).
    fn shown_of(&self, name: Option<&str>, value: &str) -> String {
        let typed: Vec<&String> = self.hidden.iter().filter(|h| !h.is_empty() && value.contains(h.as_str())).collect();
        if !typed.is_empty() {
            return typed.iter().fold(value.to_owned(), |v, h| v.replace(h.as_str(), secret::HIDDEN));
        }
        name.map_or_else(|| value.to_owned(), |n| secret::shown(n, value))
    }

    fn push(&mut self, word: &str) {
        self.shown.push(quote(&self.shown_of(None, word), self.shell));
        self.text.push(quote(word, self.shell));
    }

    /// A value that may be a secret (`name`'s).
    fn secret(&mut self, name: &str, value: &str) {
        self.shown.push(quote(&self.shown_of(Some(name), value), self.shell));
        self.text.push(quote(value, self.shell));
    }

    /// A word written as it is (an operator, an assignment already quoted).
    fn raw(&mut self, text: String, shown: String) {
        self.text.push(text);
        self.shown.push(shown);
    }

    fn done(self) -> (String, String) {
        (self.text.join(" "), self.shown.join(" "))
    }
}

fn cd(w: &mut Words<'_>, cwd: Option<&str>) {
    if let Some(dir) = cwd {
        let (command, then) = match w.shell {
            Shell::Posix => ("cd", "&&"),
            Shell::PowerShell => ("Set-Location", ";"),
        };
        w.push(command);
        w.push(dir);
        w.raw(then.into(), then.into());
    }
}

/// The server's environment set in the shell, before the line:
/// `NAME='value'` before a POSIX command, `$env:NAME='value';` in
/// PowerShell (which would otherwise hand the value to a program as a
/// word, unescaped).
fn environment(w: &mut Words<'_>, env: &[(String, String)]) {
    for (name, value) in env {
        let shown = w.shown_of(Some(name), value);
        match w.shell {
            Shell::Posix => w.raw(format!("{name}={}", quote(value, Shell::Posix)), format!("{name}={}", quote(&shown, Shell::Posix))),
            Shell::PowerShell => w.raw(format!("$env:{name}={};", quote_always(value)), format!("$env:{name}={};", quote_always(&shown))),
        }
    }
}

/// The server's arguments, a value after a flag naming a secret (or that
/// looks like one) masked where shown.
fn args(w: &mut Words<'_>, args: &[String]) {
    let mut flag = "";
    for a in args {
        w.secret(flag, a);
        flag = if a.starts_with('-') { a.as_str() } else { "" };
    }
}

fn mcp_proxy(w: &mut Words<'_>, server: &Stdio, origin: &str, port: u16) {
    cd(w, server.cwd.as_deref());
    let powershell = w.shell == Shell::PowerShell;
    if powershell {
        environment(w, &server.env);
    }
    for word in ["uvx", MCP_PROXY, "--port", &port.to_string(), "--allow-origin", origin] {
        w.push(word);
    }
    if powershell && !server.env.is_empty() {
        // mcp-proxy starts its server with a bare environment otherwise.
        w.push("--pass-environment");
    }
    if !powershell {
        for (name, value) in &server.env {
            w.push("-e");
            w.push(name);
            w.secret(name, value);
        }
    }
    w.push("--");
    w.push(&server.command);
    args(w, &server.args);
}

fn supergateway(w: &mut Words<'_>, server: &Stdio, origin: &str, port: u16) {
    cd(w, server.cwd.as_deref());
    environment(w, &server.env);
    // supergateway runs `--stdio` through a POSIX shell (cmd.exe on
    // Windows): its words quoted for one, and masked as the others are.
    let mut inner = Words::new(Shell::Posix, w.hidden);
    inner.push(&server.command);
    args(&mut inner, &server.args);
    let (inner_text, inner_shown) = inner.done();
    for word in ["npx", "-y", SUPERGATEWAY, "--stdio"] {
        w.push(word);
    }
    let stdio = w.shown_of(None, &inner_shown);
    w.raw(quote(&inner_text, w.shell), quote(&stdio, w.shell));
    for word in ["--outputTransport", "streamableHttp", "--stateful", "--port", &port.to_string(), "--cors", origin] {
        w.push(word);
    }
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
        let l = line(&memory(), Bridge::McpProxy, Shell::Posix, "https://air.example", 8096).expect("a line");
        assert_eq!(l.text, "uvx mcp-proxy@0.13.0 --port 8096 --allow-origin https://air.example -e MEMORY_FILE_PATH '/tmp/my memory.json' -- npx -y @modelcontextprotocol/server-memory");
        assert_eq!(l.url, "http://127.0.0.1:8096/mcp");
        assert_eq!(l.warning, None);
        let ps = line(&memory(), Bridge::McpProxy, Shell::PowerShell, "https://air.example", 8096).expect("a line");
        assert_eq!(
            ps.text,
            "$env:MEMORY_FILE_PATH='/tmp/my memory.json'; uvx mcp-proxy@0.13.0 --port 8096 --allow-origin https://air.example --pass-environment '--' npx -y '@modelcontextprotocol/server-memory'",
            "PowerShell sets the environment itself"
        );
    }

    #[test]
    fn secrets_are_in_the_line_copied_and_masked_in_the_line_shown() {
        let s = Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "@modelcontextprotocol/server-github".into()],
            env: vec![("GITHUB_TOKEN".into(), "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB".into())],
            cwd: Some("C:\\Users\\me".into()),
        };
        let l = line(&s, Bridge::McpProxy, Shell::PowerShell, "https://air.example", 8097).expect("a line");
        assert!(l.text.starts_with("Set-Location 'C:\\Users\\me' ; $env:GITHUB_TOKEN='ghp_"), "{}", l.text);
        assert!(l.text.contains("ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"));
        assert!(!l.shown.contains("ghp_0123456789") && l.shown.contains("$env:GITHUB_TOKEN='ghp_… (42 characters)';"), "{}", l.shown);
    }

    #[test]
    fn a_secret_in_the_arguments_is_masked_where_shown() {
        let s = Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "mcp-remote".into(), "--api-key".into(), "plainlooking".into(), "--header".into(), "Authorization: Bearer abcdef".into(), "sk-live-0123456789".into()],
            env: Vec::new(),
            cwd: None,
        };
        let l = line(&s, Bridge::McpProxy, Shell::Posix, "https://air.example", 8100).expect("a line");
        assert!(l.text.contains("plainlooking") && l.text.contains("'Authorization: Bearer abcdef'") && l.text.contains("sk-live-0123456789"));
        assert!(!l.shown.contains("plainlooking") && !l.shown.contains("abcdef") && !l.shown.contains("0123456789"), "{}", l.shown);
        assert!(l.shown.contains("mcp-remote"), "the rest as it is");
    }

    #[test]
    fn supergateway_says_it_listens_everywhere_and_quotes_the_server_twice() {
        let l = line(&memory(), Bridge::Supergateway, Shell::Posix, "https://air.example", 8000).expect("a line");
        assert_eq!(
            l.text,
            "MEMORY_FILE_PATH='/tmp/my memory.json' npx -y supergateway@4.0.0 --stdio 'npx -y @modelcontextprotocol/server-memory' --outputTransport streamableHttp --stateful --port 8000 --cors https://air.example"
        );
        assert!(l.warning.is_some_and(|w| w.contains("every network interface")));
        let ps = line(&memory(), Bridge::Supergateway, Shell::PowerShell, "https://air.example", 8000).expect("a line");
        assert!(ps.text.starts_with("$env:MEMORY_FILE_PATH='/tmp/my memory.json'; npx -y"), "{}", ps.text);
    }

    #[test]
    fn a_local_http_server_without_cors_gets_mcp_proxy_in_front_and_others_nothing() {
        let l = relay("http://localhost:8931/mcp", Shell::Posix, "https://air.example", 8101).expect("loopback");
        assert_eq!(l.text, "uvx mcp-proxy@0.13.0 --port 8101 --allow-origin https://air.example -- uvx mcp-proxy@0.13.0 --transport streamablehttp http://localhost:8931/mcp");
        assert_eq!(l.url, "http://127.0.0.1:8101/mcp");
        assert!(relay("http://127.0.0.1/mcp", Shell::Posix, "o", 1).is_some());
        assert!(relay("http://[::1]:9/mcp", Shell::Posix, "o", 1).is_some());
        for far in
            ["http://localhost:1@evil.example/mcp", "https://localhost:8931/mcp", "http://mcp.example/mcp", "http://localhost.evil.example/mcp", "http://127.0.0.1.nip.io/mcp", "ftp://localhost/"]
        {
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

    fn injected() -> Stdio {
        let token = "ghp_0123456789abcdefghijklmnopqrstuvwx x\" --host 0.0.0.0 --allow-origin * \"y";
        Stdio { command: "npx".into(), args: vec!["-y".into(), "server-github".into(), "--token".into(), token.into()], env: Vec::new(), cwd: None }
    }

    #[test]
    fn a_double_quote_is_refused_for_powershell_and_shown_whole_for_sh() {
        let why = line(&injected(), Bridge::McpProxy, Shell::PowerShell, "https://air.example", 8100).expect_err("refused").to_string();
        assert!(why.contains("--host 0.0.0.0") && why.contains("double quote") && why.contains("PowerShell"), "{why}");
        let sh = line(&injected(), Bridge::McpProxy, Shell::Posix, "https://air.example", 8100).expect("sh quotes it");
        assert_eq!(sh.shown, sh.text, "nothing that holds blanks or quotes is masked");
        assert!(sh.shown.ends_with("--token 'ghp_0123456789abcdefghijklmnopqrstuvwx x\" --host 0.0.0.0 --allow-origin * \"y'"), "{}", sh.shown);
        let empty = Stdio { args: vec![String::new()], ..memory() };
        assert!(line(&empty, Bridge::McpProxy, Shell::PowerShell, "o", 1).is_err_and(|e| matches!(e, Unusable::PowerShell { trouble: PowerShellTrouble::Empty, .. })));
        let slash = Stdio { args: vec!["C:\\my dir\\".into()], ..memory() };
        assert!(line(&slash, Bridge::McpProxy, Shell::PowerShell, "o", 1).is_err_and(|e| matches!(e, Unusable::PowerShell { trouble: PowerShellTrouble::TrailingBackslash, .. })));
    }

    #[test]
    fn words_reaching_cmd_exe_are_refused_with_which_and_why() {
        for (word, what) in
            [("a&calc", "command separator"), ("a|b", "command separator"), ("<in", "redirection"), ("%PATH%", "variable"), ("a!x!", "variable"), ("a^b", "escape"), ("a\nb", "line break")]
        {
            let s = Stdio { args: vec![word.into()], ..memory() };
            let why = line(&s, Bridge::McpProxy, Shell::PowerShell, "https://air.example", 8100).expect_err(word).to_string();
            assert!(why.contains(&format!("{word:?}")) && why.contains(what) && why.contains("\"npx\""), "{word}: {why}");
            assert!(line(&s, Bridge::McpProxy, Shell::Posix, "https://air.example", 8100).is_ok(), "sh quotes {word}");
        }
        let exe = Stdio { command: "uvx".into(), args: vec!["server".into(), "a&b".into()], env: Vec::new(), cwd: None };
        assert!(line(&exe, Bridge::McpProxy, Shell::PowerShell, "o", 1).is_ok(), "uvx.exe is started as itself");
        assert!(relay("http://localhost:8931/mcp?a=1&b=2", Shell::PowerShell, "o", 1).is_some(), "and so is the relay's");
        assert!(line(&exe, Bridge::Supergateway, Shell::PowerShell, "o", 1).is_err(), "supergateway itself runs through npx");
    }

    #[test]
    fn supergateway_masks_the_words_of_its_stdio_command() {
        let s = Stdio { command: "npx".into(), args: vec!["server".into(), "--api-key".into(), "sk-live-0123456789abcdef".into()], env: Vec::new(), cwd: None };
        let l = line(&s, Bridge::Supergateway, Shell::Posix, "https://air.example", 8000).expect("a line");
        assert!(l.text.contains("--stdio 'npx server --api-key sk-live-0123456789abcdef'"), "{}", l.text);
        assert!(l.shown.contains(r"--stdio 'npx server --api-key '\''sk-l… (24 characters)'\'''") && !l.shown.contains("0123456789"), "{}", l.shown);
    }

    #[test]
    fn the_command_is_shown_word_by_word_with_secrets_masked() {
        let s = Stdio { command: "npx".into(), args: vec!["-y".into(), "a b".into(), "--api-key".into(), "sk-live-0123456789abcdef".into()], env: Vec::new(), cwd: None };
        assert_eq!(command_shown(&s), "npx -y 'a b' --api-key 'sk-l… (24 characters)'");
    }
}

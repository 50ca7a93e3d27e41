//! What importing one entry comes to, once the user has answered its
//! placeholders and chosen how a local server is bridged: a server to
//! connect to (the add form's name, address and headers), a line to run
//! first and then connect, the placeholders still to answer, or why it
//! cannot be used.

use std::collections::BTreeMap;

use crate::bridge::{self, Bridge, Line, Shell};
use crate::placeholders::{self, Placeholder};
use crate::{Entry, Input, Server, Stdio, Transport};

/// How a local server is to be bridged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub bridge: Bridge,
    pub shell: Shell,
    pub port: u16,
}

/// An entry's way in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// A remote server: connect to it as to a typed address.
    Connect {
        url: String,
        transport: Transport,
        headers: Vec<(String, String)>,
    },
    /// A local server: run `line`, then connect to its address.
    Bridge(Line),
    /// These are still to be answered (nothing is used half-filled).
    Ask(Vec<Placeholder>),
    Unusable(crate::Unusable),
}

/// The first port offered for the `n`th local server of a configuration.
pub fn port(n: usize) -> u16 {
    8100u16.saturating_add(u16::try_from(n).unwrap_or(u16::MAX))
}

/// The answers to start from: each VS Code input's default.
pub fn defaults(inputs: &[Input]) -> BTreeMap<String, String> {
    inputs.iter().filter_map(|i| Some((format!("input:{}", i.id), i.default.clone()?))).collect()
}

/// Whether the placeholder is to be asked as a password (an input marked
/// so, or a name that says secret).
pub fn is_secret(p: &Placeholder, inputs: &[Input]) -> bool {
    match p.key.strip_prefix("input:") {
        Some(id) => inputs.iter().any(|i| i.id == id && i.password) || crate::secret::looks_secret(id, ""),
        None => crate::secret::looks_secret(&p.key, ""),
    }
}

/// A VS Code input's own description of what it asks, if it has one.
pub fn described<'a>(p: &Placeholder, inputs: &'a [Input]) -> Option<&'a str> {
    p.key.strip_prefix("input:").and_then(|id| inputs.iter().find(|i| i.id == id)).map(|i| i.description.trim()).filter(|d| !d.is_empty())
}

/// The question for a placeholder, in English (an input's own
/// description first).
pub fn question(p: &Placeholder, inputs: &[Input]) -> String {
    described(p, inputs).map_or_else(|| p.question(), str::to_owned)
}

/// `entry`'s way in with `answers` (empty answers count as none); an
/// answer asked as a password ([`is_secret`], of `inputs`) stays masked
/// in the line shown.
pub fn plan(entry: &Entry, answers: &BTreeMap<String, String>, inputs: &[Input], choice: Choice, origin: &str) -> Plan {
    let answers: BTreeMap<String, String> = answers.iter().filter(|(_, v)| !v.is_empty()).map(|(k, v)| (k.clone(), v.clone())).collect();
    let unanswered: Vec<Placeholder> = entry.placeholders().into_iter().filter(|p| p.default.is_none() && !answers.contains_key(&p.key)).collect();
    if !unanswered.is_empty() {
        return Plan::Ask(unanswered);
    }
    let hidden: Vec<String> = entry.placeholders().iter().filter(|p| is_secret(p, inputs)).filter_map(|p| answers.get(&p.key).cloned()).collect();
    let fill = |t: &str| placeholders::fill(t, &answers);
    let filled = match &entry.server {
        Server::Unusable(why) => return Plan::Unusable(why.clone()),
        Server::Remote { url, transport, headers } => (|| {
            let url = fill(url)?;
            let headers = headers.iter().map(|(k, v)| Some((k.clone(), fill(v)?))).collect::<Option<Vec<_>>>()?;
            Some(Plan::Connect { url, transport: *transport, headers })
        })(),
        Server::Stdio(s) => (|| {
            let stdio = Stdio {
                command: fill(&s.command)?,
                args: s.args.iter().map(|a| fill(a)).collect::<Option<_>>()?,
                env: s.env.iter().map(|(k, v)| Some((k.clone(), fill(v)?))).collect::<Option<_>>()?,
                cwd: s.cwd.as_deref().map(fill).transpose_none()?,
            };
            // supergateway hands its command to cmd.exe on Windows, whose
            // quoting no line can promise: PowerShell gets mcp-proxy.
            let bridge = if choice.shell == Shell::PowerShell { Bridge::McpProxy } else { choice.bridge };
            Some(bridge::line_hiding(&stdio, &hidden, bridge, choice.shell, origin, choice.port).map_or_else(Plan::Unusable, Plan::Bridge))
        })(),
    };
    filled.unwrap_or_else(|| match entry.placeholders() {
        // `${}`: nothing to ask, nothing to fill.
        asked if asked.is_empty() => Plan::Unusable(crate::Unusable::NamelessPlaceholder),
        asked => Plan::Ask(asked),
    })
}

/// `Option<Option<T>>` where an inner `None` (a value that could not be
/// filled) makes the whole `None`.
trait TransposeNone<T> {
    fn transpose_none(self) -> Option<Option<T>>;
}

impl<T> TransposeNone<T> for Option<Option<T>> {
    fn transpose_none(self) -> Option<Option<T>> {
        match self {
            None => Some(None),
            Some(None) => None,
            Some(Some(v)) => Some(Some(v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGIN: &str = "https://air.example";

    fn choice() -> Choice {
        Choice { bridge: Bridge::McpProxy, shell: Shell::Posix, port: 8100 }
    }

    #[test]
    fn a_remote_entry_connects_once_its_placeholders_are_answered() {
        let parsed = crate::parse(r#"{"servers":{"gh":{"type":"http","url":"https://api.example/mcp","headers":{"Authorization":"Bearer ${input:pat}"}}},"inputs":[{"id":"pat","type":"promptString","description":"GitHub token","password":true}]}"#).expect("reads");
        let entry = &parsed.entries[0];
        let asked = plan(entry, &defaults(&parsed.inputs), &parsed.inputs, choice(), ORIGIN);
        let Plan::Ask(ps) = asked else { panic!("{asked:?}") };
        assert_eq!(ps.len(), 1);
        assert_eq!(question(&ps[0], &parsed.inputs), "GitHub token");
        assert!(is_secret(&ps[0], &parsed.inputs));
        let empty = BTreeMap::from([("input:pat".to_owned(), String::new())]);
        assert!(matches!(plan(entry, &empty, &parsed.inputs, choice(), ORIGIN), Plan::Ask(_)), "an empty answer is none");
        let answered = BTreeMap::from([("input:pat".to_owned(), "ghp_x".to_owned())]);
        assert_eq!(
            plan(entry, &answered, &parsed.inputs, choice(), ORIGIN),
            Plan::Connect { url: "https://api.example/mcp".into(), transport: Transport::StreamableHttp, headers: vec![("Authorization".into(), "Bearer ghp_x".into())] }
        );
    }

    #[test]
    fn a_local_entry_gets_its_bridge_line_with_answers_and_defaults_filled() {
        let parsed =
            crate::parse(r#"{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","${DIR:-/home/me}"],"env":{"TOKEN":"${env:TOKEN}"}}}}"#).expect("reads");
        let entry = &parsed.entries[0];
        assert!(matches!(plan(entry, &BTreeMap::new(), &parsed.inputs, choice(), ORIGIN), Plan::Ask(ps) if ps.len() == 1 && ps[0].key == "env:TOKEN"), "the default needs no answer");
        let answers = BTreeMap::from([("env:TOKEN".to_owned(), "abc".to_owned())]);
        let Plan::Bridge(line) = plan(entry, &answers, &parsed.inputs, choice(), ORIGIN) else { panic!("a line") };
        assert_eq!(line.text, "uvx mcp-proxy@0.13.0 --port 8100 --allow-origin https://air.example -e TOKEN abc -- npx -y @modelcontextprotocol/server-filesystem /home/me");
        assert_eq!(line.url, "http://127.0.0.1:8100/mcp");
        assert!(!line.text.contains("${"));
    }

    #[test]
    fn an_unusable_entry_says_why_and_ports_count_up() {
        let parsed = crate::parse(r#"{"mcpServers":{"x":{"transport":"carrier-pigeon"}}}"#).expect("reads");
        assert!(matches!(plan(&parsed.entries[0], &BTreeMap::new(), &[], choice(), ORIGIN), Plan::Unusable(_)));
        assert_eq!((port(0), port(3), port(usize::MAX)), (8100, 8103, u16::MAX));
        let nameless = crate::parse(r#"{"mcpServers":{"x":{"url":"https://a.example/${}"}}}"#).expect("reads");
        assert!(matches!(plan(&nameless.entries[0], &BTreeMap::new(), &parsed.inputs, choice(), ORIGIN), Plan::Unusable(_)), "never an entry with nothing to do");
        let env = crate::parse(r#"{"mcpServers":{"x":{"command":"npx","env":{"A=1;touch /tmp/p;B":"v"}}}}"#).expect("reads");
        assert!(matches!(&env.entries[0].server, Server::Unusable(crate::Unusable::BadVariableName(name)) if name == "A=1;touch /tmp/p;B"));
        let ps = crate::parse(r#"{"mcpServers":{"x":{"command":"npx","args":["a"]}}}"#).expect("reads");
        let Plan::Bridge(l) = plan(&ps.entries[0], &BTreeMap::new(), &[], Choice { bridge: Bridge::Supergateway, shell: Shell::PowerShell, port: 8100 }, ORIGIN) else { panic!("a line") };
        assert!(l.text.starts_with("uvx mcp-proxy@0.13.0") && l.warning.is_none(), "PowerShell gets mcp-proxy: {}", l.text);
    }

    #[test]
    fn a_word_windows_would_split_makes_the_entry_unusable_in_powershell_saying_which() {
        let parsed = crate::parse(r#"{"mcpServers":{"x":{"command":"npx","args":["-y","server","a&calc"]}}}"#).expect("reads");
        let ps = Choice { bridge: Bridge::McpProxy, shell: Shell::PowerShell, port: 8100 };
        let Plan::Unusable(why) = plan(&parsed.entries[0], &BTreeMap::new(), &[], ps, ORIGIN) else { panic!("refused") };
        let why = why.to_string();
        assert!(why.contains("\"a&calc\"") && why.contains("cmd.exe") && why.contains("command separator"), "{why}");
        assert!(matches!(plan(&parsed.entries[0], &BTreeMap::new(), &[], choice(), ORIGIN), Plan::Bridge(_)), "sh quotes it");
    }

    #[test]
    fn an_answer_typed_as_a_password_stays_masked_in_the_line_shown() {
        let parsed = crate::parse(r#"{"servers":{"x":{"command":"npx","args":["-y","server","--header","X-Client: ${input:pat}"],"env":{"DEBUG_LEVEL":"${input:pat}"}}},"inputs":[{"id":"pat","type":"promptString","password":true}]}"#).expect("reads");
        let answers = BTreeMap::from([("input:pat".to_owned(), "hunter2".to_owned())]);
        for shell in [Shell::Posix, Shell::PowerShell] {
            let Plan::Bridge(l) = plan(&parsed.entries[0], &answers, &parsed.inputs, Choice { shell, ..choice() }, ORIGIN) else { panic!("a line") };
            assert!(l.text.contains("hunter2") && !l.shown.contains("hunter2"), "{}", l.shown);
            assert!(l.shown.contains("'X-Client: ••••'"), "the rest of the word shown: {}", l.shown);
        }
    }
}

//! `${…}` in a configuration: what each client fills in at start
//! (`${env:NAME}`, `${input:id}`, `${NAME}`, `${NAME:-default}`,
//! `${userHome}`, `${workspaceFolder}`, `${file:/path}`). A page has no
//! environment, no home and no workspace: each is asked of the user, and
//! none is ever sent as written.

use std::collections::BTreeMap;

/// One placeholder, as written between `${` and `}`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Placeholder {
    /// What is inside the braces (`env:GITHUB_TOKEN`, `input:api-key`).
    pub key: String,
    /// The default it names (`${NAME:-default}`), if any.
    pub default: Option<String>,
}

/// What a placeholder stands for, to ask in the user's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked<'a> {
    /// An environment variable, by name.
    Env(&'a str),
    /// A VS Code input, by id.
    Input(&'a str),
    /// A file's contents, by path.
    File(&'a str),
    Home,
    Workspace,
    /// Anything else, as written.
    Other(&'a str),
}

impl Placeholder {
    /// What it stands for.
    pub fn asked(&self) -> Asked<'_> {
        let k = self.key.as_str();
        if let Some(name) = k.strip_prefix("env:") {
            Asked::Env(name)
        } else if let Some(id) = k.strip_prefix("input:") {
            Asked::Input(id)
        } else if let Some(path) = k.strip_prefix("file:") {
            Asked::File(path)
        } else if k == "userHome" {
            Asked::Home
        } else if k == "workspaceFolder" {
            Asked::Workspace
        } else {
            Asked::Other(k)
        }
    }

    /// What to ask the user, in English.
    pub fn question(&self) -> String {
        match self.asked() {
            Asked::Env(name) => format!("The value of the environment variable {name}"),
            Asked::Input(id) => format!("The value of the input \"{id}\""),
            Asked::File(path) => format!("The contents of the file {path}"),
            Asked::Home => "Your home folder".to_owned(),
            Asked::Workspace => "The workspace folder".to_owned(),
            Asked::Other(k) => format!("The value of {k}"),
        }
    }
}

/// The placeholders in `text`, in order, each once.
pub fn find(text: &str) -> Vec<Placeholder> {
    let mut out: Vec<Placeholder> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let inner = &after[..end];
        let (key, default) = match inner.split_once(":-") {
            Some((k, d)) if !k.contains(':') => (k.to_owned(), Some(d.to_owned())),
            _ => (inner.to_owned(), None),
        };
        if !key.is_empty() && !out.iter().any(|p| p.key == key) {
            out.push(Placeholder { key, default });
        }
        rest = &after[end + 1..];
    }
    out
}

/// `text` with each placeholder replaced by its answer (by key); `None`
/// when one has no answer (and no default), so nothing half-filled is
/// ever used.
pub fn fill(text: &str, answers: &BTreeMap<String, String>) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        out.push_str(&rest[..start]);
        let found = find(&rest[start..start + 2 + end + 1]);
        let p = found.first()?;
        out.push_str(answers.get(&p.key).or(p.default.as_ref())?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialects_placeholders_are_found_once_each() {
        let found = find("${env:TOKEN} ${input:key} ${HOME_DIR:-/home/me} ${env:TOKEN} ${userHome}/x ${file:/etc/k}");
        let keys: Vec<(&str, Option<&str>)> = found.iter().map(|p| (p.key.as_str(), p.default.as_deref())).collect();
        assert_eq!(keys, [("env:TOKEN", None), ("input:key", None), ("HOME_DIR", Some("/home/me")), ("userHome", None), ("file:/etc/k", None)]);
        assert_eq!(found[0].question(), "The value of the environment variable TOKEN");
        let asked: Vec<Asked<'_>> = found.iter().map(Placeholder::asked).collect();
        assert_eq!(asked, [Asked::Env("TOKEN"), Asked::Input("key"), Asked::Other("HOME_DIR"), Asked::Home, Asked::File("/etc/k")]);
        assert!(find("no ${ closing").is_empty() && find("$HOME {x}").is_empty());
    }

    #[test]
    fn filling_needs_every_answer_or_a_default() {
        let answers = BTreeMap::from([("env:TOKEN".to_owned(), "t0k".to_owned())]);
        assert_eq!(fill("Bearer ${env:TOKEN}", &answers).as_deref(), Some("Bearer t0k"));
        assert_eq!(fill("${PORT:-8080}/${env:TOKEN}", &answers).as_deref(), Some("8080/t0k"));
        assert_eq!(fill("${input:other}", &answers), None, "never half-filled");
        assert_eq!(fill("plain", &answers).as_deref(), Some("plain"));
    }
}

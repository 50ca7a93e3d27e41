//! The tools `run_javascript` and `run_python`: what the model is told
//! (the chat's files among it) and its arguments, checked.

use air_tools::{Annotations, ToolDef, ToolSource};
use serde_json::{Value, json};

use crate::{Lang, Limits};

/// Code longer than this (bytes) is not run.
pub const MAX_CODE: usize = 100_000;
/// Packages a Python run may ask for.
pub const MAX_PACKAGES: usize = 20;

/// A file of the conversation the code can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatFile {
    /// Where its bytes are kept (empty: not stored yet, a file of the
    /// message being sent).
    pub id: String,
    pub name: String,
    pub mime: String,
    pub size: u64,
}

/// What a run is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub lang: Lang,
    pub code: String,
    /// Python packages to load first (by name, from the site's own list).
    pub packages: Vec<String>,
}

/// Arguments a run cannot start from, said to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgError {
    #[error("the arguments are not an object; call it with {{\"code\": \"…\"}}")]
    NotAnObject,
    #[error("\"code\" is missing or empty; give the program as a string")]
    NoCode,
    #[error("\"code\" is {0} bytes; at most {MAX_CODE} are run")]
    CodeTooLong(usize),
    #[error("\"packages\" must be a list of package names")]
    PackagesNotAList,
    #[error("{0:?} is not a package name")]
    BadPackage(String),
    #[error("at most {MAX_PACKAGES} packages can be loaded")]
    TooManyPackages,
}

/// The tool that runs `lang`, its description naming `files`.
pub fn def(lang: Lang, files: &[ChatFile]) -> ToolDef {
    let limits = Limits::of(lang);
    let (about, code, mut properties) = match lang {
        Lang::JavaScript => (javascript_about(limits), "The JavaScript program (an async module body: `await` works at top level).", json!({})),
        Lang::Python => (
            python_about(limits),
            "The Python program.",
            json!({"packages": {"type": "array", "items": {"type": "string"}, "description": "Packages to load before it runs, by name (only those this site offers; the standard library is always there)."}}),
        ),
    };
    properties["code"] = json!({"type": "string", "description": code});
    ToolDef {
        name: lang.tool().into(),
        description: format!("{about}\n\n{}", files_line(lang, files)),
        input_schema: json!({"type": "object", "properties": properties, "required": ["code"], "additionalProperties": false}),
        annotations: Annotations { read_only_hint: Some(true), open_world_hint: Some(false), ..Default::default() },
        source: ToolSource::BuiltIn,
        mcp: None,
    }
}

fn javascript_about(limits: Limits) -> String {
    format!(
        "Runs JavaScript (ES2023, in QuickJS) in a sandbox in the user's browser: no network, no DOM or web APIs beyond console, files, TextEncoder, TextDecoder and setTimeout, at most {} s and {} MB. \
         console.log and console.error are captured and the value of the last expression is returned (with top-level await, `return` it). \
         Read the chat's files with `await files.text(name)` or `await files.bytes(name)` (a Uint8Array); \
         write files with `files.write(name, textOrBytes)`: they are given back to the user to download. \
         Use it to compute, parse or convert data instead of doing it in your head.",
        limits.run_ms / 1000,
        limits.memory_bytes >> 20
    )
}

fn python_about(limits: Limits) -> String {
    format!(
        "Runs Python 3 (Pyodide) in a sandbox in the user's browser: no network, no access to the page or its storage, at most {} s once started. \
         Printed output is captured and the value of the last expression is returned. The chat's files are in /mnt/data (read only); \
         files written to /mnt/out are given back to the user (images such as a PNG are shown). \
         The first run downloads Python once. Use it to compute, parse, convert or plot data instead of doing it in your head.",
        limits.run_ms / 1000
    )
}

/// The line that tells the model which files the code can read.
fn files_line(lang: Lang, files: &[ChatFile]) -> String {
    if files.is_empty() {
        return "The chat has no files.".into();
    }
    let place = match lang {
        Lang::JavaScript => "",
        Lang::Python => "/mnt/data/",
    };
    let list: Vec<String> = files.iter().map(|f| format!("{place}{} ({}, {})", f.name, f.mime, size(f.size))).collect();
    format!("The chat's files: {}.", list.join(", "))
}

/// A size as people read it (`1.5 KB`).
pub fn size(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_048_576.0),
    }
}

/// The code of a call of `tool` with `arguments` (as the model sent
/// them), when it is one of these tools: what its card shows.
pub fn code_of(tool: &str, arguments: &str) -> Option<(Lang, String)> {
    let lang = Lang::of_tool(tool)?;
    let args: Value = serde_json::from_str(arguments).ok()?;
    Some((lang, args.get("code")?.as_str()?.to_owned()))
}

/// The run `args` asks for in `lang`.
pub fn request(lang: Lang, args: &Value) -> Result<Request, ArgError> {
    let o = args.as_object().ok_or(ArgError::NotAnObject)?;
    let code = o.get("code").and_then(Value::as_str).filter(|c| !c.trim().is_empty()).ok_or(ArgError::NoCode)?;
    if code.len() > MAX_CODE {
        return Err(ArgError::CodeTooLong(code.len()));
    }
    let packages = match (lang, o.get("packages")) {
        (Lang::Python, Some(Value::Array(list))) => packages(list)?,
        (Lang::Python, Some(Value::Null) | None) | (Lang::JavaScript, _) => Vec::new(),
        (Lang::Python, Some(_)) => return Err(ArgError::PackagesNotAList),
    };
    Ok(Request { lang, code: code.to_owned(), packages })
}

fn packages(list: &[Value]) -> Result<Vec<String>, ArgError> {
    if list.len() > MAX_PACKAGES {
        return Err(ArgError::TooManyPackages);
    }
    let mut out: Vec<String> = Vec::new();
    for v in list {
        let name = v.as_str().ok_or(ArgError::PackagesNotAList)?.trim();
        let ok = !name.is_empty() && name.len() <= 100 && name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
        if !ok {
            return Err(ArgError::BadPackage(name.to_owned()));
        }
        if !out.iter().any(|p| p.eq_ignore_ascii_case(name)) {
            out.push(name.to_owned());
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;

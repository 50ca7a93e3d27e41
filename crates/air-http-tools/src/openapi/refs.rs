//! `$ref`s within one document: followed, and inlined into the schemas a
//! tool carries (the model sees no `components`). Refs to other documents
//! are refused, cycles found, and the work bounded.

use std::cell::Cell;
use std::fmt;

use serde_json::{Map, Value};

/// Values one operation may visit while its schemas are inlined: a
/// document whose refs fan out (each schema naming others many times) would
/// otherwise grow without end.
pub const BUDGET: usize = 50_000;

/// Why a `$ref` cannot be followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefError {
    /// Into another document (`other.json#/…`, `https://…`): only refs
    /// within the document (`#/…`) are read.
    External(String),
    /// Names nothing in the document.
    Missing(String),
    /// Refs that only name each other, as followed.
    Cycle(Vec<String>),
    /// `$ref` is not a string.
    NotText,
    /// The schemas grow past [`BUDGET`] values once inlined.
    TooLarge,
}

impl fmt::Display for RefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefError::External(r) => write!(f, "it refers to another document (\"{r}\"); only references within the document (#/…) are read, so bundle it into one file first"),
            RefError::Missing(r) => write!(f, "its reference \"{r}\" names nothing in the document"),
            RefError::Cycle(refs) => write!(f, "its references go round in a circle: {}", refs.join(" → ")),
            RefError::NotText => f.write_str("a \"$ref\" in it is not a string"),
            RefError::TooLarge => write!(f, "its schemas grow past {BUDGET} values once their references are resolved"),
        }
    }
}

/// Schema keywords of OpenAPI that say nothing to the model.
const DROPPED: &[&str] = &["xml", "externalDocs", "discriminator"];

/// Reads refs of one document. Each operation gets its own (a fresh
/// budget).
pub struct Resolver<'a> {
    doc: &'a Value,
    budget: Cell<usize>,
    /// Schemas met again inside themselves (cut there), by name.
    recursive: std::cell::RefCell<Vec<String>>,
}

impl<'a> Resolver<'a> {
    pub fn new(doc: &'a Value) -> Self {
        Self { doc, budget: Cell::new(BUDGET), recursive: Default::default() }
    }

    /// Names of the schemas that were cut where they contain themselves.
    pub fn recursive(&self) -> Vec<String> {
        self.recursive.borrow().clone()
    }

    /// What a local ref (`#/a/b~1c`) points to.
    pub fn pointer(&self, r: &str) -> Result<&'a Value, RefError> {
        let Some(path) = r.strip_prefix('#') else { return Err(RefError::External(r.to_owned())) };
        if path.is_empty() {
            return Ok(self.doc);
        }
        let Some(path) = path.strip_prefix('/') else { return Err(RefError::Missing(r.to_owned())) };
        let mut at = self.doc;
        for token in path.split('/') {
            let key = percent_decode(token).replace("~1", "/").replace("~0", "~");
            at = match at {
                Value::Object(m) => m.get(&key),
                Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
                _ => None,
            }
            .ok_or_else(|| RefError::Missing(r.to_owned()))?;
        }
        Ok(at)
    }

    /// `v`, or what its chain of `$ref`s ends at, with the refs followed.
    pub fn follow_chain(&self, v: &'a Value) -> Result<(&'a Value, Vec<String>), RefError> {
        let mut chain: Vec<String> = Vec::new();
        let mut at = v;
        while let Some(r) = at.get("$ref") {
            let r = r.as_str().ok_or(RefError::NotText)?;
            if chain.iter().any(|c| c == r) {
                chain.push(r.to_owned());
                return Err(RefError::Cycle(chain));
            }
            chain.push(r.to_owned());
            at = self.pointer(r)?;
        }
        Ok((at, chain))
    }

    /// `v`, or what its chain of `$ref`s ends at (a parameter, a request
    /// body, a path item).
    pub fn follow(&self, v: &'a Value) -> Result<&'a Value, RefError> {
        self.follow_chain(v).map(|(v, _)| v)
    }

    /// A schema with every `$ref` replaced by what it names (keys beside a
    /// `$ref` kept over it, as OpenAPI 3.1 reads them). A schema met again
    /// inside itself is cut there: `{}` with a description naming it.
    pub fn inline(&self, schema: &'a Value) -> Result<Value, RefError> {
        self.inline_in(schema, &mut Vec::new())
    }

    fn inline_in(&self, v: &'a Value, open: &mut Vec<String>) -> Result<Value, RefError> {
        let left = self.budget.get().checked_sub(1).ok_or(RefError::TooLarge)?;
        self.budget.set(left);
        match v {
            Value::Object(m) if m.contains_key("$ref") => self.inline_ref(v, m, open),
            Value::Object(m) => {
                let mut out = Map::new();
                for (k, v) in m.iter().filter(|(k, _)| !DROPPED.contains(&k.as_str())) {
                    let inlined = match (k.as_str(), v) {
                        // Data, not schemas: a `$ref` key there is just a key.
                        ("example" | "examples" | "default" | "enum" | "const", _) => v.clone(),
                        // Maps of names to schemas.
                        ("properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas", Value::Object(named)) => {
                            let mut each = Map::new();
                            for (name, s) in named {
                                each.insert(name.clone(), self.inline_in(s, open)?);
                            }
                            Value::Object(each)
                        }
                        _ => self.inline_in(v, open)?,
                    };
                    out.insert(k.clone(), inlined);
                }
                Ok(Value::Object(out))
            }
            Value::Array(a) => a.iter().map(|v| self.inline_in(v, open)).collect::<Result<Vec<_>, _>>().map(Value::Array),
            other => Ok(other.clone()),
        }
    }

    fn inline_ref(&self, v: &'a Value, m: &'a Map<String, Value>, open: &mut Vec<String>) -> Result<Value, RefError> {
        let (target, chain) = self.follow_chain(v)?;
        if let Some(again) = chain.iter().find(|r| open.contains(r)) {
            let name = again.rsplit('/').next().unwrap_or(again).to_owned();
            let mut seen = self.recursive.borrow_mut();
            if !seen.contains(&name) {
                seen.push(name.clone());
            }
            let mut cut = Map::new();
            cut.insert("description".into(), Value::String(format!("The same shape as {name} (it contains itself).")));
            return Ok(Value::Object(cut));
        }
        let depth = open.len();
        open.extend(chain);
        let inlined = self.inline_in(target, open);
        open.truncate(depth);
        let mut out = inlined?;
        if let Value::Object(o) = &mut out {
            for (k, s) in m.iter().filter(|(k, _)| *k != "$ref" && !DROPPED.contains(&k.as_str())) {
                o.insert(k.clone(), self.inline_in(s, open)?);
            }
        }
        Ok(out)
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

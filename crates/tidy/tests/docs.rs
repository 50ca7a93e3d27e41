//! What ARCHITECTURE.md names exists: every path it writes as
//! `air_crate::a::b` (a crate, then modules, types, functions or variants)
//! names a crate of the workspace, and each later segment is a word of that
//! crate's code (outside comments); every other path (`Platform::run_turn`,
//! `view::chat`) is made of words of the code of the app or a crate. A name
//! the code lost (renamed, removed) fails here.

use std::collections::BTreeSet;

use tidy::{root, rust_files};

/// The paths (`a::b`) in `text`'s inline code, without a call's `()`.
fn paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, chunk) in text.split('`').enumerate() {
        if i % 2 == 0 {
            continue;
        }
        let p = chunk.trim().trim_end_matches("()");
        let ok = p.contains("::") && p.split("::").all(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'));
        if ok {
            out.push(p.to_owned());
        }
    }
    out
}

/// Every word of the code of `crate_dir`'s sources (comments left out).
fn words(crate_dir: &std::path::Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for file in rust_files(&crate_dir.join("src")) {
        if let Some(stem) = file.file_stem().and_then(|s| s.to_str()) {
            out.insert(stem.to_owned());
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            out.extend(line.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_owned));
        }
    }
    out
}

#[test]
fn every_path_the_architecture_names_exists() {
    let root = root();
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let named = paths(&doc);
    assert!(named.len() > 40, "the doc names paths: {named:?}");
    let everything: BTreeSet<String> = std::fs::read_dir(root.join("crates")).into_iter().flatten().flatten().map(|e| e.path()).chain([root.join("app")]).flat_map(|d| words(&d)).collect();
    let mut missing = Vec::new();
    for path in &named {
        let mut segments = path.split("::").peekable();
        let first = segments.peek().copied().unwrap_or_default();
        let words = if first.starts_with("air_") {
            let krate = first.replace('_', "-");
            let dir = root.join("crates").join(&krate);
            if !dir.is_dir() {
                missing.push(format!("{path}: no crate {krate}"));
                continue;
            }
            segments.next();
            words(&dir)
        } else {
            everything.clone()
        };
        for s in segments.filter(|s| !words.contains(*s) && *s != "crate" && *s != "self" && *s != "super") {
            missing.push(format!("{path}: {s} is not in the code"));
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md names what is not there:\n{}", missing.join("\n"));
}

#[test]
fn a_path_is_read_from_inline_code_only() {
    let text = "see `air_store::search::query_terms()`, `air_x::y` and air_not::code, `AppState::x`, `air_a::b c`, `plain`";
    assert_eq!(paths(text), ["air_store::search::query_terms", "air_x::y", "AppState::x"]);
}

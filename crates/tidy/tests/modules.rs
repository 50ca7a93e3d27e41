//! Module-level rules: no module of a crate reaches, through its imports,
//! back to itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use tidy::root;

/// Crates whose module graph still has a cycle, each with the reason. The
/// list only shrinks.
const KNOWN_CYCLES: &[(&str, &str)] = &[];

use tidy::rust_files;

/// The top-level module a file of `src` belongs to (`None` for the crate
/// root: it declares and re-exports, it is not a node).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?.to_owned();
    let name = first.trim_end_matches(".rs").to_owned();
    (!matches!(name.as_str(), "lib" | "main")).then_some(name)
}

/// The code of a file without comments and without its test modules
/// (`#[cfg(test)] mod … { … }`, braces counted).
pub fn code_of(text: &str) -> String {
    let code: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
    let (mut out, mut depth, mut skipping, mut armed) = (Vec::new(), 0i64, false, false);
    for line in code {
        let t = line.trim();
        if !skipping && t == "#[cfg(test)]" {
            armed = true;
            continue;
        }
        if armed && t.starts_with("mod ") && t.ends_with('{') {
            (skipping, depth) = (true, 0);
        }
        armed = false;
        if skipping {
            depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
            skipping = depth > 0;
            continue;
        }
        out.push(line);
    }
    out.join("\n")
}

/// The first path segments named after `crate::` in `code`: `crate::a::b`
/// gives `a`, `crate::{a, b::c}` gives `a` and `b`.
pub fn crate_refs(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut start) = (0usize, 0usize);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.insert(ident(group[start..j].trim()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.insert(ident(group[start..j].trim()));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out.retain(|s| !s.is_empty() && s != "self");
    out
}

/// The module graph of one crate's `src`: module → modules it names.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(src).into_iter().filter(|f| !is_test_file(f)) {
        let Some(module) = module_of(src, &file) else { continue };
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let refs = crate_refs(&code_of(&text));
        g.entry(module.clone()).or_default().extend(refs.into_iter().filter(|r| *r != module));
    }
    let nodes: BTreeSet<String> = g.keys().cloned().collect();
    for edges in g.values_mut() {
        edges.retain(|e| nodes.contains(e));
    }
    g
}

/// A file of tests (`tests.rs`, `*_tests.rs`): left out of the graph, as
/// [`code_of`] leaves out a file's own test module.
fn is_test_file(file: &Path) -> bool {
    file.file_stem().and_then(|s| s.to_str()).is_some_and(|s| s == "tests" || s.ends_with("_tests"))
}

/// One cycle of `g`, if there is one, as the path that closes it.
pub fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(n: &str, g: &BTreeMap<String, BTreeSet<String>>, done: &mut BTreeSet<String>, path: &mut Vec<String>) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == n) {
            let mut cycle = path[at..].to_vec();
            cycle.push(n.to_owned());
            return Some(cycle);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_owned());
        for next in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, g, done, path) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    g.keys().find_map(|n| visit(n, g, &mut done, &mut Vec::new()))
}

/// Every crate's `src` (and the app's).
fn sources() -> Vec<(String, PathBuf)> {
    let root = root();
    let mut out = vec![("app/src".to_owned(), root.join("app/src"))];
    let Ok(entries) = std::fs::read_dir(root.join("crates")) else { panic!("no crates/") };
    for dir in entries.flatten().map(|e| e.path()) {
        let src = dir.join("src");
        if src.is_dir() {
            let name = format!("crates/{}/src", dir.file_name().and_then(|n| n.to_str()).unwrap_or_default());
            out.push((name, src));
        }
    }
    out.sort();
    out
}

#[test]
fn module_graphs_are_acyclic() {
    let mut cycles = Vec::new();
    for (name, src) in sources() {
        let cycle = find_cycle(&graph(&src));
        let known = KNOWN_CYCLES.iter().any(|(k, _)| *k == name);
        match (cycle, known) {
            (Some(c), false) => cycles.push(format!("{name}: {}", c.join(" → "))),
            (None, true) => cycles.push(format!("{name} has no cycle any more: take it off KNOWN_CYCLES")),
            _ => {}
        }
    }
    assert!(cycles.is_empty(), "module cycles:\n{}", cycles.join("\n"));
}

/// The paths a file names after `prefix` (`super::`, `crate::view::`), by
/// their first segment, as [`crate_refs`] reads `crate::`.
fn refs_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let marked = code.replace(prefix, "\u{1}");
    crate_refs(&marked.replace("crate::", "krate::").replace('\u{1}', " crate::"))
}

/// The file-level graph inside each module folder of `src` (`view/`,
/// `binding/`, `prompt_calls/`): file → sibling files it names, through
/// `super::` or its full path from the crate. The folder's own file
/// (`mod.rs`, or `view.rs` beside it) declares its children: not a node.
fn file_graphs(src: &Path) -> Vec<(String, BTreeMap<String, BTreeSet<String>>)> {
    let mut folders: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for file in rust_files(src) {
        if let Some(dir) = file.parent().filter(|d| *d != src) {
            folders.entry(dir.to_path_buf()).or_default().push(file);
        }
    }
    let mut out = Vec::new();
    for (dir, files) in folders {
        let module_path = dir.strip_prefix(src).map(|r| r.components().filter_map(|c| c.as_os_str().to_str()).collect::<Vec<_>>().join("::")).unwrap_or_default();
        let stem = |f: &Path| f.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
        let nodes: BTreeSet<String> = files.iter().map(|f| stem(f)).filter(|n| n != "mod" && !n.ends_with("_tests")).collect();
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for file in files.iter().filter(|f| nodes.contains(&stem(f))) {
            let code = code_of(&std::fs::read_to_string(file).unwrap_or_default());
            let mut refs = refs_after(&code, "super::");
            refs.extend(refs_after(&code, &format!("crate::{module_path}::")));
            let me = stem(file);
            g.insert(me.clone(), refs.into_iter().filter(|r| *r != me && nodes.contains(r)).collect());
        }
        out.push((dir.strip_prefix(src).map(|r| r.display().to_string()).unwrap_or_default(), g));
    }
    out
}

#[test]
fn no_import_cycle_between_the_files_of_a_module() {
    let mut cycles = Vec::new();
    for (name, src) in sources() {
        for (folder, g) in file_graphs(&src) {
            if let Some(c) = find_cycle(&g) {
                cycles.push(format!("{name}/{folder}: {}", c.join(" → ")));
            }
        }
    }
    assert!(cycles.is_empty(), "file cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_file_graph_reads_super_and_full_paths() {
    let code = code_of("use super::{thread, message::Row};\nlet x = crate::view::chat::f();");
    assert_eq!(refs_after(&code, "super::").into_iter().collect::<Vec<_>>(), ["message", "thread"]);
    assert_eq!(refs_after(&code, "crate::view::").into_iter().collect::<Vec<_>>(), ["chat"]);
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let code = code_of("use crate::a;\n#[cfg(test)]\nmod tests {\n    use crate::t;\n    fn f() { }\n}\nuse crate::after;\n// crate::comment");
    assert_eq!(crate_refs(&code).into_iter().collect::<Vec<_>>(), ["a", "after"]);
    let refs = crate_refs("use crate::{a::B, b};\nuse crate::c::d;\nlet x = $crate::z; foo_crate::y;");
    assert_eq!(refs.into_iter().collect::<Vec<_>>(), ["a", "b", "c"]);
    let g: BTreeMap<String, BTreeSet<String>> = [("a", &["b"][..]), ("b", &["c"]), ("c", &["a"]), ("d", &[])].iter().map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect())).collect();
    assert_eq!(find_cycle(&g), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    let mut g = g;
    g.insert("c".into(), BTreeSet::new());
    assert_eq!(find_cycle(&g), None);
}

/// ARCHITECTURE.md names every crate (a section of its own) and every
/// top-level module of each crate and of the app.
#[test]
fn every_crate_and_module_is_in_the_architecture() {
    let root = root();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap_or_default();
    let mut missing = Vec::new();
    for (name, src) in sources() {
        let dir = name.trim_end_matches("/src");
        if dir != "app" && !text.contains(&format!("### `{dir}`")) {
            missing.push(format!("{dir}: no section"));
        }
        let Ok(entries) = std::fs::read_dir(&src) else { continue };
        for path in entries.flatten().map(|e| e.path()) {
            let file = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            let module = file.trim_end_matches(".rs");
            let skip = matches!(module, "lib" | "main" | "tests") || module.ends_with("_tests") || (path.is_dir() && src.join(format!("{module}.rs")).exists());
            if !skip && !text.contains(&format!("`{module}`")) && !text.contains(&format!("`{module}::")) {
                missing.push(format!("{dir}: module {module}"));
            }
        }
    }
    assert!(missing.is_empty(), "not in ARCHITECTURE.md:\n{}", missing.join("\n"));
}

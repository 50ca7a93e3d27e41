//! No source file over 600 lines and no function over 80, outside tests,
//! with no exception.

use std::path::PathBuf;

const MAX_FILE: usize = 600;
const MAX_FN: usize = 80;

use tidy::root;

/// Every `.rs` file of the app's and the crates' `src`, but test files.
fn sources() -> Vec<PathBuf> {
    let root = root();
    let mut stack = vec![root.join("app/src")];
    if let Ok(entries) = std::fs::read_dir(root.join("crates")) {
        stack.extend(entries.flatten().map(|e| e.path().join("src")));
    }
    let mut out = Vec::new();
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for path in entries.flatten().map(|e| e.path()) {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            if path.is_dir() {
                stack.push(path);
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The lines of a file outside its test modules (`#[cfg(test)] mod … {}`).
fn non_test_lines(text: &str) -> Vec<&str> {
    let (mut out, mut skipping, mut armed) = (Vec::new(), false, false);
    for line in text.lines() {
        let t = line.trim();
        if !skipping && t == "#[cfg(test)]" {
            armed = true;
            continue;
        }
        // A test module at the top of a file ends at the first `}` of
        // column 0.
        if armed && line.starts_with("mod ") && t.ends_with('{') {
            skipping = true;
        }
        armed = false;
        if skipping {
            skipping = line != "}";
            continue;
        }
        out.push(line);
    }
    out
}

/// Opening minus closing braces of each line, outside strings (which may
/// span lines), character literals and comments: roughly, enough for this
/// code base's formatting.
fn braces(lines: &[&str]) -> Vec<i64> {
    let mut in_str = false;
    lines
        .iter()
        .map(|line| {
            let chars: Vec<char> = line.chars().collect();
            let (mut n, mut i) = (0i64, 0);
            while i < chars.len() {
                match chars[i] {
                    '\\' if in_str => i += 1,
                    '"' => in_str = !in_str,
                    '/' if !in_str && chars.get(i + 1) == Some(&'/') => break,
                    // A character literal such as '{', '}' or '"'.
                    '\'' if !in_str && chars.get(i + 2) == Some(&'\'') => i += 2,
                    '\'' if !in_str && chars.get(i + 1) == Some(&'\\') && chars.get(i + 3) == Some(&'\'') => i += 3,
                    '{' if !in_str => n += 1,
                    '}' if !in_str => n -= 1,
                    _ => {}
                }
                i += 1;
            }
            n
        })
        .collect()
}

/// The name of the function a line declares, if it does.
fn declares(line: &str) -> Option<String> {
    let mut t = line.trim_start();
    for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "async ", "unsafe ", "extern \"C\" "] {
        t = t.strip_prefix(prefix).unwrap_or(t);
        t = t.strip_prefix(prefix).unwrap_or(t);
    }
    let rest = t.strip_prefix("fn ")?;
    Some(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
}

/// (function, lines) of each function in `lines`, from its declaration to
/// its closing brace.
fn functions(lines: &[&str]) -> Vec<(String, usize)> {
    let deltas = braces(lines);
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = declares(line) else { continue };
        let (mut depth, mut opened) = (0i64, false);
        for (j, l) in lines[i..].iter().enumerate() {
            let b = deltas[i + j];
            opened |= l.contains('{');
            depth += b;
            if !opened && l.trim_end().ends_with(';') {
                break;
            }
            if opened && depth <= 0 {
                out.push((name.clone(), j + 1));
                break;
            }
            // One that never closes is counted to the end, so it is seen.
            if i + j + 1 == lines.len() {
                out.push((name.clone(), j + 1));
            }
        }
    }
    out
}

#[test]
fn files_and_functions_stay_small() {
    let root = root();
    let mut problems = Vec::new();
    for path in sources() {
        let rel = path.strip_prefix(&root).map(|p| p.display().to_string()).unwrap_or_default();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let lines = non_test_lines(&text);
        if lines.len() > MAX_FILE {
            problems.push(format!("{rel}: {} lines (at most {MAX_FILE})", lines.len()));
        }
        for (name, n) in functions(&lines) {
            if n > MAX_FN {
                problems.push(format!("{rel}: fn {name} has {n} lines (at most {MAX_FN})"));
            }
        }
    }
    assert!(problems.is_empty(), "sizes:\n{}", problems.join("\n"));
}

#[test]
fn the_counter_counts_functions_and_skips_tests() {
    let text = "pub async fn a() {\n    let s = \"}\";\n    let c = '{';\n}\nfn b(x: u8) -> u8 { x }\n#[cfg(test)]\nmod tests {\n    fn t() {\n    }\n}\nfn decl();\n";
    let lines = non_test_lines(text);
    assert_eq!(lines.len(), 6);
    assert_eq!(functions(&lines), vec![("a".to_owned(), 4), ("b".to_owned(), 1)]);
}

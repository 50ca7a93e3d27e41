use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use tidy::root;

fn metadata() -> Value {
    let out = Command::new(env!("CARGO")).args(["metadata", "--format-version", "1", "--no-deps", "--offline"]).current_dir(root()).output().unwrap_or_else(|e| panic!("cargo metadata: {e}"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("metadata json: {e}"))
}

/// (package name, manifest dir relative to the root, direct dependency names)
fn packages() -> Vec<(String, PathBuf, Vec<String>)> {
    let meta = metadata();
    let root = root();
    let list = meta["packages"].as_array().cloned().unwrap_or_default();
    list.iter()
        .map(|p| {
            let name = p["name"].as_str().unwrap_or_default().to_owned();
            let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap_or_default());
            let dir = manifest.parent().and_then(|d| d.strip_prefix(&root).ok()).map(Path::to_path_buf).unwrap_or_default();
            let deps = p["dependencies"].as_array().map(|d| d.iter().filter_map(|d| d["name"].as_str().map(str::to_owned)).collect()).unwrap_or_default();
            (name, dir, deps)
        })
        .collect()
}

const BROWSER_CRATES: &[&str] = &["web-sys", "js-sys", "wasm-bindgen", "wasm-bindgen-futures", "rexie", "idb", "serde-wasm-bindgen", "gloo-net", "gloo-utils"];

#[test]
fn only_air_web_touches_browser_apis() {
    for (name, _, deps) in packages() {
        if name == "air-web" {
            continue;
        }
        let bad: Vec<_> = deps.iter().filter(|d| BROWSER_CRATES.contains(&d.as_str())).collect();
        assert!(bad.is_empty(), "{name} depends on browser crates {bad:?}; only air-web may");
    }
}

#[test]
fn only_app_touches_leptos() {
    for (name, _, deps) in packages() {
        if name == "app" {
            continue;
        }
        let bad: Vec<_> = deps.iter().filter(|d| d.starts_with("leptos")).collect();
        assert!(bad.is_empty(), "{name} depends on {bad:?}; only app may use Leptos");
    }
}

#[test]
fn crates_live_in_folders_named_after_them() {
    for (name, dir, _) in packages() {
        if name == "app" {
            assert_eq!(dir, PathBuf::from("app"));
        } else {
            assert_eq!(dir, Path::new("crates").join(&name), "crate {name} must live in crates/{name}");
        }
    }
}

#[test]
fn top_level_layout() {
    let root = root();
    for dir in ["app", "crates", "tests", "docs", ".ci"] {
        assert!(root.join(dir).is_dir(), "missing folder {dir}/");
    }
    for file in ["index.html", "Trunk.toml", "Cargo.toml", "Cargo.lock", "README.md", "ARCHITECTURE.md", ".ci/run"] {
        assert!(root.join(file).is_file(), "missing file {file}");
    }
}

#[test]
fn wasm_bindgen_version_agrees_everywhere() {
    let root = root();
    let read = |f: &str| std::fs::read_to_string(root.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    let lock = read("Cargo.lock");
    let locked = lock
        .split("\n[[package]]\n")
        .find(|p| p.starts_with("name = \"wasm-bindgen\"\n"))
        .and_then(|p| p.lines().nth(1))
        .and_then(|l| l.strip_prefix("version = \""))
        .and_then(|l| l.strip_suffix('"'))
        .unwrap_or_else(|| panic!("wasm-bindgen not in Cargo.lock"))
        .to_owned();
    assert!(read("Cargo.toml").contains(&format!("wasm-bindgen = \"={locked}\"")), "Cargo.toml must pin wasm-bindgen ={locked}");
    assert!(read("Trunk.toml").contains(&format!("wasm_bindgen = \"{locked}\"")), "Trunk.toml [tools] must name {locked}");
}

#[test]
fn ci_runs_the_readme_test_command() {
    let root = root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap_or_default();
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap_or_default();
    assert!(readme.contains("./dev test"), "README must give the test command");
    assert!(ci.lines().any(|l| l.trim() == "./dev test" || l.trim() == "exec ./dev test"), ".ci/run must run ./dev test");
}

/// The crate map of ARCHITECTURE.md: which workspace crates each crate may
/// depend on. Dependencies point one way; a new edge is a decision to
/// write down there first.
#[test]
fn dependencies_follow_the_crate_map() {
    let allowed: &[(&str, &[&str])] = &[
        ("air-sse", &[]),
        ("air-http", &[]),
        ("air-tools", &["air-http", "air-testgen"]),
        ("air-http-tools", &["air-http", "air-tools"]),
        ("air-render", &[]),
        ("air-i18n", &["air-chat"]),
        ("air-chat", &["air-sse", "air-http", "air-tools"]),
        ("air-store", &["air-chat", "air-http-tools", "air-search", "air-testgen", "air-tools"]),
        ("air-mcp", &["air-apps", "air-http", "air-sse", "air-testgen", "air-tools"]),
        ("air-apps", &["air-http", "air-testgen", "air-tools"]),
        ("air-sandbox", &["air-testgen", "air-tools"]),
        ("air-search", &[]),
        ("air-dynamic", &["air-search", "air-store", "air-tools"]),
        // (air-dynamic: its tests only)
        ("air-agent", &["air-chat", "air-dynamic", "air-http", "air-store", "air-tools"]),
        ("air-web", &["air-chat", "air-http", "air-store", "air-sync-local", "air-tools"]),
        ("air-servers", &["air-apps", "air-doctor", "air-http", "air-mcp", "air-oauth", "air-store", "air-tools"]),
        // (air-workspace runs air-agent's turn only in a part fetched with the first message,
        // and air-servers' flows in the servers' engine, fetched with the first server action)
        (
            "air-workspace",
            &[
                "air-agent",
                "air-chat",
                "air-doctor",
                "air-dynamic",
                "air-http",
                "air-http-tools",
                "air-import",
                "air-mcp",
                "air-sandbox",
                "air-servers",
                "air-store",
                "air-sync",
                "air-sync-local",
                "air-tools",
            ],
        ),
        (
            "app",
            &[
                "air-agent",
                "air-apps",
                "air-dynamic",
                "air-chat",
                "air-http",
                "air-http-tools",
                "air-i18n",
                "air-import",
                "air-mcp",
                "air-mcp-config",
                "air-oauth",
                "air-doctor",
                "air-render",
                "air-sandbox",
                "air-servers",
                "air-store",
                "air-tools",
                "air-web",
                "air-workspace",
            ],
        ),
        ("air-oauth", &["air-http", "air-testgen"]),
        ("air-doctor", &["air-http"]),
        ("air-mcp-config", &["air-http"]),
        ("air-import", &["air-chat", "air-store"]),
        ("air-mcp-cli", &["air-http", "air-mcp", "air-oauth", "air-servers", "air-tools"]),
        ("air-sync", &["air-http"]),
        ("air-sync-local", &["air-sync", "air-tools"]),
        ("air-sync-cli", &["air-http", "air-sync"]),
        ("air-testgen", &[]),
        // (air-testgen: the property tests of the crates above only)
        ("tidy", &[]),
    ];
    let all = packages();
    let ours: Vec<&str> = all.iter().map(|(n, _, _)| n.as_str()).collect();
    for (name, _, deps) in &all {
        let Some((_, ok)) = allowed.iter().find(|(n, _)| n == name) else { panic!("crate {name} is not in the crate map of this test (and ARCHITECTURE.md)") };
        for d in deps.iter().filter(|d| ours.contains(&d.as_str()) && *d != name) {
            assert!(ok.contains(&d.as_str()), "{name} must not depend on {d} (see the crate map in ARCHITECTURE.md)");
        }
    }
}

/// In `app/`, only `binding/env.rs` (the browser environment it injects) reads the
/// clock, makes ids, sets timers or sends requests.
#[test]
fn app_reaches_the_browser_only_through_its_environment() {
    let forbidden = ["now_ms()", "new_id()", "sleep(", "set_timeout", "set_interval", "http::send", "FetchClient", "local_date_time()", "air_web::locale"];
    for path in tidy::rust_files(&root().join("app/src")) {
        if path.file_name().and_then(|n| n.to_str()) == Some("env.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for f in forbidden {
            // `env::now_ms()` is the way; a bare `now_ms` from elsewhere is not.
            let direct = |l: &str| l.match_indices(f).any(|(i, _)| !l[..i].ends_with("env::") && !l[..i].ends_with("fn "));
            let hits: Vec<usize> = text.lines().enumerate().filter(|(_, l)| direct(l)).map(|(i, _)| i + 1).collect();
            assert!(hits.is_empty(), "{}:{hits:?} uses {f}; go through app/src/binding/env.rs", path.display());
        }
    }
}

/// The MCP method names `air-mcp` sends, serves or hears are spelled in one
/// place, `crates/air-mcp/src/requests.rs`; the rest of its code names them
/// by that module's constants and types. Test modules (`#[cfg(test)] mod
/// tests { … }` and `tests.rs` files) may spell them.
#[test]
fn mcp_method_strings_only_in_requests() {
    let src = root().join("crates/air-mcp/src");
    let methods = [
        "\"initialize\"",
        "\"ping\"",
        "\"tools/",
        "\"prompts/",
        "\"resources/",
        "\"notifications/",
        "\"completion/",
        "\"elicitation/",
        "\"sampling/",
        "\"roots/",
        "\"logging/",
        "\"server/",
        "\"subscriptions/",
    ];
    let mut hits = Vec::new();
    for path in tidy::rust_files(&src) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if !name.ends_with(".rs") || name == "tests.rs" || path == src.join("requests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            // A test module is skipped to its closing brace.
            if line.trim() == "#[cfg(test)]" && lines.get(i + 1).is_some_and(|l| l.trim_start().starts_with("mod ") && l.trim_end().ends_with('{')) {
                let indent = &lines[i + 1][..lines[i + 1].len() - lines[i + 1].trim_start().len()];
                let close = format!("{indent}}}");
                i = (i + 2..lines.len()).find(|&j| lines[j] == close).map_or(lines.len(), |j| j + 1);
                continue;
            }
            let code = line.trim_start();
            if !code.starts_with("//") && methods.iter().any(|m| code.contains(m)) {
                let file = path.strip_prefix(root()).unwrap_or(&path).display().to_string();
                hits.push(format!("{file}:{}: {}", i + 1, code));
            }
            i += 1;
        }
    }
    assert!(hits.is_empty(), "MCP method names outside crates/air-mcp/src/requests.rs (name them by its constants):\n{}", hits.join("\n"));
}

/// The `#[allow(...)]`s of lints in `text` that give no `reason`, by line.
fn allows_without_reason(text: &str) -> Vec<usize> {
    text.lines().enumerate().filter(|(_, l)| l.contains("allow(clippy::") && !l.contains("reason =") && !l.trim_start().starts_with("//")).map(|(i, _)| i + 1).collect()
}

/// A lint is allowed in one place only with why (the workspace-wide list
/// in Cargo.toml says why of each, in comments).
#[test]
fn every_allowed_lint_says_why() {
    let root = root();
    let mut bad = Vec::new();
    for dir in [root.join("crates"), root.join("app")] {
        for file in tidy::rust_files(&dir) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            bad.extend(allows_without_reason(&text).into_iter().map(|n| format!("{}:{n}", file.display())));
        }
    }
    assert!(bad.is_empty(), "#[allow(clippy::…)] without `reason = \"…\"`:\n{}", bad.join("\n"));
}

#[test]
fn an_allow_without_a_reason_is_found() {
    let text = "#[allow(clippy::too_many_arguments)]\nfn f() {}\n#[allow(clippy::x, reason = \"why\")]\n// allow(clippy::in_a_comment)\n";
    assert_eq!(allows_without_reason(text), [1]);
}

//! Repository rules checked as ordinary tests (`cargo test -p tidy`, run by
//! `./dev test`), each without exception:
//!
//! * `tests/tidy.rs`: the crate map of `ARCHITECTURE.md` (which workspace
//!   crate may depend on which); only `air-web` depends on browser crates,
//!   only `app` on Leptos; in `app/` only `binding/env.rs` reads the clock,
//!   makes ids, sets timers or sends requests; MCP method names appear in
//!   `air-mcp` only in its `requests` module; crates live in
//!   `crates/<name>`; the top-level layout; the wasm-bindgen version is the
//!   same in `Cargo.toml`, `Cargo.lock` and `Trunk.toml`; `.ci/run` runs
//!   the README's test command.
//! * `tests/modules.rs`: no module of a crate or of `app/` reaches back to
//!   itself through its `crate::` imports (outside test modules), and no
//!   file of a module folder through `super::` or its full path (the list
//!   of known cycles is empty and may only shrink); `ARCHITECTURE.md` has a
//!   section for every crate and names every top-level module of each
//!   crate and of the app.
//! * `tests/sizes.rs`: no source file over 600 lines and no function over
//!   80, outside tests.
//! * `tests/app.rs`: in `app/`, tasks are spawned (`spawn_local`) and
//!   page-wide state kept (`thread_local!`) only by the binding; a view
//!   uses of the app only the binding, the text and other views; no
//!   behaviour is decided by comparing text the user reads.

use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap_or_else(|e| panic!("root: {e}"))
}

/// Every `.rs` file under `dir`, recursively, in path order.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

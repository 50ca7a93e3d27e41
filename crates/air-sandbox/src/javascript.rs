//! What this site offers JavaScript: QuickJS, an interpreter compiled to
//! WebAssembly, beside the app (`quickjs/`: the loader, bundled at build,
//! and its WebAssembly). A run's code sees only what the worker gives it,
//! and its heap has a limit past which it throws instead of taking the
//! page down (a plain worker shares the page's process, and V8 ends the
//! whole process when a worker's heap runs out). The page fetches these
//! files when the runtime asks for them, and no others.

/// Where the site keeps QuickJS, beside the app.
pub const DIR: &str = "quickjs/";
/// Its files.
pub const CORE: [&str; 2] = ["quickjs.mjs", "quickjs.wasm"];

/// Whether the runtime may have `file` of the site.
pub fn servable(file: &str) -> bool {
    CORE.contains(&file)
}

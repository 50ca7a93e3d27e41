//! What this site offers Python: Pyodide's own files beside the app
//! (`pyodide/`), and the packages its lockfile (`pyodide-lock.json`, in
//! Pyodide's layout) lists. The sandbox has no network: the page fetches
//! every file the runtime asks for, and only these ([`Site::servable`]),
//! so code cannot make the page fetch anything else. Packages a run asks
//! for that the site does not list are refused before Python starts
//! ([`Site::missing`]).

use serde_json::Value;

/// Where the site keeps Pyodide, beside the app.
pub const DIR: &str = "pyodide/";
/// Its lockfile there.
pub const LOCK: &str = "pyodide-lock.json";
/// The runtime's own files (the loader, its Emscripten half, CPython in
/// WebAssembly and the standard library), with the lockfile.
pub const CORE: [&str; 5] = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", LOCK];
/// A lockfile larger than this is not read.
pub const MAX_LOCK: usize = 4 << 20;

/// A package the lockfile lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    pub name: String,
    /// Its file in `pyodide/` (a wheel or an archive).
    pub file: String,
    /// The modules it gives `import`.
    pub imports: Vec<String>,
    /// The SHA-256 of its file, in hex, as the lockfile says.
    pub sha256: String,
}

/// The site's Python, as its lockfile says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Site {
    pub python: String,
    pub packages: Vec<Package>,
}

/// A lockfile Python cannot start from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LockError {
    #[error("Pyodide's lockfile is {0} bytes, more than can be read")]
    TooLarge(usize),
    #[error("Pyodide's lockfile is not JSON: {0}")]
    NotJson(String),
    #[error("Pyodide's lockfile has no \"packages\" object")]
    NoPackages,
}

impl Site {
    /// The site's lockfile, read as hostile: entries without a plain
    /// file name are left out.
    pub fn parse(bytes: &[u8]) -> Result<Self, LockError> {
        if bytes.len() > MAX_LOCK {
            return Err(LockError::TooLarge(bytes.len()));
        }
        let lock: Value = serde_json::from_slice(bytes).map_err(|e| LockError::NotJson(e.to_string()))?;
        let packages = lock.get("packages").and_then(Value::as_object).ok_or(LockError::NoPackages)?;
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        let mut out: Vec<Package> = packages
            .iter()
            .filter_map(|(key, p)| {
                let file = text(p, "file_name");
                let name = Some(text(p, "name")).filter(|n| !n.is_empty()).unwrap_or_else(|| key.clone());
                let imports = p.get("imports").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
                let sha256 = text(p, "sha256").to_ascii_lowercase();
                plain(&file).then_some(Package { name, file, imports, sha256 })
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        let python = lock.get("info").map(|i| text(i, "python")).unwrap_or_default();
        Ok(Self { python, packages: out })
    }

    /// Whether the runtime may have `file` of the site (a core file or a
    /// listed package's).
    pub fn servable(&self, file: &str) -> bool {
        CORE.contains(&file) || self.packages.iter().any(|p| p.file == file)
    }

    /// Whether `bytes` are the file `file` the lockfile lists (a core
    /// file, which it does not list, is not checked): a package's file
    /// must match its SHA-256, or it is not given to Python.
    pub fn check(&self, file: &str, bytes: &[u8]) -> Result<(), String> {
        self.package(file).map_or(Ok(()), |p| p.check(bytes))
    }

    /// The package whose file is `file`.
    pub fn package(&self, file: &str) -> Option<&Package> {
        self.packages.iter().find(|p| p.file == file)
    }

    /// Of `wanted` (package or module names), those the site does not
    /// list.
    pub fn missing(&self, wanted: &[String]) -> Vec<String> {
        wanted.iter().filter(|w| !self.packages.iter().any(|p| same(&p.name, w) || p.imports.iter().any(|i| same(i, w)))).cloned().collect()
    }

    /// The packages offered, by name (at most 500).
    pub fn offered(&self) -> Vec<String> {
        self.packages.iter().take(500).map(|p| p.name.clone()).collect()
    }
}

/// Package names compare as PEP 503 says: case, `-`, `_` and `.` aside.
fn same(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.chars().map(|c| if matches!(c, '_' | '.') { '-' } else { c.to_ascii_lowercase() }).collect::<String>();
    norm(a) == norm(b)
}

/// A file name with no path in it, as a lockfile names a package's file.
pub fn plain(file: &str) -> bool {
    !file.is_empty() && file.len() <= 200 && !file.starts_with('.') && file.chars().all(|c| c.is_ascii_alphanumeric() || "._+-".contains(c))
}

impl Package {
    /// Whether `bytes` match the SHA-256 the lockfile gives its file.
    pub fn check(&self, bytes: &[u8]) -> Result<(), String> {
        use sha2::Digest as _;
        let got: String = sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
        if got == self.sha256 { Ok(()) } else { Err(format!("{} failed its integrity check: its SHA-256 is {got}, the lockfile says {}", self.file, self.sha256)) }
    }
}

#[cfg(test)]
#[path = "python_tests.rs"]
mod tests;

//! Code the model writes, run in the page, without IO. The page runs it in
//! a worker inside a sandboxed frame (an opaque origin with no network);
//! this crate decides everything around that run, so the page only moves
//! messages and bytes.
//!
//! - [`tools`]: the two built-in tools, `run_javascript { code }` and
//!   `run_python { code, packages? }`, their descriptions (which name the
//!   chat's files the code can read) and their arguments checked
//!   ([`tools::request`], refused as an [`tools::ArgError`]).
//! - [`Limits`]: how long a run may take, how much output and how many
//!   and how large files it may give back.
//! - [`run`]: one run as a state machine. [`run::Run::start`] is the message
//!   the page posts to the frame (with the chat's files' bytes beside it);
//!   every message the frame posts back goes to [`run::Run::on_message`],
//!   which reads it as hostile (another run's, malformed, too much: left
//!   out or cut, never trusted), and the page terminates the worker at
//!   [`run::Run::deadline`] ([`run::Run::timed_out`]), on Stop
//!   ([`run::Run::stopped`]) or when the worker dies ([`run::Run::crashed`]).
//!   Each ends in an [`run::Outcome`].
//! - [`files`]: the files a run wrote, as the page keeps them: a plain name
//!   (no path, no control characters, unique), a type decided from the
//!   name (never the frame's word), within the limits.
//! - [`python`]: what the site offers Python: Pyodide's files beside the
//!   app and the packages its lockfile lists. The sandbox has no network,
//!   so the page fetches what the runtime asks for ([`run::Run::wanted`]),
//!   and only what [`python::Site::servable`] allows; JavaScript's runtime
//!   (QuickJS, [`javascript`]) is fetched the same way.
//! - [`output`]: an outcome as the model reads it (stdout, stderr, the last
//!   expression's value, the files written, what was cut and why) and the
//!   images it made, as a tool's output.

pub mod files;
pub mod javascript;
pub mod output;
pub mod python;
pub mod run;
pub mod tools;

/// The language a run is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    JavaScript,
    Python,
}

impl Lang {
    /// The tool that runs it.
    pub fn tool(self) -> &'static str {
        match self {
            Self::JavaScript => "run_javascript",
            Self::Python => "run_python",
        }
    }

    /// The language of the tool `name`, if it is one of these.
    pub fn of_tool(name: &str) -> Option<Self> {
        [Self::JavaScript, Self::Python].into_iter().find(|l| l.tool() == name)
    }

    /// As the user reads it.
    pub fn name(self) -> &'static str {
        match self {
            Self::JavaScript => "JavaScript",
            Self::Python => "Python",
        }
    }

    /// As the frame's messages name it.
    pub fn wire(self) -> &'static str {
        match self {
            Self::JavaScript => "javascript",
            Self::Python => "python",
        }
    }
}

/// What a run may take and give back. The time limit is kept by
/// terminating the worker, so code that never yields is stopped too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// From the moment the code starts (Python's download and start-up
    /// are not counted).
    pub run_ms: u64,
    /// How long the runtime may take to be ready with no sign of progress
    /// (Pyodide downloading on a slow line).
    pub stall_ms: u64,
    /// Characters of stdout and of stderr kept (each); the rest is cut.
    pub output_chars: usize,
    /// Files given back, at most, and bytes of each and of all together.
    pub files: usize,
    pub file_bytes: usize,
    pub total_file_bytes: usize,
    /// Bytes the runtime's heap may take (Python's WebAssembly memory,
    /// QuickJS's allocations): past it the code gets MemoryError or
    /// "out of memory", and the page lives on.
    pub memory_bytes: u64,
}

impl Limits {
    /// The limits a run in `lang` has.
    pub fn of(lang: Lang) -> Self {
        let run_ms = match lang {
            Lang::JavaScript => 30_000,
            Lang::Python => 60_000,
        };
        Self { run_ms, stall_ms: 60_000, output_chars: 20_000, files: 20, file_bytes: 10 << 20, total_file_bytes: 25 << 20, memory_bytes: 1 << 30 }
    }
}

//! The corpus of real model outputs in `tests/prompt_calls/`: every `.txt`
//! is one answer, verbatim; its `.expected` is how
//! [`PromptCallParser`] reads it (the visible text, then the calls). Each
//! answer is fed whole, split in two at every char boundary, and one char
//! at a time: all must agree. `UPDATE_EXPECT=1 cargo test -p air-chat`
//! rewrites the `.expected` files after a deliberate change.

use std::path::{Path, PathBuf};

use air_chat::prompt_calls::{PromptCall, read_every_way};

fn parse_every_way(name: &str, input: &str) -> (String, Vec<PromptCall>) {
    read_every_way(input).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/prompt_calls")
}

/// Every file of the corpus (subfolders included).
fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![corpus_dir()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() { dirs.push(path) } else { files.push(path) }
        }
    }
    files.sort();
    files
}

fn label(path: &Path) -> String {
    path.strip_prefix(corpus_dir()).unwrap_or(path).to_string_lossy().into_owned()
}

/// The golden form: what the user sees, then each call (`(unreadable)`
/// when the model marked a call whose JSON could not be read).
fn render(text: &str, calls: &[PromptCall]) -> String {
    let mut out = format!("text: {text:?}\n");
    for c in calls {
        out.push_str(&format!("call: {} {}\n", if c.name.is_empty() { "(unreadable)" } else { &c.name }, c.arguments));
    }
    out
}

#[test]
fn corpus_of_real_outputs() {
    let mut samples = 0;
    for path in corpus_files().iter().filter(|p| p.extension().is_some_and(|e| e == "txt")) {
        let input = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (text, calls) = parse_every_way(&label(path), &input);
        expect_test::expect_file![path.with_extension("expected")].assert_eq(&render(&text, &calls));
        samples += 1;
    }
    assert!(samples >= 30, "the corpus is there ({samples} samples)");
}

/// Every file in the folder is a sample, its golden reading, or the README:
/// nothing is left unused, no golden file is orphaned.
#[test]
fn every_corpus_file_is_used() {
    for path in corpus_files() {
        let name = label(&path);
        match path.extension().and_then(|e| e.to_str()) {
            Some("txt") => assert!(path.with_extension("expected").exists(), "{name} has no .expected (run with UPDATE_EXPECT=1)"),
            Some("expected") => assert!(path.with_extension("txt").exists(), "{name} has no .txt"),
            _ => assert_eq!(name, "README.md", "{name} is not part of the corpus"),
        }
    }
}

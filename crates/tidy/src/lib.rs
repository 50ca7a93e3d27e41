//! Repository rules checked as ordinary tests (`cargo test -p tidy`):
//! dependency boundaries between crates, the top-level layout, and the
//! wasm-bindgen version agreeing everywhere it is written down.

#!/usr/bin/env bash
# Builds the candle engine for the browser into tests/bench/candle/pkg
# (wasm-bindgen, --target web): engine.js and engine_bg.wasm, with .br and
# .gz copies for the download figures. Needs the wasm32-unknown-unknown
# target and wasm-bindgen-cli 0.2.130 (the version in the app's Cargo.lock).
# CARGO_TARGET_DIR may point elsewhere; wasm-opt runs when it is on PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${CARGO_TARGET_DIR:-$here/target}"
export RUSTFLAGS='-C target-feature=+simd128 --cfg getrandom_backend="wasm_js"'
cargo build --manifest-path "$here/Cargo.toml" --release --lib --target wasm32-unknown-unknown
rm -rf "$here/pkg"
wasm-bindgen --target web --no-typescript --out-dir "$here/pkg" --out-name engine \
  "$target/wasm32-unknown-unknown/release/candle_bench.wasm"
if command -v wasm-opt >/dev/null; then
  wasm-opt -O3 "$here/pkg/engine_bg.wasm" -o "$here/pkg/engine_bg.wasm"
fi
for f in "$here/pkg/engine.js" "$here/pkg/engine_bg.wasm"; do
  brotli -f -q 11 -k "$f" 2>/dev/null || node -e "const z=require('zlib'),fs=require('fs');fs.writeFileSync(process.argv[1]+'.br',z.brotliCompressSync(fs.readFileSync(process.argv[1]),{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}))" "$f"
  gzip -f -9 -k "$f"
done
ls -l "$here/pkg"

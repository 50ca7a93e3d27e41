#!/usr/bin/env bash
# Trunk's post_build hook: cuts the code behind each `#[lazy]` function out
# of the first-load wasm into modules fetched on first use.
#
# Trunk has built and bound the whole app into its staging directory. This
# takes the wasm cargo linked (with relocations, see .cargo/config.toml),
# splits it with wasm-split-cli, binds the main part again with
# wasm-bindgen under the same hashed name, optimizes every part with
# wasm-opt (release) and puts them in place of Trunk's. The split modules
# and their loader are named after a hash of their contents, so a new
# build never reuses an old name for different bytes.
#
# What that writes depends only on the linked wasm, Trunk's name for it,
# the profile, these scripts and the tools' versions: it is kept in
# target/air-split/ under a hash of those and reused while they are
# unchanged (the splitting and optimizing take minutes on two cores).
# Last, every text and wasm file gets a brotli and a gzip copy beside it
# (app/compress.mjs).
set -euo pipefail

staging="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
profile="${TRUNK_PROFILE:-debug}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
raw="$target_dir/wasm32-unknown-unknown/$profile/app.wasm"
[ -f "$raw" ] || { echo "split: $raw not found" >&2; exit 1; }

js="$(cd "$staging" && ls app-*.js | grep -v '^app-.*\.split\.' | head -n1)"
stem="${js%.js}"
[ -f "$staging/${stem}_bg.wasm" ] || { echo "split: ${stem}_bg.wasm not in $staging" >&2; exit 1; }

for tool in wasm-split-cli wasm-bindgen wasm-opt wasm-merge wasm-as node; do
  command -v "$tool" >/dev/null || { echo "split: $tool not found (./dev installs it)" >&2; exit 1; }
done
inputs="$( { echo "$stem $profile"
             sha256sum "$raw" "$root/app/split.sh" "$root/app/bundle.py" "$(command -v wasm-split-cli)" | cut -d' ' -f1
             wasm-bindgen --version; wasm-opt --version; } )"
key="$(printf '%s' "$inputs" | sha256sum | cut -c1-32)"
cache_root="$target_dir/air-split"
cache="$cache_root/$profile-$key"
mkdir -p "$cache_root"

work="$(mktemp -d)"
# A new entry is written beside the cache (so that moving it in is one
# rename: an interrupted build leaves no entry that looks whole).
new="$(mktemp -d "$cache_root/.new.XXXXXX")"
trap 'rm -rf "$work" "$new"' EXIT

# Splits, binds and optimizes into $1/files; writes the list of modules
# app/boot.js compiles early to $1/early.
split_app() {
  local out="$1/files"
  mkdir -p "$work/split" "$work/bound" "$out"
  wasm-split-cli "$raw" "$work/split" --target web --out-name "$stem" >/dev/null
  wasm-bindgen --target web --no-typescript --keep-lld-exports \
    --out-dir "$work/bound" --out-name "$stem" "$work/split/$stem.wasm"
  if [ "$profile" = release ]; then
    wasm-opt -Oz --strip-debug --strip-producers \
      --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      --enable-mutable-globals --enable-reference-types --enable-multivalue \
      "$work/bound/${stem}_bg.wasm" -o "$work/bound/${stem}_bg.wasm"
  fi
  cp "$work/bound/$stem.js" "$work/bound/${stem}_bg.wasm" "$out/"
  if [ -d "$work/bound/snippets" ]; then cp -r "$work/bound/snippets" "$out/"; fi

  # The split modules, grouped into a few (app/bundle.py: the conversation
  # view and the turn each one module, the other shared code one more),
  # optimized and named after their contents; the loader is written anew.
  local early='[]'
  if [ -f "$work/split/__wasm_split.js" ]; then
    local result loader
    result="$(python3 "$root/app/bundle.py" "$work/split" "$out" "$profile")"
    loader="$(printf '%s' "$result" | python3 -c 'import json, sys; print(json.load(sys.stdin)["loader"])')"
    early="$(printf '%s' "$result" | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["early"]))')"
    sed -i "s|from \"\\./__wasm_split\\.js\"|from \"./$loader\"|" "$out/$stem.js"
  fi
  printf '%s' "$early" > "$1/early"
}

if [ -f "$cache/early" ]; then
  echo "split: the linked wasm is unchanged; its split modules are taken from ${cache#"$root"/}" >&2
else
  split_app "$new"
  # Only the newest split of each profile is kept.
  rm -rf "$cache_root/$profile"-*
  mv "$new" "$cache"
fi
cp -r "$cache/files/." "$staging/"
early="$(cat "$cache/early")"

# index.html preloads both files with Subresource Integrity: the hashes
# must be those of the files now in place.
sri() { python3 -c 'import base64, hashlib, sys; print("sha384-" + base64.b64encode(hashlib.sha384(open(sys.argv[1], "rb").read()).digest()).decode())' "$1"; }
html="$staging/index.html"
if [ -f "$html" ]; then
  for f in "$stem.js" "${stem}_bg.wasm"; do
    sed -i -E "s|(href=\"\./$f\"[^>]*integrity=\")[^\"]*|\\1$(sri "$staging/$f")|" "$html"
  done
fi

# The conversation view's module, for app/boot.js to compile early when
# the store has conversations.
if [ -f "$staging/boot.js" ]; then
  grep -q 'const EARLY = \[\];' "$staging/boot.js" || { echo "split: boot.js has no EARLY list" >&2; exit 1; }
  sed -i "s|const EARLY = \[\];|const EARLY = $early;|" "$staging/boot.js"
fi
# The in-browser model's engine: llama.cpp in WebAssembly (npm
# @wllama/wllama, installed by ./dev with the build's other npm tools),
# beside the glue app/engine/inpage.js. Fetched only when that provider
# answers.
wllama="$root/tests/node_modules/@wllama/wllama"
[ -f "$wllama/esm/index.js" ] || { echo "split: $wllama not installed (./dev installs it)" >&2; exit 1; }
mkdir -p "$staging/engine"
cp "$wllama/esm/index.js" "$staging/engine/wllama.js"
cp "$wllama/esm/wasm/wllama.wasm" "$staging/engine/wllama.wasm"
cp "$wllama/LICENCE" "$staging/engine/wllama-LICENCE.txt"

# Python for run_python: Pyodide's core from npm (pyodide, installed by
# ./dev with the build's other npm tools; no packages), in pyodide/.
# Fetched only when Python first runs. Its lockfile lists only the
# packages whose files are there (none from npm): a deployer adds
# packages by placing Pyodide's full lockfile and wheels in pyodide/.
pyodide="$root/tests/node_modules/pyodide"
[ -f "$pyodide/pyodide.asm.wasm" ] || { echo "split: $pyodide not installed (./dev installs it)" >&2; exit 1; }
mkdir -p "$staging/pyodide"
for f in pyodide.mjs pyodide.asm.mjs pyodide.asm.wasm python_stdlib.zip; do cp "$pyodide/$f" "$staging/pyodide/$f"; done
python3 - "$pyodide/pyodide-lock.json" "$staging/pyodide" <<'PY'
import json, os, sys
lock = json.load(open(sys.argv[1]))
here = set(os.listdir(sys.argv[2]))
lock['packages'] = {k: v for k, v in lock.get('packages', {}).items() if v.get('file_name') in here}
with open(os.path.join(sys.argv[2], 'pyodide-lock.json'), 'w') as fh:
    json.dump(lock, fh, separators=(',', ':'))
PY

# JavaScript for run_javascript: QuickJS in WebAssembly (npm
# quickjs-emscripten-core and its release-sync variant, installed by ./dev
# with the build's other npm tools), its loader bundled into one module by
# esbuild (the worker is given it as bytes: it has no network, so no
# import of its own may remain and import.meta.url is never a real one),
# in quickjs/. Fetched only when JavaScript first runs.
qjs="$root/tests/node_modules/@jitl/quickjs-wasmfile-release-sync"
[ -f "$qjs/dist/emscripten-module.wasm" ] || { echo "split: $qjs not installed (./dev installs it)" >&2; exit 1; }
mkdir -p "$staging/quickjs"
(cd "$root/tests" && printf '%s\n' \
  "export { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';" \
  "export { default as RELEASE_SYNC } from '@jitl/quickjs-wasmfile-release-sync';" |
  node_modules/.bin/esbuild --bundle --format=esm --minify --platform=browser --log-level=warning \
    --define:import.meta.url='"https://quickjs.invalid/"' --outfile="$staging/quickjs/quickjs.mjs")
cp "$qjs/dist/emscripten-module.wasm" "$staging/quickjs/quickjs.wasm"
cp "$qjs/LICENSE" "$staging/quickjs/LICENSE.txt"

# The service worker of this build: its version is a hash of every file,
# CORE what a first visit loads (precached), LAZY the parts fetched on
# first use (and the pages only sign-in and MCP Apps open).
python3 - "$staging" <<'PY'
import hashlib, json, os, sys
staging = sys.argv[1]
files = []
for base, _, names in os.walk(staging):
    for name in names:
        path = os.path.relpath(os.path.join(base, name), staging).replace(os.sep, '/')
        if path not in ('sw.js', 'oauth-client-metadata.json'):
            files.append(path)
files.sort()
# Fetched on first use too: the sign-in callback page and the MCP Apps
# sandbox (a first visit needs neither).
lazy = [f for f in files if (f.endswith('.wasm') and (f.startswith('split_') or f.startswith('chunk_'))) or f in ('oauth-callback.html', 'oauth-callback.js', 'sandbox.html', 'runner.html') or f.startswith('engine/') or f.startswith('pyodide/') or f.startswith('quickjs/')]
core = [f for f in files if f not in lazy]
digest = hashlib.sha256()
for f in files:
    with open(os.path.join(staging, f), 'rb') as fh:
        digest.update(f.encode() + b'\0' + hashlib.sha256(fh.read()).digest())
sw = os.path.join(staging, 'sw.js')
with open(sw) as fh:
    text = fh.read()
text = (text.replace("'__AIR_VERSION__'", json.dumps(digest.hexdigest()[:16]))
            .replace('__AIR_CORE__', json.dumps(core))
            .replace('__AIR_LAZY__', json.dumps(lazy)))
with open(sw, 'w') as fh:
    fh.write(text)
PY

# Precompressed copies for hosts that send them (not in the worker's lists:
# the browser asks for a file, and the host picks the copy); release builds
# only (what is deployed and served by ./dev).
if [ "$profile" = release ]; then
  node "$root/app/compress.mjs" "$staging" "$target_dir/air-compress"
fi

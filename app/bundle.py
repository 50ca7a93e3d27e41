#!/usr/bin/env python3
"""Groups wasm-split's output into a few modules (run by app/split.sh).

wasm-split-cli writes one module per lazily loaded part and one "chunk"
per set of parts that share code: about 170 chunks, most of them a few
hundred bytes, and a part needs up to 115 of them. Each is fetched,
compiled and instantiated on its own, and that cost is per file: the
conversation view, drawn at start-up, took some 80 ms for its 74 files.

This merges them (binaryen's wasm-merge) into:
- one module per part named in PRIORITY, holding the part's own code and
  every chunk it needs that no earlier one holds (the conversation view,
  then the turn: each one file);
- one module of every other chunk (`chunk_shared`);
- each other part's own module, as it was.
A part then waits for at most its own module and those that hold its
chunks. Modules only ever fill the shared table and memory (no start
function, no exports), so grouping them changes nothing they do; each
chunk is in exactly one output, so none is instantiated twice.

Every output imports the main module's memory, table and globals from
`__wasm_split_host` (a stub merged in with them re-exports what the chunks
import from `__wasm_split`, so the merged module imports each once). The
loader (`__wasm_split.js`) is written anew, keeping wasm-split's own
helpers; a module that app/boot.js compiled early is taken from
`globalThis.__airEarly` instead of being fetched again.

Usage: bundle.py SPLIT_DIR OUT_DIR PROFILE. Writes the outputs into
OUT_DIR named after a hash of their contents, the loader as
OUT_DIR/split-<hash>.js, and prints a JSON object: {"loader": name,
"early": [the modules app/boot.js compiles ahead when the store has
conversations]}.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

# Parts whose code is grouped with the chunks they need, in this order:
# the conversation view and the messages' reader (both at start-up), the
# event log's work (small, and not to wait for the turn's module), the
# turn (sending; it waits for those before it), the servers' engine and
# the preferences' writer (both fetched with the turn: grouped, they
# bring only the chunks they need, not every other shared one), then the
# HTTP tools' work (a turn fetches it only when HTTP tools are saved:
# after the others, the code it shares with them is theirs).
PRIORITY = ["chat_view", "messages", "log_work", "turn", "servers", "prefs_write", "http_tools_work"]
# Compiled by app/boot.js while the main module loads, when the store had
# conversations at the last start.
EARLY = ["chat_view", "messages"]
FEATURES = [
    "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext",
    "--enable-mutable-globals", "--enable-reference-types", "--enable-multivalue",
]
HOST = "__wasm_split_host"


def fail(msg):
    sys.exit(f"bundle: {msg}")


def parse_loader(text):
    """wasm-split's loader: its helpers, each chunk's file and each part's
    file (None when the part has no code of its own) and chunks."""
    first = re.search(r"^/\* .* \*/\nconst __chunk_|^export const __wasm_split_load_", text, re.M)
    if not first:
        fail("the loader has no chunks or parts")
    helpers = text[: first.start()]
    chunks = dict(re.findall(r'const (__chunk_\d+) = makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\./([^"]+)"', text))
    parts = {}
    for m in re.finditer(r"export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\((.*?)\n, \[([^\]]*)\]\)\);", text, re.S):
        own = re.search(r'new URL\("\./([^"]+)"', m.group(2))
        deps = [d.strip() for d in m.group(3).split(",") if d.strip()]
        for d in deps:
            if d not in chunks:
                fail(f"part {m.group(1)} needs {d}, which the loader does not define")
        parts[m.group(1)] = (own.group(1) if own else None, deps)
    if not parts:
        fail("the loader exports no parts")
    if "function makeLoad(" not in helpers or "function wrapAsyncCb(" not in helpers:
        fail("the loader's helpers are not as expected")
    return helpers, chunks, parts


def leb(data, pos):
    """An unsigned LEB128 number at `pos`: (value, next position)."""
    value = shift = 0
    while True:
        if pos >= len(data):
            fail("a number runs past the end of the module")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


VALTYPES = {0x7F: "i32", 0x7E: "i64", 0x7D: "f32", 0x7C: "f64", 0x7B: "v128", 0x70: "funcref", 0x6F: "externref"}


def limits(data, pos):
    """Limits as the text format writes them ("min [max] [shared]")."""
    flags = data[pos]
    if flags > 3:
        fail(f"limits with flags {flags:#x} (64-bit memory?) are not expected")
    low, pos = leb(data, pos + 1)
    text = str(low)
    if flags & 1:
        high, pos = leb(data, pos)
        text += f" {high}"
    return text + (" shared" if flags & 2 else ""), pos


def import_desc(data, pos, name):
    """An import's kind and its type as the text format writes it."""
    kind = data[pos]
    if kind == 0x01:
        ref = VALTYPES.get(data[pos + 1])
        if ref not in ("funcref", "externref"):
            fail(f"{name}: a table of an unexpected type")
        lim, pos = limits(data, pos + 2)
        return "table", f"{lim} {ref}", pos
    if kind == 0x02:
        lim, pos = limits(data, pos + 1)
        return "memory", lim, pos
    if kind == 0x03:
        ty, mut = VALTYPES.get(data[pos + 1]), data[pos + 2]
        if ty is None or mut > 1:
            fail(f"{name}: a global of an unexpected type")
        return "global", f"(mut {ty})" if mut else ty, pos + 3
    fail(f"{name} imports a function or a tag")


def imports_of(path):
    """The (name, kind, type) of each import from __wasm_split, read from
    the module's binary (the text format's notation), checking that it has
    no start function and no exports."""
    with open(path, "rb") as fh:
        data = fh.read()
    base = os.path.basename(path)
    if data[:8] != b"\0asm\x01\0\0\0":
        fail(f"{base} is not a wasm module")
    out, pos = [], 8
    while pos < len(data):
        section = data[pos]
        size, pos = leb(data, pos + 1)
        end = pos + size
        if end > len(data):
            fail(f"{base}: a section runs past the end of the module")
        if section in (7, 8) and not (section == 7 and data[pos] == 0):
            fail(f"{base} has a start function or exports")
        if section == 2:
            count, p = leb(data, pos)
            for _ in range(count):
                names = []
                for _ in range(2):
                    n, p = leb(data, p)
                    names.append(data[p : p + n].decode())
                    p += n
                if names[0] != "__wasm_split":
                    fail(f"{base} imports {names[0]}.{names[1]}")
                kind, ty, p = import_desc(data, p, f"{base} ({names[1]})")
                out.append((names[1], kind, ty))
            if p != end:
                fail(f"{base}: its import section is not as long as it says")
        pos = end
    return out


def stub(imports, path):
    """A module importing each of `imports` from HOST and exporting it under
    its own name: merged in as `__wasm_split`, it is what the chunks' imports
    resolve to."""
    kinds = {}
    for name, kind, ty in imports:
        prev = kinds.get(name)
        if prev and prev[0] != kind:
            fail(f"{name} is imported as both {prev[0]} and {kind}")
        if prev and prev[1] != ty:
            # Memory and table limits: the largest minimum fits every chunk.
            lo = lambda t: int(t.split()[0]) if t.split()[0].isdigit() else 0
            if kind not in ("memory", "table") or prev[1].split()[1:] != ty.split()[1:]:
                fail(f"{name} is imported with types {prev[1]} and {ty}")
            ty = prev[1] if lo(prev[1]) >= lo(ty) else ty
        kinds[name] = (kind, ty)
    lines = ["(module"]
    for i, (name, (kind, ty)) in enumerate(sorted(kinds.items())):
        lines.append(f'  (import "{HOST}" "{name}" ({kind} $i{i} {ty}))')
        lines.append(f'  (export "{name}" ({kind} $i{i}))')
    lines.append(")")
    wat = path + ".wat"
    with open(wat, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    subprocess.run(["wasm-as", *FEATURES, wat, "-o", path], check=True)


def merge(stub_path, members, out, profile):
    args = ["wasm-merge", stub_path, "__wasm_split"]
    for i, m in enumerate(members):
        args += [m, f"m{i}"]
    # Its output on failure includes the whole module: only the end is said.
    run = subprocess.run([*args, *FEATURES, "-o", out], capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"wasm-merge failed for {os.path.basename(out)}: " + "\n".join((run.stdout + run.stderr).splitlines()[-20:]))
    if profile == "release":
        subprocess.run(["wasm-opt", "-Oz", "--strip-debug", "--strip-producers", *FEATURES, out, "-o", out], check=True)


def hashed(path, stem, out_dir):
    with open(path, "rb") as fh:
        data = fh.read()
    name = f"{stem}-{hashlib.sha256(data).hexdigest()[:16]}.wasm"
    with open(os.path.join(out_dir, name), "wb") as fh:
        fh.write(data)
    return name


LOADER = """
// Modules are compiled as they are fetched (from their bytes when the host
// does not say application/wasm); one that app/boot.js began to compile
// early (globalThis.__airEarly) is taken from there, or compiled here if
// that failed. Each imports the main module's memory, table and globals
// as `__wasm_split_host`.
async function compile(url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    if (response.headers.get("Content-Type")?.split(";")[0].trim() !== "application/wasm") {
        return WebAssembly.compile(await response.arrayBuffer());
    }
    return WebAssembly.compileStreaming(response);
}
function module(name) {
    return () => {
        const url = new URL("./" + name, import.meta.url);
        const early = globalThis.__airEarly?.get(name);
        globalThis.__airEarly?.delete(name);
        const compiled = early ? early.catch(() => compile(url)) : compile(url);
        compiled.catch(() => {});
        return async (imports) => WebAssembly.instantiate(await compiled, { __wasm_split_host: imports.__wasm_split });
    };
}
const none = () => async () => ({});
"""


def main():
    split_dir, out_dir, profile = sys.argv[1:4]
    with open(os.path.join(split_dir, "__wasm_split.js")) as fh:
        helpers, chunks, parts = parse_loader(fh.read())
    path = lambda f: os.path.join(split_dir, f)
    files = list(chunks.values()) + [own for own, _ in parts.values() if own]
    for f in files:
        if not os.path.isfile(path(f)):
            fail(f"{f} is named by the loader but was not written")

    # Which output holds each chunk.
    holder = {}
    groups = {}
    for part in PRIORITY:
        if part not in parts:
            continue
        own, deps = parts[part]
        mine = [c for c in deps if c not in holder]
        for c in mine:
            holder[c] = part
        groups[part] = ([own] if own else []) + [chunks[c] for c in mine]
    rest = [c for c in chunks if c not in holder]
    for c in rest:
        holder[c] = "shared"
    if rest:
        groups["shared"] = [chunks[c] for c in rest]
    for part, (own, _) in parts.items():
        if part not in groups and own:
            groups[part] = [own]

    with tempfile.TemporaryDirectory() as tmp:
        imports = [i for f in files for i in imports_of(path(f))]
        stub_path = os.path.join(tmp, "stub.wasm")
        stub(imports, stub_path)
        # Each output is merged and optimized on its own: as many at once
        # as there are cores, up to four (each is a process of its own).
        def build(group):
            out = os.path.join(tmp, f"{group}.wasm")
            merge(stub_path, [path(m) for m in groups[group]], out, profile)
            stem = "chunk_shared" if group == "shared" else f"split_{group}"
            return hashed(out, stem, out_dir)

        with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
            names = dict(zip(groups, pool.map(build, groups)))

    var = lambda group: f"__module_{group}"
    js = [helpers.rstrip() + "\n", LOADER]
    for group in groups:
        if group not in parts or group in PRIORITY:
            js.append(f'const {var(group)} = makeLoad(module("{names[group]}"), []);\n')
    for part, (_, deps) in parts.items():
        needs = sorted({holder[c] for c in deps} - {part}, key=list(groups).index)
        own_group = part in groups
        if part in PRIORITY and own_group:
            fetcher, needs = "none", [part] + needs
        else:
            fetcher = f'module("{names[part]}")' if own_group else "none"
        dep_list = ", ".join(var(g) for g in needs)
        js.append(f"export const __wasm_split_load_{part} = wrapAsyncCb(makeLoad({fetcher}, [{dep_list}]));\n")
    text = "".join(js)
    loader = f"split-{hashlib.sha256(text.encode()).hexdigest()[:16]}.js"
    with open(os.path.join(out_dir, loader), "w") as fh:
        fh.write(text)
    print(json.dumps({"loader": loader, "early": [names[p] for p in EARLY if p in names]}))


if __name__ == "__main__":
    main()

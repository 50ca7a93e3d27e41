// The "In this browser" provider: GGUF models run by llama.cpp compiled to
// WebAssembly (wllama, in a Web Worker of its own), kept in the Origin
// Private File System. Fetched only when that provider is used.
//
// The app reaches it as an OpenAI-compatible server: `respond(request)`
// answers a `Request` to the provider's base URL (`/models`, and
// `/chat/completions` streamed as server-sent events) with a `Response`,
// so the turn, Stop, usage and tool calls go through the same code as any
// provider's.
//
// A model is stored as pieces of at most PIECE bytes, each a file written
// whole (a piece cut off by a reload or a lost network is not kept), so a
// download resumes at the last whole piece; the pieces are read back as
// one Blob without copying. `meta.json` beside them says where it came
// from, its size and sha256 where known, and whether it is complete
// (checked: the size, the sha256 when known, and the GGUF magic).
import { Wllama } from './wllama.js';

const DIR = 'air-models';
const PIECE = 32 * 1024 * 1024;
const CONTEXT = 4096;

/** The models directory (created on first use). */
async function root() {
  const top = await navigator.storage.getDirectory();
  return top.getDirectoryHandle(DIR, { create: true });
}

/** A model's file name, safe as one directory name. */
function checkName(name) {
  if (typeof name !== 'string' || !/^[\w.+-]{1,200}$/.test(name) || name.startsWith('.')) {
    throw new Error(`not a model name: ${name}`);
  }
  return name;
}

async function readMeta(dir) {
  try {
    const file = await (await dir.getFileHandle('meta.json')).getFile();
    return JSON.parse(await file.text());
  } catch {
    return null;
  }
}

async function writeFile(dir, name, data) {
  const handle = await dir.getFileHandle(name, { create: true });
  const w = await handle.createWritable();
  await w.write(data);
  await w.close();
}

/** The whole pieces stored of a model, in order, and their total size. */
async function pieces(dir) {
  const files = [];
  for (let i = 0; ; i++) {
    let handle;
    try {
      handle = await dir.getFileHandle(`${String(i).padStart(5, '0')}.part`);
    } catch {
      break;
    }
    files.push(await handle.getFile());
  }
  return { files, size: files.reduce((n, f) => n + f.size, 0) };
}

/** The models stored: `{ name, url, size, stored, complete }` each. */
export async function list() {
  const out = [];
  const top = await root();
  for await (const [name, handle] of top.entries()) {
    if (handle.kind !== 'directory') continue;
    const meta = (await readMeta(handle)) ?? {};
    const { size } = await pieces(handle);
    out.push({ name, url: meta.url ?? '', size: meta.size ?? 0, stored: size, complete: meta.complete === true });
  }
  out.sort((a, b) => a.name.localeCompare(b.name));
  return out;
}

/** Deletes a stored model (complete or not). */
export async function remove(name) {
  checkName(name);
  if (engine && engine.name === name) await unload();
  await (await root()).removeEntry(name, { recursive: true });
}

const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');

/**
 * Downloads `{ name, url, size, sha256 }` (size and sha256 may be
 * missing), resuming after the pieces already stored; `progress(stored,
 * total)` is called as it goes (total 0: not known). Resolves when the
 * model is stored and checked; rejects with a message otherwise.
 */
export async function download(spec, progress, signal) {
  const name = checkName(spec.name);
  const top = await root();
  const dir = await top.getDirectoryHandle(name, { create: true });
  const meta = { url: String(spec.url), size: Number(spec.size) || 0, sha256: spec.sha256 || '', complete: false };
  const before = await readMeta(dir);
  if (before && before.url !== meta.url) {
    // Another file under the same name: start over.
    await top.removeEntry(name, { recursive: true });
    return download(spec, progress, signal);
  }
  await writeFile(dir, 'meta.json', JSON.stringify(meta));
  let { files, size: have } = await pieces(dir);
  let total = meta.size;
  if (!total || have < total) {
    const response = await fetch(meta.url, { headers: have ? { Range: `bytes=${have}-` } : {}, signal });
    if (response.status === 200 && have) {
      // The server sends the whole file again: what was stored is dropped.
      for (let i = 0; i < files.length; i++) await dir.removeEntry(`${String(i).padStart(5, '0')}.part`);
      files = [];
      have = 0;
    } else if (response.status !== 200 && response.status !== 206) {
      throw new Error(`the server answered ${response.status} ${response.statusText}`.trim());
    }
    const length = Number(response.headers.get('content-length')) || 0;
    if (!total && length) total = have + length;
    progress(have, total);
    const reader = response.body.getReader();
    let buffer = new Uint8Array(PIECE);
    let filled = 0;
    let index = files.length;
    let reported = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let from = 0;
      while (from < value.length) {
        const n = Math.min(PIECE - filled, value.length - from);
        buffer.set(value.subarray(from, from + n), filled);
        filled += n;
        from += n;
        if (filled === PIECE) {
          await writeFile(dir, `${String(index++).padStart(5, '0')}.part`, buffer);
          have += filled;
          filled = 0;
        }
      }
      // At most ten reports a second (each redraws the row).
      const now = performance.now();
      if (now - reported >= 100) {
        reported = now;
        progress(have + filled, total);
      }
    }
    if (filled) {
      await writeFile(dir, `${String(index++).padStart(5, '0')}.part`, buffer.subarray(0, filled));
      have += filled;
    }
    buffer = null;
  }
  await check(dir, meta, total);
  progress(total, total);
}

/** Checks a downloaded model and marks it complete; drops it if it is not what was asked for. */
async function check(dir, meta, total) {
  const { files, size } = await pieces(dir);
  const blob = new Blob(files);
  const fail = async (why) => {
    await (await root()).removeEntry(dir.name, { recursive: true });
    throw new Error(why);
  };
  if (meta.size && size !== meta.size) return fail(`the file is ${size} bytes, not ${meta.size}`);
  if (total && size !== total) return fail(`the download ended at ${size} of ${total} bytes`);
  const magic = new TextDecoder().decode(await blob.slice(0, 4).arrayBuffer());
  if (magic !== 'GGUF') return fail('the file is not a GGUF model');
  if (meta.sha256) {
    const digest = hex(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));
    if (digest !== meta.sha256.toLowerCase()) return fail(`its sha256 is ${digest}, not ${meta.sha256}`);
  }
  await writeFile(dir, 'meta.json', JSON.stringify({ ...meta, size, complete: true }));
}

/** Stores a model from a local file (a `File` the user picked). */
export async function storeFile(file) {
  const name = checkName(file.name.replace(/[^\w.+-]/g, '_'));
  const top = await root();
  try { await top.removeEntry(name, { recursive: true }); } catch { /* not there */ }
  const dir = await top.getDirectoryHandle(name, { create: true });
  const meta = { url: '', size: file.size, sha256: '', complete: false };
  await writeFile(dir, 'meta.json', JSON.stringify(meta));
  for (let i = 0, at = 0; at < file.size; i++, at += PIECE) {
    await writeFile(dir, `${String(i).padStart(5, '0')}.part`, file.slice(at, at + PIECE));
  }
  await check(dir, meta, file.size);
  return name;
}

// The loaded model: one at a time, loaded on the first request for it.
let engine = null;
let loading = null;
// Requests run one after another (one context).
let queue = Promise.resolve();

async function unload() {
  const e = engine;
  engine = null;
  if (e) await e.wllama.exit();
}

async function load(name) {
  if (engine && engine.name === name) return engine.wllama;
  if (loading && loading.name === name) return loading.promise;
  const promise = (async () => {
    await unload();
    const dir = await (await root()).getDirectoryHandle(checkName(name)).catch(() => null);
    const meta = dir && (await readMeta(dir));
    if (!meta || !meta.complete) throw Object.assign(new Error(`The model ${name} is not stored in this browser: download it in Settings → Provider.`), { status: 404 });
    const { files } = await pieces(dir);
    const wllama = new Wllama({ default: new URL('wllama.wasm', import.meta.url).href }, { suppressNativeLog: true, logger: quiet });
    wllama.setCompat(null);
    // Flash attention, and the KV cache in q8_0 (half the memory of f16):
    // measured here, 9.0 tokens/s without either, 12.1 with flash
    // attention, 13.4 with both (docs/BENCHMARKS.md).
    await wllama.loadModel([new Blob(files)], { n_ctx: CONTEXT, flash_attn: true, cache_type_k: 'q8_0', cache_type_v: 'q8_0' });
    engine = { name, wllama };
    return wllama;
  })();
  loading = { name, promise };
  try {
    return await promise;
  } finally {
    loading = null;
  }
}

const quiet = { debug() {}, log() {}, warn() {}, error: (...a) => console.error(...a) };

const json = (status, value) => new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
const failure = (status, message) => json(status, { error: { message, type: 'in_browser_error', code: status } });

/** Answers a request to the provider's base URL. */
export async function respond(request) {
  const path = new URL(request.url).pathname;
  try {
    if (request.method === 'GET' && path.endsWith('/models')) {
      const models = (await list()).filter((m) => m.complete);
      return json(200, { object: 'list', data: models.map((m) => ({ id: m.name, object: 'model', owned_by: 'this browser' })) });
    }
    if (request.method === 'POST' && path.endsWith('/chat/completions')) {
      return await chat(request);
    }
    return failure(404, `${request.method} ${path} is not something a model in this browser answers`);
  } catch (e) {
    if (e?.name === 'AbortError') throw e;
    return failure(e?.status ?? 500, e?.message ?? String(e));
  }
}

async function chat(request) {
  const body = await request.json();
  const stop = new AbortController();
  request.signal?.addEventListener('abort', () => stop.abort());
  // Waits for the request before it, then loads the model it names.
  const turn = queue.then(() => load(String(body.model ?? '')));
  let release;
  queue = new Promise((ok) => { release = ok; });
  let wllama;
  try {
    wllama = await turn;
  } catch (e) {
    release();
    throw e;
  }
  const params = { ...body, stream: true, abortSignal: stop.signal };
  delete params.model;
  delete params.stream_options;
  const encoder = new TextEncoder();
  const stream = new ReadableStream({
    async start(controller) {
      const send = (value) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(value)}\n\n`));
      try {
        const chunks = await wllama.createChatCompletion(params);
        for await (const chunk of chunks) {
          send({ ...chunk, model: body.model });
        }
        controller.enqueue(encoder.encode('data: [DONE]\n\n'));
        controller.close();
      } catch (e) {
        if (stop.signal.aborted) {
          controller.error(new DOMException('aborted', 'AbortError'));
        } else {
          send({ error: { message: e?.message ?? String(e), type: 'in_browser_error' } });
          controller.close();
        }
      } finally {
        release();
      }
    },
    cancel() {
      stop.abort();
    },
  });
  return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

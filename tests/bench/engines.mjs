// Two engines for the in-browser model, measured the same way in headless
// Chromium, one thread each: llama.cpp compiled to wasm (@wllama/wllama,
// the app's engine) and candle (Rust, tests/bench/candle, wasm32 with
// simd128). Same model (SmolLM2-135M-Instruct Q4_1), same prompt token
// ids, 200 tokens with EOS ignored, greedy (argmax; wllama: temperature 0,
// the prompt given as its text, which llama.cpp tokenizes to the same 42
// ids: its timings report prompt_n 42; no prompt cache between answers).
// Each run is a fresh browser context: a cold load from the model's bytes
// already in the page, then two answers; the figures are the second
// (warm) answer's. Prints a Markdown table of the medians.
//
// Both engines run off the page's main thread: wllama in its own worker,
// candle in tests/bench/candle/worker.mjs. Times are taken in the page:
// first token = from the request to the first token's arrival; decode
// tokens/s = (tokens - 1) / (last arrival - first arrival). Memory: the
// engine's WebAssembly.Memory buffer byteLength after the answers (wasm
// memory never shrinks, so this is its peak); wllama's is read in its
// worker, from the memory its engine module imports (see MEMORY_HOOK).
//
// Nothing is built here. Build the candle engine first (wasm-opt from
// tests/node_modules/.bin on PATH):
//   PATH=$PWD/tests/node_modules/.bin:$PATH tests/bench/candle/build.sh
// (writes tests/bench/candle/pkg), then: cd tests && node bench/engines.mjs
// Environment: AIR_MODEL (the GGUF file; default the cached SmolLM2-135M
// Q4_1), RUNS (default 3), ONLY (wllama or candle: that one alone).
// wllama's files are taken from dist/engine when the app is built, else
// from tests/node_modules/@wllama/wllama (the files the build copies
// there).
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, gzip, constants } from 'node:zlib';
import { ROOT, launchBrowser } from '../e2e/support.mjs';
import { startStaticServer } from '../support/static-server.mjs';

const MODEL = process.env.AIR_MODEL ?? join(homedir(), '.cache/air-agent/models/SmolLM2-135M-Instruct.Q4_1.gguf');
const RUNS = Number(process.env.RUNS ?? 3);
const ONLY = process.env.ONLY ?? '';
const N = 200;

// The chat "Tell me about the moon, its phases and its tides." in the
// model's template (with its default system prompt), as llama.cpp's server
// gives it: POST /apply-template with that one user message, then POST
// /tokenize { content, add_special: true, parse_special: true }.
const PROMPT = '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n'
  + '<|im_start|>user\nTell me about the moon, its phases and its tides.<|im_end|>\n<|im_start|>assistant\n';
const IDS = [1, 9690, 198, 2683, 359, 253, 5356, 5646, 11173, 3365, 3511, 308, 34519, 28, 7018, 411, 407, 19712, 8182, 2, 198,
  1, 4093, 198, 31530, 549, 563, 260, 6783, 28, 624, 12439, 284, 624, 27485, 30, 2, 198, 1, 520, 9531, 198];
// What native llama.cpp (xllamacpp, one thread) answers to IDS, greedy,
// 200 tokens with EOS ignored (POST /completion, temperature 0,
// return_tokens): the reference for how far each engine agrees with it.
const REFERENCE = '504,6783,314,253,18146,1248,338,21837,653,3925,28,284,624,12439,359,253,8604,282,260,2591,506,10792,30,378,6783,506,12439,359,5250,411,260,2591,506,10792,284,624,8591,1130,260,5430,30,378,6783,506,12439,359,3431,2269,347,253,4834,282,1296,12439,42,260,725,6783,28,260,3464,9401,6783,28,284,260,2073,6783,30,378,725,6783,314,260,808,9401,28,260,3464,9401,6783,314,260,1596,9401,28,284,260,2073,6783,314,260,15019,30,198,198,504,6783,506,27485,359,2952,411,260,16027,6536,282,260,2591,335,260,8872,30,1550,260,2591,314,13998,351,260,8872,506,8591,28,260,16027,6536,282,260,2591,284,8872,5593,253,42159,281,260,6427,282,9423,30,669,5593,253,904,17662,28,284,260,2591,506,10792,2981,260,8872,288,1485,2025,429,260,2591,506,2548,28,4422,281,253,1642,17662,30,378,2591,506,10792,2981,260,8872,288,1485,2025,429,260,2591,506,2548,28,4422,281,253,904,17662,30,198,198,504,2591,506,10792,2981,260'.split(',').map(Number);
// The start of the same answer's text, to check wllama's (which streams
// text, not ids).
const REFERENCE_TEXT = "The moon is a celestial body that orbits our planet, and its phases are a reflection of the Earth's rotation. "
  + "The moon's phases are determined by the Earth's rotation and its orbit around the Sun. The moon's phases are typically seen as a cycle of three phases";

const CANDLE = join(ROOT, 'tests/bench/candle');
const built = existsSync(join(ROOT, 'dist/engine/wllama.wasm'));
const WLLAMA = built
  ? { js: join(ROOT, 'dist/engine/wllama.js'), wasm: join(ROOT, 'dist/engine/wllama.wasm') }
  : { js: join(ROOT, 'tests/node_modules/@wllama/wllama/esm/index.js'), wasm: join(ROOT, 'tests/node_modules/@wllama/wllama/esm/wasm/wllama.wasm') };
if (!existsSync(join(CANDLE, 'pkg/engine_bg.wasm'))) throw new Error('build the candle engine first: tests/bench/candle/build.sh');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** How many items (tokens, or characters of a text) agree with the reference from the start. */
const agreement = (xs, reference = REFERENCE) => {
  let i = 0;
  while (i < xs.length && i < reference.length && xs[i] === reference[i]) i++;
  return i;
};

/** In the page: the model's bytes, then candle loaded in its worker and two answers. */
async function candlePage({ worker, wasm, model, ids, n }) {
  const bytes = await (await fetch(model)).arrayBuffer();
  const w = new Worker(worker, { type: 'module' });
  let onToken = () => {};
  const call = (message, transfer = []) => new Promise((ok, fail) => {
    w.onmessage = ({ data }) => {
      if (data.token !== undefined) onToken(data.token);
      else if (data.error) fail(new Error(data.error));
      else ok(data);
    };
    w.onerror = (e) => fail(new Error(e.message));
    w.postMessage(message, transfer);
  });
  const t0 = performance.now();
  const { loaded } = await call({ load: { wasm, bytes } }, [bytes]);
  const cold = performance.now() - t0;
  const answers = [];
  for (let i = 0; i < 2; i++) {
    const arrivals = [];
    onToken = () => arrivals.push(performance.now());
    const start = performance.now();
    const { answered } = await call({ answer: { ids, n } });
    const first = arrivals[0] - start;
    const perSecond = ((arrivals.length - 1) * 1000) / (arrivals.at(-1) - arrivals[0]);
    answers.push({ first, perSecond, inWorker: answered, tokens: answered.tokens, memory: answered.memory });
  }
  w.terminate();
  return { cold, loaded, answers };
}

/** In the page: module workers run `hook` before their own code. */
function hookWorkers(hook) {
  const Native = globalThis.Worker;
  const first = URL.createObjectURL(new Blob([hook], { type: 'text/javascript' }));
  globalThis.Worker = class extends Native {
    constructor(url, options) {
      if (options?.type === 'module') {
        const wrapper = `import ${JSON.stringify(first)};\nimport ${JSON.stringify(String(url))};\n`;
        url = URL.createObjectURL(new Blob([wrapper], { type: 'text/javascript' }));
      }
      super(url, options);
    }
  };
}

/** In the page: wllama loaded from the model's bytes (kept as `globalThis.bench`). */
async function wllamaLoad({ js, wasm, model, hook }) {
  (0, eval)(hook);
  const { Wllama } = await import(js);
  const blob = await (await fetch(model)).blob();
  const quiet = { debug() {}, log() {}, warn() {}, error: (...a) => console.error(...a) };
  const t0 = performance.now();
  const wllama = new Wllama({ default: wasm }, { suppressNativeLog: true, logger: quiet });
  wllama.setCompat(null);
  await wllama.loadModel([blob], { n_ctx: 4096, n_threads: 1 });
  globalThis.bench = wllama;
  return { cold: performance.now() - t0, threads: wllama.getNumThreads(), multithread: wllama.isMultithread() };
}

/** In the page: one greedy answer from wllama, timed as its chunks arrive. */
async function wllamaAnswer({ prompt, n }) {
  const start = performance.now();
  const arrivals = [];
  let text = '';
  let timings = null;
  const stream = await globalThis.bench.createCompletion({
    prompt, max_tokens: n, temperature: 0, ignore_eos: true, cache_prompt: false, stream: true,
  });
  for await (const chunk of stream) {
    const piece = chunk.choices?.[0]?.text ?? '';
    if (piece) {
      arrivals.push(performance.now());
      text += piece;
    }
    if (chunk.timings) timings = chunk.timings;
  }
  const first = arrivals[0] - start;
  // Tokens counted by llama.cpp (a chunk may hold more than one).
  const count = timings?.predicted_n ?? arrivals.length;
  const perSecond = ((count - 1) * 1000) / (arrivals.at(-1) - arrivals[0]);
  return { first, perSecond, text, timings };
}

// wllama's wasm memory lives in its module worker, out of reach of an
// evaluation there (module scope): the page's module workers are started
// with this hook imported first (see wllamaLoad), which keeps every
// WebAssembly.Memory an instantiated module imports or exports (wllama's
// Emscripten glue creates the memory and imports it).
const MEMORY_HOOK = `(() => {
  const kept = (globalThis.__benchMemories ||= new Set());
  const scan = (o) => { for (const v of Object.values(o || {})) if (v instanceof WebAssembly.Memory) kept.add(v); };
  for (const k of ['instantiate', 'instantiateStreaming']) {
    const f = WebAssembly[k];
    WebAssembly[k] = function (source, imports) {
      for (const ns of Object.values(imports || {})) scan(ns);
      return f.apply(this, arguments).then((r) => { scan((r.instance || r).exports); return r; });
    };
  }
})()`;
const MEMORY_READ = '[...(globalThis.__benchMemories || [])].reduce((n, m) => n + m.buffer.byteLength, 0)';

/** The bytes of wllama's wasm memory, read in the worker that holds it. */
async function wllamaMemory(page) {
  let bytes = 0;
  for (const worker of page.workers()) bytes += await worker.evaluate(MEMORY_READ).catch(() => 0);
  return bytes;
}

async function freshPage(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${url}/bench.html`);
  return { context, page };
}

async function runCandle(browser, url) {
  const { context, page } = await freshPage(browser, url);
  const at = (file) => `${url}/${relative(ROOT, file)}`;
  const out = await page.evaluate(candlePage, {
    worker: at(join(CANDLE, 'worker.mjs')), wasm: at(join(CANDLE, 'pkg/engine_bg.wasm')), model: `${url}/models/${MODEL.split('/').pop()}`, ids: IDS, n: N,
  });
  await context.close();
  const [cold, warm] = out.answers;
  return { cold: out.cold, first: warm.first, coldFirst: cold.first, perSecond: warm.perSecond, memory: warm.memory, agree: `${agreement(warm.tokens)} tokens`, detail: out.loaded, inWorker: warm.inWorker };
}

async function runWllama(browser, url) {
  const { context, page } = await freshPage(browser, url);
  const at = (file) => `${url}/${relative(ROOT, file)}`;
  const hook = `(${hookWorkers})(${JSON.stringify(MEMORY_HOOK)})`;
  const loaded = await page.evaluate(wllamaLoad, { js: at(WLLAMA.js), wasm: at(WLLAMA.wasm), model: `${url}/models/${MODEL.split('/').pop()}`, hook });
  const cold = await page.evaluate(wllamaAnswer, { prompt: PROMPT, n: N });
  const warm = await page.evaluate(wllamaAnswer, { prompt: PROMPT, n: N });
  const memory = await wllamaMemory(page);
  await page.evaluate(() => globalThis.bench.exit());
  await context.close();
  return {
    cold: loaded.cold, first: warm.first, coldFirst: cold.first, perSecond: warm.perSecond, memory,
    agree: `${agreement(warm.text, REFERENCE_TEXT)} characters`, detail: loaded, timings: warm.timings, text: warm.text.slice(0, 160),
  };
}

/** Raw, brotli (quality 11) and gzip (level 9) sizes of the files together. */
async function sizes(files) {
  const out = { raw: 0, br: 0, gz: 0 };
  for (const f of files) {
    const data = await readFile(f);
    out.raw += data.length;
    out.br += (await promisify(brotliCompress)(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } })).length;
    out.gz += (await promisify(gzip)(data, { level: 9 })).length;
  }
  return out;
}

const mb = (n) => (n / 1e6).toFixed(2);
const ms = (runs, key) => `${Math.round(median(runs.map((r) => r[key])))} ms (${runs.map((r) => Math.round(r[key])).join(', ')})`;

function table(results, bytes) {
  const lines = [
    `SmolLM2-135M-Instruct Q4_1 (${mb((results.size))} MB), headless Chromium, one thread, ${IDS.length}-token prompt, ${N} tokens greedy, EOS ignored; median of ${RUNS} (each run).\n`,
    '| engine | decode tokens/s | first token (warm) | first token (first answer after load) | cold load (bytes → ready) | wasm memory after answering | engine download raw / brotli / gzip | same start as native llama.cpp greedy (each run) |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const [name, runs, b] of [['wllama 3.13.0 (llama.cpp)', results.wllama, bytes.wllama], ['candle 0.11.1', results.candle, bytes.candle]]) {
    if (!runs.length) continue;
    const rate = `${median(runs.map((r) => r.perSecond)).toFixed(1)} (${runs.map((r) => r.perSecond.toFixed(1)).join(', ')})`;
    lines.push(`| ${name} | ${rate} | ${ms(runs, 'first')} | ${ms(runs, 'coldFirst')} | ${ms(runs, 'cold')} | ${mb(median(runs.map((r) => r.memory)))} MB | ${mb(b.raw)} / ${mb(b.br)} / ${mb(b.gz)} MB | ${runs.map((r) => r.agree).join('; ')} |`);
  }
  return lines.join('\n');
}

const app = await startStaticServer(ROOT, 0, { models: { dir: MODEL.slice(0, MODEL.lastIndexOf('/')) }, extra: { '/bench.html': '<!doctype html><meta charset="utf-8"><title>engines</title>' }, compressed: false });
const browser = await launchBrowser();
const results = { candle: [], wllama: [], size: (await stat(MODEL)).size };
try {
  for (let i = 0; i < RUNS; i++) {
    for (const [name, run] of [['wllama', runWllama], ['candle', runCandle]]) {
      if (ONLY && ONLY !== name) continue;
      results[name].push(await run(browser, app.url));
      console.error(`${name} run ${i + 1}:`, JSON.stringify(results[name].at(-1)));
    }
  }
} finally {
  await browser.close();
  app.server.close();
}
const bytes = {
  wllama: await sizes([WLLAMA.js, WLLAMA.wasm]),
  candle: await sizes([join(CANDLE, 'pkg/engine.js'), join(CANDLE, 'pkg/engine_bg.wasm')]),
};
console.log(table(results, bytes));
console.log(`\nwllama files: ${relative(ROOT, WLLAMA.js)}, ${relative(ROOT, WLLAMA.wasm)}; candle files: tests/bench/candle/pkg/engine.js, engine_bg.wasm (+ worker.mjs, ${(await stat(join(CANDLE, 'worker.mjs'))).size} bytes).`);

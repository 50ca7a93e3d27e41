// The candle engine in a dedicated module worker, for tests/bench/engines.mjs.
// Messages in: { load: { wasm, bytes } } then { answer: { ids, n } }, any
// number of times. Messages out: { loaded: { init, load, memory } } and
// { answered: { first, decode, tokens, memory } }, or { error }; while
// answering, { token } as each token is chosen (so the page can time the
// tokens as they arrive, as it does a streamed answer).
// Times in milliseconds (performance.now() of this worker); memory is the
// wasm module's WebAssembly.Memory buffer, in bytes.
import init, { Engine } from './pkg/engine.js';

let engine = null;
let memory = null;

async function load({ wasm, bytes }) {
  const t0 = performance.now();
  const exports = await init({ module_or_path: wasm });
  memory = exports.memory;
  const t1 = performance.now();
  engine = Engine.load(new Uint8Array(bytes));
  const t2 = performance.now();
  return { loaded: { init: t1 - t0, load: t2 - t1, memory: memory.buffer.byteLength } };
}

/** The prompt, then greedy steps up to `n` tokens in all (EOS is not a stop). */
function answer({ ids, n }) {
  const t0 = performance.now();
  const tokens = [engine.prompt(Uint32Array.from(ids))];
  const t1 = performance.now();
  self.postMessage({ token: tokens[0] });
  while (tokens.length < n) {
    tokens.push(engine.next());
    self.postMessage({ token: tokens[tokens.length - 1] });
  }
  const t2 = performance.now();
  return { answered: { first: t1 - t0, decode: t2 - t1, tokens, memory: memory.buffer.byteLength } };
}

self.onmessage = async ({ data }) => {
  try {
    self.postMessage(data.load ? await load(data.load) : answer(data.answer));
  } catch (e) {
    self.postMessage({ error: String(e?.message ?? e) });
  }
};

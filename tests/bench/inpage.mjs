// The in-browser model against llama.cpp's own server, side by side in one
// run on this machine, one thread each: SmolLM2-135M-Instruct Q4_1, the
// same chat, 200 tokens (`ignore_eos`), each three times. Prints a Markdown
// table (first token from the request, tokens per second as llama.cpp
// times them, and the engine's download). `cd tests && node bench/inpage.mjs`
// with AIR_PYTHON and AIR_MODEL set as for the e2e tests.
import { dirname, join, basename } from 'node:path';
import { stat } from 'node:fs/promises';
import { ROOT, freePort, launchBrowser, openApp, spawnServer, wrapEngine } from '../e2e/support.mjs';
import { startStaticServer } from '../support/static-server.mjs';

const MODEL = process.env.AIR_MODEL;
const PYTHON = process.env.AIR_PYTHON;
if (!MODEL || !PYTHON) throw new Error('AIR_PYTHON and AIR_MODEL must be set');
const RUNS = 3;
const body = (model) => ({
  model,
  messages: [{ role: 'user', content: 'Tell me about the moon, its phases and its tides.' }],
  max_tokens: 200,
  ignore_eos: true,
  stream: true,
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Native: llama.cpp's server, one thread.
const port = await freePort();
const native = spawnServer(PYTHON, [join(ROOT, 'tests/support/llama_server.py'), MODEL, String(port), '--threads', '1']);
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 240 && !(await fetch(`${base}/health`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 250));
const nativeRuns = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  const r = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body('SmolLM2-135M-Instruct')) });
  const text = await r.text();
  // The first token's time: the stream is read whole here, so it is taken from llama.cpp's own timings.
  const timings = JSON.parse(text.split('\n').filter((l) => l.includes('"timings"')).pop().slice(6)).timings;
  nativeRuns.push({ first: timings.prompt_ms + timings.predicted_per_token_ms, perSecond: timings.predicted_per_second, wall: performance.now() - t0 });
}
await native.stop();

// In the page: the app's engine, the model downloaded into the browser first.
const app = await startStaticServer(join(ROOT, 'dist'), 0, { models: { dir: dirname(MODEL) } });
const browser = await launchBrowser();
const page = await browser.newPage();
await page.goto(app.url);
const size = (await stat(MODEL)).size;
const inpage = await page.evaluate(async ({ name, size, request, runs }) => {
  const engine = await import(new URL('engine/inpage.js', document.baseURI).href);
  await engine.download({ name, url: `models/${name}`, size }, () => {});
  const out = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const res = await engine.respond(new Request('http://in-browser.invalid/v1/chat/completions', { method: 'POST', body: JSON.stringify(request) }));
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let first = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (!first && /"content":"[^"]/.test(text)) first = performance.now() - t0;
    }
    const timings = JSON.parse(text.split('\n').filter((l) => l.includes('"timings"')).pop().slice(6)).timings;
    out.push({ first, perSecond: timings.predicted_per_second, wall: performance.now() - t0 });
  }
  return out;
}, { name: basename(MODEL), size, request: body(basename(MODEL)), runs: RUNS });

// In the app, as a person uses it (the provider chosen, the model stored):
// a message sent the moment the page opens (the model loads, and the
// probe of how it calls tools and the system prompt are read first), and
// one sent once the app has read the next request ahead.
// (the page that stored the model: the same origin's storage)
const appPage = page;
await wrapEngine(appPage, (engine) => {
  globalThis.__readAhead ??= 0;
  const respond = async (request) => {
    const ahead = request.method === 'POST' && (await request.clone().json()).max_tokens === 0;
    if (ahead) globalThis.__reading = (globalThis.__reading ?? 0) + 1;
    const response = await engine.respond(request);
    if (!ahead) return response;
    const [mine, theirs] = response.body.tee();
    new Response(mine).text().then(() => { globalThis.__readAhead += 1; globalThis.__reading -= 1; });
    return new Response(theirs, response);
  };
  return { ...engine, respond };
});
await openApp(appPage, app.url);
await appPage.getByTestId('open-settings').click();
await appPage.getByTestId('settings-preset').selectOption('browser');
await appPage.locator('[data-testid="browser-model-use"]').first().waitFor({ timeout: 60_000 });
await appPage.getByTestId('settings-save').click();
await appPage.getByTestId('settings').waitFor({ state: 'detached' });
const firstToken = async (text) => {
  const before = await appPage.getByTestId('message-assistant').count();
  // Typed, then sent a second later, as a person would.
  await appPage.getByTestId('composer-input').fill(text);
  await appPage.waitForTimeout(1000);
  const t0 = Date.now();
  await appPage.getByTestId('composer-input').press('Enter');
  await appPage.waitForFunction((n) => {
    const streaming = document.querySelector('[data-testid="message-streaming"] [data-testid="message-text"]');
    const done = document.querySelectorAll('[data-testid="message-assistant"] [data-testid="message-text"]')[n];
    return /\w/.test(streaming?.textContent ?? '') || /\w/.test(done?.textContent ?? '');
  }, before, { timeout: 300_000, polling: 'raf' });
  const first = Date.now() - t0;
  await appPage.waitForFunction((n) => !document.querySelector('[data-testid="message-streaming"]') && document.querySelectorAll('[data-testid="message-assistant"]').length > n, before, { timeout: 300_000 });
  return first;
};
await appPage.reload();
await appPage.getByTestId('composer-input').waitFor();
const atOnce = await firstToken('Say hello.');
await appPage.getByTestId('new-session').click();
await appPage.reload();
// Read ahead: the request of a new chat, then of the chat that opened.
await appPage.waitForFunction(() => globalThis.__readAhead > 0 && !globalThis.__reading, null, { timeout: 300_000 });
await appPage.waitForTimeout(2000);
await appPage.waitForFunction(() => !globalThis.__reading, null, { timeout: 300_000 });
const ahead = await firstToken('Say hello.');
const followUp = await firstToken('And goodbye?');
await browser.close();
app.server.close();

const engineBytes = async (ext) => {
  let n = 0;
  for (const f of ['inpage.js', 'wllama.js', 'wllama.wasm']) n += (await stat(join(ROOT, 'dist/engine', f + ext))).size;
  return n;
};
const row = (name, runs) => `| ${name} | ${Math.round(median(runs.map((r) => r.first)))} ms (${runs.map((r) => Math.round(r.first)).join(', ')}) | ${median(runs.map((r) => r.perSecond)).toFixed(1)} |`;
console.log(`SmolLM2-135M-Instruct Q4_1, one thread, 200 tokens, median of ${RUNS} (each run):\n`);
console.log('| engine | first token | tokens/s |\n|---|---:|---:|');
console.log(row('llama.cpp server, native (xllamacpp)', nativeRuns));
console.log(row('in this browser (wllama, Chromium, not cross-origin isolated; the first run loads the model)', inpage));
console.log(`\nratio of tokens/s: ${(median(inpage.map((r) => r.perSecond)) / median(nativeRuns.map((r) => r.perSecond))).toFixed(2)}×`);
console.log(`engine download: ${(await engineBytes('')) / 1e6} MB raw, ${((await engineBytes('.br')) / 1e6).toFixed(2)} MB brotli, ${((await engineBytes('.gz')) / 1e6).toFixed(2)} MB gzip`);
console.log(`\nin the app, first token of a message sent the moment the page opens: ${(atOnce / 1000).toFixed(1)} s; sent once the app has read the next request ahead: ${ahead} ms; a follow-up in that chat: ${followUp} ms`);

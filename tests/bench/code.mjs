// Code in the page, for docs/BENCHMARKS.md: how long a run_javascript and
// a run_python call take in the app, from the call's card running to its
// result, against a scripted model. Python's first run in a fresh profile
// downloads it (cold); the next runs find it in the service worker's cache
// (warm). A bare worker doing the same work is the JavaScript baseline.
// The bytes Python puts on the wire come from the static server.
//
// Usage (from tests/, after ./dev build): node bench/code.mjs [--runs N]
import { join } from 'node:path';
import { ROOT, configure, launchBrowser, openApp, send } from '../e2e/support.mjs';
import { startStaticServer } from '../support/static-server.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';
import { watchLongTasks, longTasks } from './long-tasks.mjs';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
let wire = 0;
const app = await startStaticServer(join(ROOT, 'dist'), 0, { onSent: ({ path, bytes }) => { if (path.includes("pyodide/")) wire += bytes; } });
const model = await startScriptedModel();
const browser = await launchBrowser();

/** Calls `tool` with `code` and gives the ms from the card running to its result. */
async function timed(page, tool, code, n) {
  const id = `${tool}-${n}`;
  model.enqueue(reply.calls([{ id, name: tool, arguments: JSON.stringify({ code }) }]), reply.text(`Done ${id}.`));
  await page.evaluate(() => {
    window.__marks = {};
    const before = document.querySelectorAll('[data-testid=tool-card]').length;
    const seen = () => {
      // The new call's card, not the one before it.
      const card = document.querySelectorAll('[data-testid=tool-card]')[before];
      const status = card?.dataset.status;
      if (status && !window.__marks[status]) window.__marks[status] = performance.now();
    };
    window.__watch?.disconnect();
    window.__watch = new MutationObserver(seen);
    window.__watch.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  });
  await send(page, `Run ${id}`);
  await page.getByText(`Done ${id}.`).waitFor({ timeout: 120_000 });
  const m = await page.evaluate(() => window.__marks);
  return m.done - m.running;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (all) => { const xs = all.filter(Number.isFinite); return `${Math.round(Math.min(...xs))} / ${Math.round(median(xs))}${xs.length < all.length ? ` (${all.length - xs.length} not timed)` : ""}`; };

const context = await browser.newContext();
const page = await context.newPage();
await page.addInitScript(watchLongTasks);
await openApp(page, app.url);
await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });

const bare = await page.evaluate(async (runs) => {
  const out = [];
  // (The app's policy allows no eval: the worker computes it itself.)
  const src = URL.createObjectURL(new Blob(['onmessage = () => postMessage(6 * 7)'], { type: 'text/javascript' }));
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const w = new Worker(src);
    await new Promise((ok, fail) => { w.onmessage = ok; w.onerror = fail; w.postMessage('go'); });
    w.terminate();
    out.push(performance.now() - t);
  }
  return out;
}, runs);
const js = [];
for (let i = 0; i < runs; i++) js.push(await timed(page, 'run_javascript', '6 * 7', i));
await longTasks(page);
const cold = await timed(page, 'run_python', '6 * 7', 0);
const coldLong = await longTasks(page);
const coldWire = wire;
const warm = [];
for (let i = 1; i <= runs; i++) warm.push(await timed(page, 'run_python', '6 * 7', i));
const warmLong = await longTasks(page);

console.log(`| what | min / median ms (${runs} runs) |`);
console.log('|---|---|');
console.log(`| bare blob worker, \`6 * 7\` | ${fmt(bare)} |`);
console.log(`| run_javascript \`6 * 7\`, card running → result (first: the runner frame made) | ${fmt(js)} (first ${Math.round(js[0])}) |`);
console.log(`| run_python \`6 * 7\`, cold (Python downloaded, ${(coldWire / 1e6).toFixed(2)} MB on the wire) | ${Math.round(cold)} |`);
console.log(`| run_python \`6 * 7\`, warm (from the service worker's cache, ${((wire - coldWire) / 1e6).toFixed(2)} MB from the network) | ${fmt(warm)} |`);
console.log(`main thread long tasks: cold ${coldLong.map(Math.round).join(', ') || 'none'}; warm ${warmLong.map(Math.round).join(', ') || 'none'}`);
await browser.close();
await model.stop();
app.server.close();
process.exit(0);

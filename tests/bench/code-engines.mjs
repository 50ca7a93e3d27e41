// Code in the page in Firefox and WebKit, for docs/BENCHMARKS.md: how long
// a run_javascript and a run_python call take in the app, as the call's card
// says (its start to its result), against a scripted model, in a fresh
// profile of each engine: the first JavaScript run (the runner made), then
// warm ones; Python's first run (downloaded), then cached ones.
//
// Usage (from tests/, after ./dev build): node bench/code-engines.mjs [--runs N]
import { join } from 'node:path';
import { ROOT } from '../e2e/support.mjs';
import { openApp } from '../support/engines.mjs';
import { startStaticServer } from '../support/static-server.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const app = await startStaticServer(join(ROOT, 'dist'), 0);
const model = await startScriptedModel();

/** Calls `tool` with `code`; the card's duration in ms. */
async function timed(b, tool, code, id) {
  model.enqueue(reply.calls([{ id, name: tool, arguments: JSON.stringify({ code }) }]), reply.text(`Done ${id}.`));
  await b.enter('composer-input', `Run ${id}`);
  await b.waitText(`Done ${id}.`, 180_000);
  const shown = await b.evaluate(() => [...document.querySelectorAll('[data-testid=tool-duration]')].at(-1)?.textContent ?? '');
  const [, n, unit] = /^([\d.]+) (ms|s)$/.exec(shown) ?? [];
  if (!n) throw new Error(`no duration on the card: ${JSON.stringify(shown)}`);
  return Number(n) * (unit === 's' ? 1000 : 1);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const engine of ['firefox', 'webkit']) {
  const b = await openApp(engine, app.url, model.baseUrl);
  try {
    const first = await timed(b, 'run_javascript', '6 * 7', `${engine}-js-first`);
    const js = [];
    for (let i = 0; i < runs; i++) js.push(await timed(b, 'run_javascript', '6 * 7', `${engine}-js-${i}`));
    const cold = await timed(b, 'run_python', '6 * 7', `${engine}-py-cold`);
    const warm = [];
    for (let i = 0; i < 2; i++) warm.push(await timed(b, 'run_python', '6 * 7', `${engine}-py-${i}`));
    rows.push({ engine, first, js: [Math.min(...js), median(js)], cold, warm: [Math.min(...warm), median(warm)] });
  } finally {
    await b.close();
  }
}
console.log(JSON.stringify(rows, null, 1));
await model.stop();
app.server.close();

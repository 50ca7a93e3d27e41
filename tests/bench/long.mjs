// A long conversation (a benchmark, not a test): a ChatGPT export of one
// conversation of AIR_LONG_MESSAGES (5,000) messages of mixed Markdown
// (paragraphs, lists, tables, code blocks; about 11 MB), chosen in Data →
// Import in Chromium. Measures how long the import takes, how long the
// conversation takes to open at its end, what scrolling back to its
// beginning costs (plain scrolling steps: each step's time, the main
// thread's long tasks, whether the place read was kept; then dragging to
// the top until the first message; DOM nodes at the end), and how long a search hit in its first message
// takes to be shown. Writes the section between the long-thread markers
// of docs/BENCHMARKS.md (`AIR_LONG_PRINT=1`: prints it only).
//
//   node bench/long.mjs [BENCHMARKS.md]
import { readFileSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, configure, launchBrowser, openApp, serveApp } from '../e2e/support.mjs';
import { startScriptedModel } from '../support/scripted-model.mjs';
import { longTasks, watchLongTasks } from './long-tasks.mjs';

const out = process.argv[2] ?? join(ROOT, 'docs/BENCHMARKS.md');
const N = Number(process.env.AIR_LONG_MESSAGES ?? 5000);
// Going back stops after this long (the figures say how far it got).
const BACK_BUDGET_MS = Number(process.env.AIR_LONG_BACK_MS ?? 240_000);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** A message's Markdown: the i-th of a varied set, about 3 KB. */
function markdown(i, role) {
  const para = `Paragraph ${i}: the keeper trimmed the wick, wound the clockwork and logged the weather; ships passed the reef at dusk and the lens turned through the night. `;
  if (role === 'user') return `Question ${i}: ${para.repeat(4)}`;
  const code = ['```rust', `fn step_${i}(x: u64) -> u64 {`, '    // turn the lens one step', `    (x * 31 + ${i}) % 1_000_003`, '}', '```'].join('\n');
  const list = Array.from({ length: 6 }, (_, k) => `- item ${k} of answer ${i}: **oil**, *wick* and \`lens\``).join('\n');
  const table = ['| hour | wind | sea |', '|---|---|---|', ...Array.from({ length: 5 }, (_, k) => `| ${k}:00 | NW ${k + 3} | ${k % 3 ? 'calm' : 'rough'} |`)].join('\n');
  const parts = [`## Answer ${i}`, para.repeat(10), list, i % 2 ? code : table, para.repeat(6), i % 3 ? code.replace(/step_/g, 'turn_') : list];
  return parts.join('\n\n');
}

/** ChatGPT's conversations.json with one conversation of N messages. */
function chatgptExport() {
  const m = (role, text, t) => ({ id: 'x', author: { role }, create_time: t, content: { content_type: 'text', parts: [text] }, weight: 1, metadata: {} });
  const mapping = { root: { id: 'root', message: null, parent: null } };
  let parent = 'root';
  for (let i = 0; i < N; i++) {
    const role = i % 2 ? 'assistant' : 'user';
    const text = i === 0 ? `${markdown(i, role)} The word to find is albatross.` : markdown(i, role);
    mapping[`m${i}`] = { id: `m${i}`, message: m(role, text, 1_700_000_000 + i), parent };
    parent = `m${i}`;
  }
  return Buffer.from(JSON.stringify([{ id: 'long', title: 'The long conversation', create_time: 1_700_000_000, mapping, current_node: parent }]));
}


const app = await serveApp();
const model = await startScriptedModel();
const browser = await launchBrowser();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
await context.addInitScript(watchLongTasks);
const page = await context.newPage();
await openApp(page, app.url);
await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
const cdp = await context.newCDPSession(page);

// Import.
const file = chatgptExport();
await page.getByTestId('open-settings').click();
await longTasks(page);
const importStart = Date.now();
await page.getByTestId('import-file').setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: file });
for (;;) {
  const text = (await page.getByTestId('import-result').textContent()) ?? '';
  if (/^Imported/.test(text)) break;
  if (/could not/.test(text)) throw new Error(text);
  await new Promise((r) => setTimeout(r, 50));
}
const importMs = Date.now() - importStart;
const importLong = await longTasks(page);
await page.getByTestId('settings-save').click();

// Open at its end, from a reload.
const opens = [];
for (let i = 0; i < 3; i++) {
  await page.reload();
  await page.waitForFunction(() => performance.getEntriesByName('air-ready').length > 0, null, { timeout: 60_000 });
  opens.push(await page.evaluate(() => performance.getEntriesByName('air-ready')[0].startTime));
}
await page.getByTestId('message-text').last().waitFor();
await longTasks(page);

// Scrolling up by plain steps of 0.9 of a screen (AIR_LONG_STEPS of them):
// each step's time until three frames later, and how far the message at
// the view's top moved from where the scroll should have put it (0: the
// place was kept). Older messages are read as the view nears the top.
const STEPS = Number(process.env.AIR_LONG_STEPS ?? 300);
const steps = [];
const jumps = [];
const scroller = page.getByTestId('messages');
const stepUp = () => scroller.evaluate(async (el) => {
  const frames = (n) => new Promise((r) => { const f = () => (--n ? requestAnimationFrame(f) : r()); requestAnimationFrame(f); });
  const view = el.getBoundingClientRect().top;
  const row = [...el.querySelectorAll('[data-row]')].find((r) => r.getBoundingClientRect().bottom > view + 1);
  const by = Math.min(el.scrollTop, Math.round(el.clientHeight * 0.9));
  const y0 = row?.getBoundingClientRect().top;
  el.scrollTop -= by;
  await frames(3);
  const y1 = row?.isConnected ? row.getBoundingClientRect().top : undefined;
  return { by, jump: y0 === undefined || y1 === undefined ? null : Math.abs(y1 - y0 - by) };
});
await longTasks(page);
const stepStart = Date.now();
for (let i = 0; i < STEPS; i++) {
  const t0 = Date.now();
  const step = await stepUp();
  steps.push(Date.now() - t0);
  if (step.by > 0) jumps.push(step.jump ?? Infinity);
}
const stepMs = Date.now() - stepStart;
const stepLong = await longTasks(page);

// Then to its beginning as a dragged scrollbar goes: straight to the top
// of what was read, again and again, a page of older messages read each
// time, until the first message is there.
const backStart = Date.now();
let reached = false;
let drags = 0;
while (Date.now() - backStart < BACK_BUDGET_MS) {
  drags++;
  const done = await scroller.evaluate(async (el) => {
    el.scrollTop = 0;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 20))));
    return !document.querySelector('[data-testid=load-older]') && el.scrollTop === 0;
  });
  if (done && (await page.getByText('The word to find is albatross.').count())) { reached = true; break; }
}
const backMs = Date.now() - backStart;
const backLong = await longTasks(page);
const shown = await page.locator('[data-row]').count();
const nodes = (await cdp.send('Memory.getDOMCounters')).nodes;

// A search hit in the first message, from a fresh load (open at the end).
await page.reload();
await page.waitForFunction(() => performance.getEntriesByName('air-ready').length > 0, null, { timeout: 60_000 });
await longTasks(page);
await page.getByTestId('session-search').fill('albatross');
await page.getByTestId('search-result').first().waitFor({ timeout: 60_000 });
// Timed in the page: from the click to the frame that first shows the
// marked message (the driver's round trips left out).
await page.evaluate(() => {
  window.__hit = new Promise((resolve) => {
    let clicked = 0;
    addEventListener('click', () => { clicked = performance.now(); }, { capture: true, once: true });
    const seen = new MutationObserver(() => {
      if (!document.querySelector('.message.found')) return;
      seen.disconnect();
      requestAnimationFrame(() => resolve(performance.now() - clicked));
    });
    seen.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
  });
});
await page.getByTestId('search-result').first().click();
await page.locator('.message.found').waitFor({ timeout: 300_000 });
const hitMs = Math.round(await page.evaluate(() => window.__hit));
const hitLong = await longTasks(page);

await browser.close();
await model.stop();
app.server.close();

const longest = (l) => (l.length ? `${Math.round(Math.max(...l))} ms` : 'none');
const rev = (() => { try { return execSync('git rev-parse --short HEAD').toString().trim(); } catch { return 'unknown'; } })();
const section = [
  '<!-- long-thread:start -->',
  `One ChatGPT conversation of ${N.toLocaleString('en')} messages of mixed Markdown (${(file.length / 1e6).toFixed(1)} MB), Chromium on this machine, ${new Date().toISOString().slice(0, 10)} at \`${rev}\` (\`node bench/long.mjs\`):`,
  '',
  '| | |',
  '|---|---|',
  `| import, chosen to "Imported" | ${(importMs / 1000).toFixed(1)} s; ${importLong.filter((d) => d > 50).length} main-thread tasks over 50 ms (longest ${longest(importLong)}) |`,
  `| opens at its end (reload to the first usable screen, median of 3) | ${Math.round(median(opens))} ms |`,
  `| scrolling up from the end, ${steps.length} steps of 0.9 of a screen | ${(stepMs / 1000).toFixed(1)} s; each step to three frames later ${Math.round(median(steps))} ms median, ${Math.round(Math.max(0, ...steps))} ms at worst; ${stepLong.filter((d) => d > 50).length} main-thread tasks over 50 ms (longest ${longest(stepLong)}) |`,
  `| the message read, moved from where the scroll put it | ${Math.round(median(jumps))} px median, ${Math.round(Math.max(0, ...jumps))} px at worst; ${jumps.filter((j) => j >= 2).length} of ${jumps.length} steps by 2 px or more |`,
  `| then to its beginning, the view put at the top of what is read (a dragged scrollbar) | ${reached ? 'reached' : `not reached in ${BACK_BUDGET_MS / 1000} s`} after ${drags} drags in ${(backMs / 1000).toFixed(1)} s; ${backLong.filter((d) => d > 50).length} tasks over 50 ms (longest ${longest(backLong)}) |`,
  `| then in the DOM | ${shown} messages, ${nodes.toLocaleString('en')} nodes |`,
  `| a search hit in its first message, result clicked to the frame that shows the message | ${hitMs} ms; longest task ${longest(hitLong)} |`,
  '<!-- long-thread:end -->',
].join('\n');
console.log(section);
if (!process.env.AIR_LONG_PRINT) {
  let doc = readFileSync(out, 'utf8');
  if (!doc.includes('<!-- long-thread:start -->')) doc += '\n## A long conversation\n\n<!-- long-thread:start -->\n<!-- long-thread:end -->\n';
  doc = doc.replace(/<!-- long-thread:start -->[\s\S]*<!-- long-thread:end -->/, section);
  writeFileSync(out, doc);
}

// Importing another app's history (a benchmark, not a test): a ChatGPT
// export of AIR_IMPORT_CONVERSATIONS (10,000) conversations, as ChatGPT
// writes it (a root without a message, a hidden system prompt, questions
// and answers, a regenerated answer in every tenth), chosen in Data →
// Import in Chromium: how long until it is in, how the page said how far
// it was, the main thread's long tasks meanwhile (PerformanceObserver),
// and a search over what came in. Writes the section between the import
// markers of docs/BENCHMARKS.md.
//
//   node bench/import.mjs [BENCHMARKS.md]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, configure, launchBrowser, openApp, serveApp } from '../e2e/support.mjs';
import { startScriptedModel } from '../support/scripted-model.mjs';
import { longTasks, watchLongTasks } from './long-tasks.mjs';

const out = process.argv[2] ?? join(ROOT, 'docs/BENCHMARKS.md');
const CONV = Number(process.env.AIR_IMPORT_CONVERSATIONS ?? 10000);
const TURNS = 3;

/** ChatGPT's conversations.json for CONV conversations of TURNS questions and answers. */
function chatgptExport() {
  const m = (role, text, t) => ({ id: 'x', author: { role }, create_time: t, content: { content_type: 'text', parts: [text] }, weight: role === 'system' ? 0 : 1, metadata: {} });
  const list = [];
  for (let i = 0; i < CONV; i++) {
    const t0 = 1_700_000_000 + i * 100;
    const mapping = { root: { id: 'root', message: null, parent: null }, sys: { id: 'sys', message: m('system', 'You are ChatGPT', null), parent: 'root' } };
    let parent = 'sys';
    for (let j = 0; j < TURNS; j++) {
      mapping[`q${j}`] = { id: `q${j}`, message: m('user', `Question ${j} of conversation ${i}: how do lighthouses ${j ? 'keep their lamps turning' : 'warn ships'}?`, t0 + j * 10), parent };
      mapping[`a${j}`] = { id: `a${j}`, message: m('assistant', `Answer ${j} of conversation ${i}: a paragraph of some length, as a model writes one, about lenses, keepers and the harbour ${i % 97}.`, t0 + j * 10 + 1), parent: `q${j}` };
      parent = `a${j}`;
    }
    if (i % 10 === 0) mapping.b0 = { id: 'b0', message: m('assistant', `A regenerated answer of conversation ${i}, with a cormorant${i}.`, t0 + 5), parent: 'q0' };
    list.push({ id: `c${i}`, title: `Conversation ${i}`, create_time: t0, mapping, current_node: parent, default_model_slug: 'gpt-4o' });
  }
  return Buffer.from(JSON.stringify(list));
}

const app = await serveApp();
const model = await startScriptedModel();
const browser = await launchBrowser();
const page = await (await browser.newContext()).newPage();
await openApp(page, app.url);
await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
await page.evaluate(watchLongTasks);
const file = chatgptExport();
await page.getByTestId('open-settings').click();
const said = new Set();
const started = Date.now();
await page.getByTestId('import-file').setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: file });
let done = null;
while (!done) {
  const text = (await page.getByTestId('import-result').textContent()) ?? '';
  if (/^Importing/.test(text)) said.add(text);
  if (/^Imported/.test(text)) done = text;
  else if (/could not/.test(text)) throw new Error(text);
  else await new Promise((r) => setTimeout(r, 50));
}
const seconds = (Date.now() - started) / 1000;
const long = await longTasks(page);
await page.getByTestId('settings-save').click();
const queryStart = Date.now();
await page.getByTestId('session-search').fill('cormorant');
await page.getByTestId('search-result').first().waitFor({ timeout: 60_000 });
const query = Date.now() - queryStart;
await browser.close();
await model.stop();
app.server.close();

const sorted = [...long].sort((a, b) => b - a);
const over50 = long.filter((d) => d > 50);
const date = new Date().toISOString().slice(0, 10);
const section = [
  '<!-- import:start -->',
  `A ChatGPT export of ${CONV.toLocaleString('en')} conversations (${(file.length / 1e6).toFixed(1)} MB, ${TURNS * 2} messages each, a hidden system prompt in each, a regenerated answer in every tenth) chosen in Data → Import, in Chromium on this machine (${date}, \`node bench/import.mjs\`):`,
  '',
  '| | |',
  '|---|---|',
  `| in, searchable | ${seconds.toFixed(1)} s (${(CONV / seconds).toFixed(0)} conversations/s) |`,
  `| said | ${done.replace(/\|/g, '/')} |`,
  `| progress lines seen | ${said.size} (the page says how far it is every 1 %) |`,
  `| main-thread tasks over 50 ms | ${over50.length} (longest ${sorted.slice(0, 3).map((d) => `${d.toFixed(0)} ms`).join(', ') || 'none'}) |`,
  `| a search for a word in one answer, typed to first result | ${query} ms |`,
  '',
  'The long tasks come before the first conversation is written (the file read, its JSON parsed, its conversations converted, all at once); the writing goes in groups of conversations of up to 500 messages, one transaction each with the search index, the page answering between them. Parsing in a worker would take those off the page too.',
  '<!-- import:end -->',
].join('\n');
let doc = readFileSync(out, 'utf8');
if (!doc.includes('<!-- import:start -->')) doc += '\n## Importing another app\'s history\n\n<!-- import:start -->\n<!-- import:end -->\n';
doc = doc.replace(/<!-- import:start -->[\s\S]*<!-- import:end -->/, section);
writeFileSync(out, doc);
console.log(section);

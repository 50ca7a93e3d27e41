// Sync (a benchmark, not a test): the first sync of a large store up from
// one browser profile and down to another, through PouchDB Server on
// 127.0.0.1, end-to-end encrypted and plain (the difference is the cost
// of encryption); and the time from a message written on one device to
// it showing on the other. Writes the section between the sync markers
// of docs/BENCHMARKS.md.
//
//   node bench/sync.mjs [BENCHMARKS.md]
//   AIR_SYNC_CONVERSATIONS (1000) and AIR_SYNC_MESSAGES (20 per conversation) set the size;
//   AIR_SYNC_MODES (encrypted,plain) which databases. Another size than the default
//   writes a section of its own (between sync-N markers).
import { readFileSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, configure, launchBrowser, openApp, send, serveApp } from '../e2e/support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';
import { startCouch } from '../support/couch.mjs';

const out = process.argv[2] ?? join(ROOT, 'docs/BENCHMARKS.md');
const CONV = Number(process.env.AIR_SYNC_CONVERSATIONS ?? 1000);
const PER = Number(process.env.AIR_SYNC_MESSAGES ?? 20);
const MODES = (process.env.AIR_SYNC_MODES ?? 'encrypted,plain').split(',');
const LATENCY_RUNS = 5;
const MARK = CONV === 1000 ? 'sync' : `sync-${CONV}`;

/** An export of CONV conversations of PER messages (questions and answers of everyday length). */
function exportDoc() {
  const sessions = Array.from({ length: CONV }, (_, i) => ({
    id: `s${i}`, title: `Conversation ${i}`, createdAt: i + 1, updatedAt: i + 1,
    messages: Array.from({ length: PER }, (_, j) => ({
      id: `m${i}-${j}`, sessionId: `s${i}`, seq: j + 1, role: j % 2 ? 'assistant' : 'user', timestamp: i + j + 1,
      content: j % 2 ? `Answer ${j} of conversation ${i}: a paragraph of some length, as a model writes one, with a few details and a closing line.` : `Question ${j} of conversation ${i}?`,
      ...(j ? { parent: `m${i}-${j - 1}` } : {}),
    })),
  }));
  return Buffer.from(JSON.stringify({ format: 'air-agent-export', version: 2, exportedAt: 0, sessions }));
}

/** Counts the bytes to and from `origin` (request bodies, response bodies). */
function meter(page, origin) {
  const m = { up: 0, down: 0 };
  page.on('request', (r) => { if (r.url().startsWith(origin)) m.up += Buffer.byteLength(r.postData() ?? ''); });
  page.on('response', async (r) => {
    if (!r.url().startsWith(origin)) return;
    try { m.down += (await r.body()).length; } catch { /* a long-poll cut short */ }
  });
  return m;
}

async function device(browser, app, model, couchUrl) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openApp(page, app.url);
  await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
  return { context, page, bytes: meter(page, couchUrl) };
}

/** Settings → Sync, Save and sync; the seconds until the pass ends, and what it moved. */
async function firstSync(page, url, passphrase) {
  await page.getByTestId('open-settings').click();
  await page.getByTestId('sync-url').fill(url);
  await page.getByTestId('sync-passphrase').fill(passphrase);
  const t0 = Date.now();
  await page.getByTestId('sync-save').click();
  const status = page.getByTestId('sync-status');
  await status.and(page.locator('[data-state=idle], [data-state=failed]')).waitFor({ timeout: 3_600_000 });
  const seconds = (Date.now() - t0) / 1000;
  const text = await status.textContent();
  if (await status.getAttribute('data-state') !== 'idle') throw new Error(text);
  const [, sent, received] = /(\d+) sent, (\d+) received/.exec(text).map(Number);
  return { seconds, docs: sent + received };
}

const rows = [];
let latencies = [];
const app = await serveApp();
const model = await startScriptedModel();
const couch = await startCouch();
const browser = await launchBrowser();
try {
  const file = exportDoc();
  for (const [name, passphrase] of [['encrypted', 'bench passphrase'], ['plain', '']].filter(([n]) => MODES.includes(n))) {
    const db = `${couch.url}/bench-${name}`;
    const a = await device(browser, app, model, couch.url);
    await a.page.getByTestId('open-settings').click();
    const t0 = Date.now();
    await a.page.getByTestId('import-file').setInputFiles({ name: 'bench.json', mimeType: 'application/json', buffer: file });
    await a.page.getByTestId('import-result').getByText(/Imported \d+ conversation/).waitFor({ timeout: 3_600_000 });
    console.log(`imported ${CONV} conversations in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await a.page.getByTestId('settings-save').click();
    const up = await firstSync(a.page, db, passphrase);
    console.log(name, 'up', up);
    const b = await device(browser, app, model, couch.url);
    const down = await firstSync(b.page, db, passphrase);
    console.log(name, 'down', down);
    rows.push({ name, up: { ...up, bytes: a.bytes.up }, down: { ...down, bytes: b.bytes.down } });
    if (name === 'encrypted') {
      for (const d of [a, b]) await d.page.keyboard.press('Escape');
      for (let i = 0; i < LATENCY_RUNS; i++) {
        const text = `Latency probe ${i}`;
        model.enqueue(reply.text(`Reply ${i}`));
        const t = Date.now();
        await send(a.page, text);
        await b.page.getByTestId('session-item').filter({ hasText: text }).waitFor({ timeout: 1_800_000 });
        latencies.push(Date.now() - t);
        await a.page.getByText(`Reply ${i}`).waitFor({ timeout: 20_000 });
        await a.page.getByTestId('new-session').click();
      }
      console.log('latencies', latencies);
    }
    await a.context.close();
    await b.context.close();
  }
} finally {
  await browser.close();
  await couch.stop();
  await model.stop();
  app.server.close();
}

const commit = execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim();
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
const rate = (r) => `${Math.round(r.docs / r.seconds)}`;
const enc = rows.find((r) => r.name === 'encrypted');
const plain = rows.find((r) => r.name === 'plain');
const section = [
  `<!-- ${MARK}:start -->`,
  `Measured by \`./dev bench\` on ${new Date().toISOString().slice(0, 10)} at commit \`${commit}\`: ${CONV.toLocaleString('en')} conversations of ${PER} messages (${(CONV * (PER + 1)).toLocaleString('en')} documents), two Chromium profiles, PouchDB Server 4.2 on 127.0.0.1, on the 2 cores of the build machine.`,
  '',
  '| first sync | direction | time | documents/s | bytes on the wire |',
  '|---|---|---:|---:|---:|',
  ...rows.flatMap((r) => [
    `| ${r.name} | up (this device to the server) | ${r.up.seconds.toFixed(1)} s | ${rate(r.up)} | ${mb(r.up.bytes)} sent |`,
    `| ${r.name} | down (the server to a new device) | ${r.down.seconds.toFixed(1)} s | ${rate(r.down)} | ${mb(r.down.bytes)} received |`,
  ]),
  '',
  enc && plain ? `Encryption (AES-GCM sealing and HMAC ids and revisions through WebCrypto, PBKDF2 once per database) costs ${((enc.up.seconds / plain.up.seconds - 1) * 100).toFixed(0)} % of the time up and ${((enc.down.seconds / plain.down.seconds - 1) * 100).toFixed(0)} % down, and ${((enc.up.bytes / plain.up.bytes - 1) * 100).toFixed(0)} % more bytes up.` : '',
  '',
  `A message written on one device shows in the other's conversation list after ${(median(latencies) / 1000).toFixed(1)} s (median of ${latencies.length}: ${latencies.map((l) => (l / 1000).toFixed(1)).join(', ')} s, in order; the writer looks at its journal every 2 s, the reader's long-poll answers at once).`,
  `<!-- ${MARK}:end -->`,
].join('\n').replace(/\n{3,}/g, '\n\n');
let doc = readFileSync(out, 'utf8');
if (!doc.includes(`<!-- ${MARK}:start -->`)) doc += `\n## Sync\n\n<!-- ${MARK}:start -->\n<!-- ${MARK}:end -->\n`;
doc = doc.replace(new RegExp(`<!-- ${MARK}:start -->[\\s\\S]*<!-- ${MARK}:end -->`), section);
writeFileSync(out, doc);
console.log(section);

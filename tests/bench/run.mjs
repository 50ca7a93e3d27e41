// Browser benchmarks (not tests): start-up with many sessions stored, and the
// main-thread cost of streaming a long answer. Prints a Markdown section and
// writes it into docs/BENCHMARKS.md between the runtime markers.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { launchBrowser, openApp, configure, send, serveApp } from '../e2e/support.mjs';
import { startScriptedModel } from '../support/scripted-model.mjs';

const out = process.argv[2] ?? '../docs/BENCHMARKS.md';
const RUNS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const app = await serveApp();
const model = await startScriptedModel();
const browser = await launchBrowser();

async function seedSessions(page, n) {
  await page.evaluate((n) => new Promise((ok, fail) => {
    const open = indexedDB.open('air-agent-db');
    open.onerror = () => fail(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(['sessions', 'messages'], 'readwrite');
      const sessions = tx.objectStore('sessions');
      const messages = tx.objectStore('messages');
      for (let i = 0; i < n; i++) {
        const id = `bench-${i}`;
        sessions.put({ id, title: `Benchmark session number ${i}`, titleEdited: false, createdAt: i, updatedAt: i });
        messages.put({ id: `${id}-m`, sessionId: id, seq: i, role: 'user', content: `Question ${i}`, timestamp: i });
      }
      tx.oncomplete = () => { db.close(); ok(); };
      tx.onerror = () => fail(tx.error);
    };
  }), n);
}

async function startup(n) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openApp(page, app.url);
  if (n) await seedSessions(page, n);
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    await page.reload();
    await page.waitForFunction(() => performance.getEntriesByName('air-ready').length > 0, null, { timeout: 60_000 });
    times.push(await page.evaluate(() => performance.getEntriesByName('air-ready')[0].startTime));
  }
  const items = await page.getByTestId('session-item').count();
  await context.close();
  return { ms: median(times), items };
}

async function streaming(totalBytes, chunks) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openApp(page, app.url);
  await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
  // Paragraphs of prose with some Markdown, cut into equal chunks.
  const para = 'The quick brown fox **jumps** over the lazy dog, and `code` follows. '.repeat(6) + '\n\n';
  let text = '';
  while (text.length < totalBytes) text += para;
  text = text.slice(0, totalBytes);
  const size = Math.ceil(text.length / chunks);
  const events = [];
  for (let i = 0; i < text.length; i += size) {
    events.push(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text.slice(i, i + size) } }] })}\n\n`);
  }
  events.push(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`, 'data: [DONE]\n\n');
  model.enqueue({ status: 200, events, delayMs: 0 });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const metric = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const before = await metric();
  const t0 = Date.now();
  await send(page, 'Stream a long answer');
  await page.getByTestId('regenerate').waitFor({ timeout: 300_000 });
  const wall = Date.now() - t0;
  const after = await metric();
  const shown = await page.getByTestId('message-assistant').last().getByTestId('message-text').evaluate((el) => el.textContent.length);
  await context.close();
  return {
    wall,
    task: (after.TaskDuration - before.TaskDuration) * 1000,
    script: (after.ScriptDuration - before.ScriptDuration) * 1000,
    layout: (after.LayoutDuration - before.LayoutDuration) * 1000,
    chunks: events.length - 2,
    bytes: text.length,
    shown,
  };
}

const empty = await startup(0);
const many = await startup(10_000);
const stream = await streaming(1_000_000, 10_000);
await browser.close();
await model.stop();
app.server.close();

const rev = (() => { try { return execSync('git rev-parse --short HEAD').toString().trim(); } catch { return 'unknown'; } })();
const section = [
  '<!-- runtime:start -->',
  `Measured by \`./dev bench\` on ${new Date().toISOString().slice(0, 10)} at commit \`${rev}\`, headless Chromium, release build, median of ${RUNS} loads.`,
  '',
  '| measurement | result |',
  '|---|---:|',
  `| start-up to first usable screen, empty store | ${empty.ms.toFixed(0)} ms |`,
  `| start-up to first usable screen, 10,000 sessions stored | ${many.ms.toFixed(0)} ms (${many.items} sidebar rows rendered) |`,
  `| stream ${(stream.bytes / 1e6).toFixed(1)} MB in ${stream.chunks} chunks: main-thread task time | ${stream.task.toFixed(0)} ms |`,
  `| … of which script | ${stream.script.toFixed(0)} ms |`,
  `| … of which layout | ${stream.layout.toFixed(0)} ms |`,
  `| … wall time from send to finished answer | ${stream.wall} ms |`,
  `| … per chunk (task time / chunks) | ${(stream.task / stream.chunks).toFixed(2)} ms |`,
  '<!-- runtime:end -->',
].join('\n');
let doc = existsSync(out) ? readFileSync(out, 'utf8') : '# Benchmarks\n';
if (!doc.includes('<!-- runtime:start -->')) {
  doc += '\n## Start-up and streaming\n\nStart-up is the time from navigation to the first frame after the store is open and the latest session is shown (`performance.mark("air-ready")`). Streaming is measured with the Chrome DevTools Protocol\'s `Performance.getMetrics` around one answer from a scripted server that sends the chunks as fast as it can.\n\n<!-- runtime:start -->\n<!-- runtime:end -->\n';
}
doc = doc.replace(/<!-- runtime:start -->[\s\S]*<!-- runtime:end -->/, section);
writeFileSync(out, doc);
console.log(section);
if (stream.shown < stream.bytes * 0.9) throw new Error(`only ${stream.shown} of ${stream.bytes} characters were shown`);

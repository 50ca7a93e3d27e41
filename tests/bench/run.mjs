// Browser benchmarks (not tests): start-up with 10, 1,000 and 10,000
// sessions stored and with a 5,000-message session, a search over 200,000
// messages, and the main-thread cost and memory of streaming a long answer. Prints a Markdown section and
// writes it into docs/BENCHMARKS.md between the runtime markers.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { launchBrowser, openApp, configure, send, serveApp } from '../e2e/support.mjs';
import { startScriptedModel } from '../support/scripted-model.mjs';
import { MEMORY_HOOK, MEMORY_READ } from '../support/wasm-memory.mjs';
import { firstAnswer } from './bytes.mjs';

const out = process.argv[2] ?? '../docs/BENCHMARKS.md';
const RUNS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const app = await serveApp();
const model = await startScriptedModel();
const browser = await launchBrowser();

/** `sessions` sessions of `per` messages each, written straight into
 *  IndexedDB; `words` picks each message's text. Without a search index
 *  (as a store from before it), when `unindexed`. */
async function seedStore(page, sessions, per, unindexed) {
  await page.evaluate(({ sessions, per, unindexed }) => new Promise((ok, fail) => {
    const words = ['garden', 'weather', 'tomato', 'river', 'engine', 'python', 'rust', 'kernel', 'violin', 'recipe', 'bread', 'planet', 'orbit',
      'museum', 'harbor', 'winter', 'market', 'ledger', 'pixel', 'canvas', '花园', '天气', '河流', '面包', '行星', '博物馆', '港口', '冬天'];
    let seed = 7;
    const pick = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return words[seed % words.length]; };
    const open = indexedDB.open('air-agent-db');
    open.onerror = () => fail(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(['sessions', 'messages', 'meta'], 'readwrite');
      for (let i = 0; i < sessions; i++) {
        const id = `bench-${i}`;
        tx.objectStore('sessions').put({ id, title: `Benchmark session ${i}`, titleEdited: true, createdAt: i, updatedAt: i });
        for (let j = 0; j < per; j++) {
          const text = Array.from({ length: 12 }, pick).join(' ') + (i === 4321 && j === 3 ? ' lighthouse parrot' : '');
          tx.objectStore('messages').put({ id: `${id}-${j}`, sessionId: id, seq: j, role: j % 2 ? 'assistant' : 'user', content: text, timestamp: i * per + j, incomplete: false, stopped: false });
        }
      }
      if (unindexed) tx.objectStore('meta').delete('searchIndex');
      tx.oncomplete = () => { db.close(); ok(); };
      tx.onerror = () => fail(tx.error);
    };
  }), { sessions, per, unindexed });
}

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

async function startup(n, seed = seedSessions) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openApp(page, app.url);
  if (n) await seed(page, n);
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

const wasmMemory = (page) => page.evaluate(MEMORY_READ);

async function streaming(totalBytes, chunks) {
  const context = await browser.newContext();
  await context.addInitScript(MEMORY_HOOK);
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
  // What sending needs is fetched while the message is typed; measured
  // from the moment it is sent.
  await page.getByTestId('composer-input').fill('Stream a long answer');
  await page.waitForTimeout(500);
  const memoryBefore = await wasmMemory(page);
  const before = await metric();
  // `AIR_BENCH_PROFILE=stream`: where the answer's main-thread time goes.
  const profiling = process.env.AIR_BENCH_PROFILE === 'stream';
  if (profiling) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  // `AIR_BENCH_PROFILE=trace`: the same, by the browser's own trace events.
  const tracing = process.env.AIR_BENCH_PROFILE === 'trace' && traceStart(cdp);
  const t0 = Date.now();
  await page.getByTestId('composer-input').press('Enter');
  await page.getByTestId('regenerate').waitFor({ timeout: 300_000 });
  const wall = Date.now() - t0;
  const after = await metric();
  if (profiling) console.log(selfTimes((await cdp.send('Profiler.stop')).profile));
  if (tracing) console.log(await traceTimes(cdp, await tracing));
  const shown = await page.getByTestId('message-assistant').last().getByTestId('message-text').evaluate((el) => el.textContent.length);
  const heap = (await cdp.send('Runtime.getHeapUsage')).usedSize;
  const nodes = (await cdp.send('Memory.getDOMCounters')).nodes;
  const memoryAfter = await wasmMemory(page);
  await context.close();
  return {
    memoryBefore,
    memoryAfter,
    wall,
    task: (after.TaskDuration - before.TaskDuration) * 1000,
    script: (after.ScriptDuration - before.ScriptDuration) * 1000,
    layout: (after.LayoutDuration - before.LayoutDuration) * 1000,
    chunks: events.length - 2,
    heap,
    nodes,
    bytes: text.length,
    shown,
  };
}

/** The index's totals as IndexedDB holds them. */
const indexStats = (page) => page.evaluate(() => new Promise((ok, fail) => {
  const open = indexedDB.open('air-agent-db');
  open.onerror = () => fail(open.error);
  open.onsuccess = () => {
    const db = open.result;
    const get = db.transaction(['meta']).objectStore('meta').get('searchIndex');
    get.onsuccess = () => { db.close(); ok(get.result ? JSON.parse(get.result) : null); };
    get.onerror = () => fail(get.error);
  };
}));

/** The main thread's long tasks since the last call (ms each). */
const longTasks = (page) => page.evaluate(() => { const l = window.__airLong ?? []; window.__airLong = []; return l; });

/** A CPU profile's self time per function, the largest first. */
/** Starts a trace of the page's main thread; resolves to its events' list. */
async function traceStart(cdp) {
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,v8,blink,disabled-by-default-devtools.timeline', transferMode: 'ReportEvents' });
  return events;
}

/** Ends the trace: time by event name on the renderer's main thread. */
async function traceTimes(cdp, events) {
  const ended = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.end');
  await ended;
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const by = new Map();
  const open = new Map();
  for (const e of events) {
    if (!main || e.pid !== main.pid || e.tid !== main.tid) continue;
    let dur = 0;
    if (e.ph === 'X') dur = (e.dur ?? 0) / 1000;
    else if (e.ph === 'B') { open.set(e.name, e.ts); continue; }
    else if (e.ph === 'E' && open.has(e.name)) dur = (e.ts - open.get(e.name)) / 1000;
    else continue;
    const key = `${e.name} ${e.args?.data?.type ?? e.args?.src_func ?? ''}`.trim();
    const [n, t] = by.get(key) ?? [0, 0];
    by.set(key, [n + 1, t + dur]);
  }
  return [...by].sort((a, b) => b[1][1] - a[1][1]).slice(0, 40).map(([k, [n, t]]) => `${t.toFixed(1)} ms ${k} (${n})`).join('\n');
}

function selfTimes(profile) {
  const per = (profile.endTime - profile.startTime) / profile.samples.length / 1000;
  const counts = new Map();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const by = new Map();
  for (const n of profile.nodes) {
    const name = n.callFrame.functionName || n.callFrame.url.split('/').pop() || '(anonymous)';
    by.set(name, (by.get(name) ?? 0) + (counts.get(n.id) ?? 0) * per);
  }
  return [...by].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([k, v]) => `${v.toFixed(1)} ms ${k}`).join('\n');
}

/** Each query `RUNS` times, from the search starting to its results. */
async function queryTimes(page, queries) {
  const times = [];
  for (const q of queries) {
    for (let i = 0; i < RUNS; i++) {
      await page.getByTestId('session-search').fill('');
      await page.evaluate(() => performance.clearMarks());
      await page.getByTestId('session-search').fill(q);
      await page.waitForFunction(() => performance.getEntriesByName('air-search-end').length > 0, null, { timeout: 60_000 });
      times.push(await page.evaluate(() => performance.getEntriesByName('air-search-end')[0].startTime - performance.getEntriesByName('air-search-start')[0].startTime));
      // The rest of the hits (after the first twenty) before the next query.
      await page.waitForTimeout(200);
    }
  }
  return times;
}

/** A search over `sessions` × `per` messages: the index built for them
 *  first (timed, with the main thread's long tasks meanwhile), each query
 *  right after, then again once the segments are merged (timed too). */
async function search(sessions, per, queries) {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  await context.addInitScript(() => {
    window.__airLong = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) { window.__airLong.push(e.duration); (window.__airLongAt ??= []).push(Math.round(e.startTime)); } }).observe({ type: 'longtask' });
  });
  const page = await context.newPage();
  await openApp(page, app.url);
  await seedStore(page, sessions, per, true);
  // Records in this version's format (else the reload first migrates all
  // 200,000, a one-off of an older database, not the index's cost).
  await page.evaluate(() => new Promise((ok, fail) => {
    const open = indexedDB.open('air-agent-db');
    open.onerror = () => fail(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(['meta'], 'readwrite');
      tx.objectStore('meta').put(3, 'recordFormat');
      tx.oncomplete = () => { db.close(); ok(); };
      tx.onerror = () => fail(tx.error);
    };
  }));
  const t0 = Date.now();
  let cdp;
  if (process.env.AIR_BENCH_PROFILE === 'rebuild') {
    cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
    await cdp.send('Profiler.start');
  }
  await page.reload();
  await page.getByTestId('search-indexing').waitFor({ timeout: 60_000 }).catch(() => {});
  await page.getByTestId('search-indexing').waitFor({ state: 'detached', timeout: 1_800_000 });
  const rebuild = Date.now() - t0;
  if (cdp) console.log(selfTimes((await cdp.send('Profiler.stop')).profile));
  // Start-up's own tasks (parsing and compiling the wasm) come before
  // the rebuild starts; those during it are what the index costs.
  const rebuildLong = await longTasks(page);
  if (process.env.AIR_BENCH_ONLY === 'search') console.log('after the rebuild', JSON.stringify(await indexStats(page)));
  const before = await queryTimes(page, queries);
  const t1 = Date.now();
  while ((await indexStats(page))?.mergePending) await page.waitForTimeout(250);
  const merge = Date.now() - t1;
  const mergeLong = await longTasks(page);
  const times = await queryTimes(page, queries);
  // `AIR_BENCH_PROFILE=1`: where a query's time goes (self time per function).
  if (process.env.AIR_BENCH_PROFILE === 'query') {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    await queryTimes(page, queries.slice(-1));
    console.log(selfTimes((await cdp.send('Profiler.stop')).profile));
  }
  if (process.env.AIR_BENCH_ONLY === "search") console.log(await page.evaluate(() => JSON.stringify({ at: window.__airLongAt, ready: performance.getEntriesByName('air-ready').map((e) => Math.round(e.startTime)) })));
  if (process.env.AIR_BENCH_ONLY === "search") console.log("before merging", before.map(Math.round).join(" "), "\nafter", times.map(Math.round).join(" "), "\nlong tasks while indexing", rebuildLong.map(Math.round).join(" "), "\nwhile merging", mergeLong.map(Math.round).join(" "));
  const found = await page.getByTestId('search-result').count();
  await context.close();
  const longest = (l) => (l.length ? Math.max(...l) : 0);
  return { rebuild, ms: median(times), worst: Math.max(...times), msBefore: median(before), worstBefore: Math.max(...before), merge, found,
    rebuildLong: rebuildLong.length, rebuildLongest: longest(rebuildLong), mergeLong: mergeLong.length, mergeLongest: longest(mergeLong) };
}

const seedLong = (page) => seedStore(page, 1, 5_000, false);
// `AIR_BENCH_ONLY=stream`: only the streaming rows, printed (not written).
if (process.env.AIR_BENCH_ONLY === 'stream') {
  const rows = [];
  for (const [bytes, chunks] of [[1_000_000, 10_000], [2_000_000, 20_000]]) {
    const r = await streaming(bytes, chunks);
    rows.push({ bytes, task: Math.round(r.task), script: Math.round(r.script), layout: Math.round(r.layout), wall: r.wall, nodes: r.nodes,
      wasmMiB: [(r.memoryBefore / 1048576).toFixed(1), (r.memoryAfter / 1048576).toFixed(1)], perByte: ((r.memoryAfter - r.memoryBefore) / r.bytes).toFixed(1) });
  }
  console.table(rows);
  await browser.close();
  await model.stop();
  app.server.close();
  process.exit(0);
}
// `AIR_BENCH_ONLY=bytes`: only the bytes on the wire, printed (not written).
if (process.env.AIR_BENCH_ONLY === 'bytes') {
  for (const compressed of [true, 'gzip', false]) {
    const r = await firstAnswer(browser, model, compressed);
    console.log(`${compressed === true ? 'br' : compressed || 'none'}: first visit ${r.visit}, first answer ${r.answer}`);
    console.table(r.files.map(([path, bytes]) => ({ path, bytes })));
  }
  await browser.close();
  await model.stop();
  app.server.close();
  process.exit(0);
}
// `AIR_BENCH_ONLY=search`: only the search rows, printed (not written).
if (process.env.AIR_BENCH_ONLY === 'search') {
  const r = await search(10_000, 20, ['lighthouse parrot', 'tomato river', '博物馆']);
  console.table([{ rebuildS: Math.round(r.rebuild / 1000), beforeMs: Math.round(r.msBefore), beforeWorst: Math.round(r.worstBefore), mergeS: Math.round(r.merge / 1000), medianMs: Math.round(r.ms), worstMs: Math.round(r.worst), found: r.found,
    longWhileIndexing: `${r.rebuildLong} (longest ${Math.round(r.rebuildLongest)} ms)`, longWhileMerging: `${r.mergeLong} (longest ${Math.round(r.mergeLongest)} ms)` }]);
  await browser.close();
  await model.stop();
  app.server.close();
  process.exit(0);
}
// `AIR_BENCH_ONLY=startup`: only the start-up rows, printed (not written).
if (process.env.AIR_BENCH_ONLY === 'startup') {
  const rows = [];
  for (const [name, n, seed] of [['10', 10], ['1,000', 1_000], ['10,000', 10_000], ['5,000 messages', 1, seedLong]]) {
    rows.push({ stored: name, ms: Math.round((await startup(n, seed)).ms) });
  }
  console.table(rows);
  await browser.close();
  await model.stop();
  app.server.close();
  process.exit(0);
}
const wire = { br: await firstAnswer(browser, model, true), gzip: await firstAnswer(browser, model, 'gzip'), none: await firstAnswer(browser, model, false) };
const ten = await startup(10);
const thousand = await startup(1_000);
const many = await startup(10_000);
const long = await startup(1, seedLong);
const found = await search(10_000, 20, ['lighthouse parrot', 'tomato river', '博物馆']);
const stream = await streaming(1_000_000, 10_000);
const stream2 = await streaming(2_000_000, 20_000);
await browser.close();
await model.stop();
app.server.close();

const kB = (n) => `${(n / 1000).toFixed(1)} KB`;
const rev = (() => { try { return execSync('git rev-parse --short HEAD').toString().trim(); } catch { return 'unknown'; } })();
const section = [
  '<!-- runtime:start -->',
  `Measured by \`./dev bench\` on ${new Date().toISOString().slice(0, 10)} at commit \`${rev}\`, headless Chromium, release build, median of ${RUNS} loads.`,
  '',
  '| measurement | result |',
  '|---|---:|',
  `| bytes on the wire from a cold cache, brotli (\`./dev serve\`): first visit, then until a first answer's first token is on screen | ${kB(wire.br.visit)}, ${kB(wire.br.answer)} |`,
  `| … gzip only | ${kB(wire.gzip.visit)}, ${kB(wire.gzip.answer)} |`,
  `| … uncompressed | ${kB(wire.none.visit)}, ${kB(wire.none.answer)} |`,
  `| start-up to first usable screen, 10 sessions stored | ${ten.ms.toFixed(0)} ms |`,
  `| … 1,000 sessions stored | ${thousand.ms.toFixed(0)} ms |`,
  `| … 10,000 sessions stored | ${many.ms.toFixed(0)} ms (${(many.ms / ten.ms).toFixed(2)}× of 10; ${many.items} sidebar rows rendered) |`,
  `| … the newest session has 5,000 messages (opens at its end) | ${long.ms.toFixed(0)} ms |`,
  `| search over 200,000 messages in 10,000 sessions, search start to the first results on screen (the best 12, the rest up to 50 following; median of 3 queries × ${RUNS}, Chinese among them), segments merged | ${found.ms.toFixed(0)} ms (worst ${found.worst.toFixed(0)} ms) |`,
  `| … right after the rebuild, before merging | ${found.msBefore.toFixed(0)} ms (worst ${found.worstBefore.toFixed(0)} ms) |`,
  `| … building the index for them first (a store from before it; from reload to the index complete) | ${(found.rebuild / 1000).toFixed(1)} s, ${found.rebuildLong} main-thread tasks over 50 ms (longest ${found.rebuildLongest.toFixed(0)} ms) |`,
  `| … then merging its segments in the background | ${(found.merge / 1000).toFixed(1)} s, ${found.mergeLong} tasks over 50 ms (longest ${found.mergeLongest.toFixed(0)} ms) |`,
  `| stream ${(stream.bytes / 1e6).toFixed(1)} MB in ${stream.chunks} chunks: main-thread task time | ${stream.task.toFixed(0)} ms |`,
  `| … of which script | ${stream.script.toFixed(0)} ms |`,
  `| … of which layout | ${stream.layout.toFixed(0)} ms |`,
  `| … wall time from send to finished answer | ${stream.wall} ms |`,
  `| … per chunk (task time / chunks) | ${(stream.task / stream.chunks).toFixed(2)} ms |`,
  `| … after it: JS heap used, DOM nodes | ${(stream.heap / 1e6).toFixed(1)} MB, ${stream.nodes} |`,
  `| … wasm memory before → after | ${(stream.memoryBefore / 1048576).toFixed(1)} → ${(stream.memoryAfter / 1048576).toFixed(1)} MiB (${((stream.memoryAfter - stream.memoryBefore) / stream.bytes).toFixed(1)} bytes per answer byte) |`,
  `| stream ${(stream2.bytes / 1e6).toFixed(1)} MB in ${stream2.chunks} chunks: main-thread task time | ${stream2.task.toFixed(0)} ms (${(stream2.task / stream.task).toFixed(2)}× of 1 MB; layout ${stream2.layout.toFixed(0)} ms) |`,
  `| … wasm memory before → after | ${(stream2.memoryBefore / 1048576).toFixed(1)} → ${(stream2.memoryAfter / 1048576).toFixed(1)} MiB (${((stream2.memoryAfter - stream2.memoryBefore) / stream2.bytes).toFixed(1)} bytes per answer byte) |`,
  '<!-- runtime:end -->',
].join('\n');
let doc = existsSync(out) ? readFileSync(out, 'utf8') : '# Benchmarks\n';
if (!doc.includes('<!-- runtime:start -->')) {
  doc += '\n## Start-up and streaming\n\nStart-up is the time from navigation to the first frame after the store is open and the newest conversation is drawn (`performance.mark("air-ready")`; its view is a lazily loaded part, so this includes fetching and compiling it). Streaming is measured with the Chrome DevTools Protocol\'s `Performance.getMetrics` around one answer from a scripted server that sends the chunks as fast as it can.\n\n<!-- runtime:start -->\n<!-- runtime:end -->\n';
}
doc = doc.replace(/<!-- runtime:start -->[\s\S]*<!-- runtime:end -->/, section);
writeFileSync(out, doc);
console.log(section);
if (stream.shown < stream.bytes * 0.9) throw new Error(`only ${stream.shown} of ${stream.bytes} characters were shown`);

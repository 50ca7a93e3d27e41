// The code runner (runner.html) as the app frames it: code the model
// writes runs there, in a worker of the sandboxed frame the runner page
// makes inside it, on an opaque origin with no network.
// JavaScript runs in QuickJS there (the site's quickjs/ files, which the
// page gives it when asked, as the app does). Each escape below would
// succeed in a worker of the app's own origin; in the runner each is
// refused, nothing reaches the servers listening, the app's storage is
// untouched, a heap grown without end is stopped by its limit, and the
// runner keeps working.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { ROOT, launchBrowser } from './support.mjs';
import { startStaticServer } from '../support/static-server.mjs';

/** A server on 127.0.0.1 that counts every request and upgrade that reaches it. */
async function startCounter() {
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(200, { 'Content-Type': 'text/javascript', 'Access-Control-Allow-Origin': '*' });
    res.end('self.reached = true;');
  });
  server.on('upgrade', (req, socket) => { hits.push(`upgrade ${req.url}`); socket.destroy(); });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { hits, url: `http://127.0.0.1:${server.address().port}`, stop: () => new Promise((ok) => server.close(ok)) };
}

/** Puts the runner in the app's page as the app does, and a way to run code there. */
async function frameRunner(page) {
  await page.evaluate(() => new Promise((ready) => {
    const f = document.createElement('iframe');
    f.hidden = true;
    window.runnerSaid = [];
    addEventListener('message', async (e) => {
      if (e.source !== f.contentWindow) return;
      const m = e.data;
      if (m && m.t === 'ready') return ready();
      window.runnerSaid.push(m);
      // The runtime's files, as the app gives them (only QuickJS's here).
      if (m && m.t === 'need') {
        const got = /^quickjs\.(mjs|wasm)$/.test(m.file) ? await fetch(`./quickjs/${m.file}`) : null;
        const bytes = got && got.ok ? [await got.arrayBuffer()] : [];
        f.contentWindow.postMessage({ t: 'file', run: m.run, file: m.file, ok: bytes.length === 1, why: 'not offered', bytes }, '*', bytes);
      }
    });
    f.src = './runner.html';
    document.body.appendChild(f);
    window.runner = f;
  }));
}

/** Starts `code` as run `run`; resolves to every message of that run once it has ended. */
function run(page, runId, code, files = []) {
  return page.evaluate(async ({ runId, code, files }) => {
    const bytes = files.map((f) => new TextEncoder().encode(f.text).buffer);
    window.runner.contentWindow.postMessage({ t: 'run', run: runId, lang: 'javascript', code, files: files.map((f) => ({ name: f.name, type: 'text/plain' })), bytes, limits: { memory: 2 ** 30 } }, '*', bytes);
    const ended = (m) => m.run === runId && ['done', 'raised', 'crashed'].includes(m.t);
    while (!window.runnerSaid.some(ended)) await new Promise((r) => setTimeout(r, 20));
    return window.runnerSaid.filter((m) => m.run === runId).map((m) => ({ ...m, bytes: (m.bytes || []).map((b) => new TextDecoder().decode(b)) }));
  }, { runId, code, files });
}

const end = (said) => said[said.length - 1];
const printed = (said) => said.filter((m) => m.t === 'out' || m.t === 'err').map((m) => m.text).join('');

describe('the code runner', () => {
  let app;
  let counter;
  let browser;
  let context;
  let page;
  before(async () => {
    app = await startStaticServer(join(ROOT, 'dist'), 0);
    counter = await startCounter();
    browser = await launchBrowser();
    context = await browser.newContext();
    page = await context.newPage();
    await page.goto(`${app.url}/`);
    await page.evaluate(() => { localStorage.setItem('runner-probe', 'kept'); });
    await frameRunner(page);
  });
  after(async () => {
    await browser?.close();
    app?.server.close();
    await counter?.stop();
  });

  test('code runs: console captured, the last value, files read and written', async () => {
    const said = await run(page, 1, 'console.log("rows", 2); console.error("careful"); const t = await files.text("a.csv"); files.write("out/sum.txt", String(t.split("\\n").length)); return 6 * 7;', [{ name: 'a.csv', text: 'x\n1\n2' }]);
    assert.deepEqual(said.map((m) => m.t), ['need', 'need', 'started', 'out', 'err', 'done'], 'QuickJS asked for, then the run');
    const again = await run(page, 4, 'files.names()');
    assert.deepEqual(again.map((m) => [m.t, m.value]), [['started', undefined], ['done', '[]']], 'the next run asks for nothing: the sandbox keeps QuickJS, and each run has a worker of its own');
    assert.equal(printed(said), 'rows 2\ncareful\n');
    assert.equal(end(said).value, '42');
    assert.deepEqual(end(said).files, [{ name: 'out/sum.txt' }], 'the name as the code gave it: the app makes it plain');
    assert.deepEqual(end(said).bytes, ['3']);
    const script = await run(page, 2, 'const xs = [1, 2, 3]; xs.reduce((a, b) => a + b, 0)');
    assert.equal(end(script).value, '6', 'without await, the last expression is the value');
    const thrown = await run(page, 3, 'files.write("half.txt", "h"); null.x');
    assert.equal(end(thrown).t, 'raised');
    assert.equal(end(thrown).name, 'TypeError');
    assert.deepEqual(end(thrown).bytes, ['h'], 'what it wrote before it threw comes back');
  });

  test('the network is out of reach: fetch, XMLHttpRequest, WebSocket, importScripts, EventSource', async () => {
    const url = counter.url;
    const attempts = {
      fetch: `await fetch(${JSON.stringify(`${url}/fetch`)}); return "reached"`,
      xhr: `const x = new XMLHttpRequest(); x.open("GET", ${JSON.stringify(`${url}/xhr`)}, false); x.send(); return "reached " + x.status`,
      websocket: `return await new Promise((ok, no) => { const w = new WebSocket(${JSON.stringify(`${url.replace('http', 'ws')}/ws`)}); w.onopen = () => ok("reached"); w.onerror = () => no(new Error("refused")); })`,
      importScripts: `importScripts(${JSON.stringify(`${url}/import.js`)}); self.reached`,
      eventSource: `return await new Promise((ok, no) => { const s = new EventSource(${JSON.stringify(`${url}/sse`)}); s.onopen = () => ok("reached"); s.onerror = () => no(new Error("refused")); })`,
    };
    let n = 10;
    for (const [what, code] of Object.entries(attempts)) {
      const said = await run(page, n++, code);
      assert.equal(end(said).t, 'raised', `${what}: ${JSON.stringify(end(said))}`);
    }
    assert.deepEqual(counter.hits, [], 'nothing reached the server');
  });

  test("the app's storage is out of reach, and the code cannot speak for another run", async () => {
    const storage = await run(page, 20, 'return typeof localStorage + " " + typeof document + " " + typeof parent');
    assert.equal(end(storage).value, 'undefined undefined undefined');
    const idb = await run(page, 21, 'return await new Promise((ok, no) => { const r = indexedDB.open("air-agent"); r.onsuccess = () => ok("opened"); r.onerror = () => no(r.error); })');
    assert.equal(end(idb).t, 'raised', JSON.stringify(end(idb)));
    const caches = await run(page, 22, 'await caches.keys(); return "read"');
    assert.equal(end(caches).t, 'raised', 'nor the offline cache');
    const spoof = await run(page, 23, 'const post = globalThis.postMessage || globalThis.self?.postMessage; post({ t: "done", run: 99, value: "spoofed" }); await new Promise(() => {})');
    assert.deepEqual(spoof.map((m) => [m.t, m.run]).filter(([t]) => t !== 'need'), [['started', 23], ['raised', 23]], 'the worker\'s postMessage is out of reach');
    assert.match(end(spoof).message, /not a function/);
    const others = await page.evaluate(() => window.runnerSaid.filter((m) => m.run === 98 || m.run === 99).length);
    assert.equal(others, 0);
    assert.equal(await page.evaluate(() => localStorage.getItem('runner-probe')), 'kept');
  });

  test('a heap grown without end, or 4 GB asked for, ends in "out of memory" and the page lives on', async () => {
    const grown = await run(page, 40, 'const kept = []; for (;;) kept.push(new Array(1e6).fill(1.5))');
    assert.equal(end(grown).t, 'raised', JSON.stringify(end(grown)));
    assert.equal(end(grown).name, 'InternalError');
    assert.match(end(grown).message, /^out of memory: the run may use at most 1024 MB$/);
    const huge = await run(page, 41, 'new ArrayBuffer(4 * 1024 ** 3).byteLength');
    assert.equal(end(huge).t, 'raised', JSON.stringify(end(huge)));
    assert.match(`${end(huge).name}: ${end(huge).message}`, /RangeError|out of memory/);
    const deep = await run(page, 42, 'function down(n) { return down(n + 1) + 1; } down(0)');
    assert.equal(end(deep).t, 'raised');
    assert.match(`${end(deep).name}: ${end(deep).message}`, /stack overflow/);
    assert.equal(await page.evaluate(() => 2 + 2), 4, 'the app page lives');
    assert.equal(end(await run(page, 43, '"next"')).value, 'next');
  });

  test('what the code is given: timers, TextEncoder and TextDecoder, a promise nothing settles', async () => {
    const timed = await run(page, 50, 'const order = []; setTimeout(() => order.push("later"), 30); const id = setTimeout(() => order.push("never"), 10); clearTimeout(id); await new Promise((r) => setTimeout(r, 60)); order.push("after"); return order.join(",")');
    assert.equal(end(timed).value, 'later,after');
    const text = await run(page, 51, 'const b = new TextEncoder().encode("žluť 🐎"); [b.length, new TextDecoder().decode(b.subarray(0, 4))]');
    assert.equal(end(text).value, '[11,"žlu"]');
    const stuck = await run(page, 52, 'await new Promise(() => {})');
    assert.equal(end(stuck).t, 'raised');
    assert.match(end(stuck).message, /nothing is left to settle/);
    const thrown = await run(page, 53, 'setTimeout(() => { throw new RangeError("in a timer"); }, 0); await new Promise((r) => setTimeout(r, 20)); return "went on"');
    assert.equal(end(thrown).value, 'went on');
    assert.equal(printed(thrown), 'Uncaught RangeError: in a timer\n');
  });

  test('a runaway loop is stopped by the app, and the runner keeps working', async () => {
    await page.evaluate(() => window.runner.contentWindow.postMessage({ t: 'run', run: 30, lang: 'javascript', code: 'for (;;) {}', files: [], bytes: [] }, '*'));
    await page.waitForFunction(() => window.runnerSaid.some((m) => m.run === 30 && m.t === 'started'));
    await page.evaluate(() => window.runner.contentWindow.postMessage({ t: 'stop', run: 30 }, '*'));
    assert.equal(await page.evaluate(() => 1 + 1), 2, 'the app page answers while the loop ran');
    const after = await run(page, 31, '"still here"');
    assert.equal(end(after).value, 'still here', 'the runner took the next run');
    assert.deepEqual(await page.evaluate(() => window.runnerSaid.filter((m) => m.run === 30 && m.t !== 'need').map((m) => m.t)), ['started'], 'the stopped run said nothing more');
  });
});

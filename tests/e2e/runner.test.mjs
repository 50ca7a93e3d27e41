// The code runner (runner.html) as the app frames it: code the model
// writes runs there, in a worker of the sandboxed frame the runner page
// makes inside it, on an opaque origin with no network.
// Each escape below would succeed in a worker of the app's own origin; in
// the runner each is refused, nothing reaches the servers listening, the
// app's storage is untouched, and the runner keeps working. (A plain
// worker's memory has no bound: a run that allocates without end is not
// stopped here yet.)
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
    addEventListener('message', (e) => {
      if (e.source !== f.contentWindow) return;
      if (e.data && e.data.t === 'ready') ready();
      else window.runnerSaid.push(e.data);
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
    window.runner.contentWindow.postMessage({ t: 'run', run: runId, lang: 'javascript', code, files: files.map((f) => ({ name: f.name, type: 'text/plain' })), bytes }, '*', bytes);
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
    assert.deepEqual(said.map((m) => m.t), ['started', 'out', 'err', 'done']);
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
    const spoof = await run(page, 23, 'postMessage({ t: "done", run: 99, value: "spoofed" }); postMessage({ t: "out", run: 98, text: "x" }); await new Promise(() => {})');
    assert.deepEqual(spoof.map((m) => [m.t, m.run]), [['started', 23], ['done', 23]], 'stamped with its own run');
    const others = await page.evaluate(() => window.runnerSaid.filter((m) => m.run === 98 || m.run === 99).length);
    assert.equal(others, 0);
    assert.equal(await page.evaluate(() => localStorage.getItem('runner-probe')), 'kept');
  });

  test('a runaway loop is stopped by the app, and the runner keeps working', async () => {
    await page.evaluate(() => window.runner.contentWindow.postMessage({ t: 'run', run: 30, lang: 'javascript', code: 'for (;;) {}', files: [], bytes: [] }, '*'));
    await page.waitForFunction(() => window.runnerSaid.some((m) => m.run === 30 && m.t === 'started'));
    await page.evaluate(() => window.runner.contentWindow.postMessage({ t: 'stop', run: 30 }, '*'));
    assert.equal(await page.evaluate(() => 1 + 1), 2, 'the app page answers while the loop ran');
    const after = await run(page, 31, '"still here"');
    assert.equal(end(after).value, 'still here', 'the runner took the next run');
    assert.equal(await page.evaluate(() => window.runnerSaid.some((m) => m.run === 30 && m.t !== 'started')), false, 'the stopped run said nothing more');
  });
});

// Code run in the page beyond Chromium: in Firefox (Debian's firefox-esr)
// and in WebKit (WebKitGTK's MiniBrowser), against a scripted model, as a
// user would use it. run_javascript prints and awaits; what it tries to
// reach (the network, the app's storage) is refused and nothing reaches
// the server listening; run_python starts from the site's own files and
// reads a CSV the user attached; and JavaScript reads the file Python wrote.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveApp } from './support.mjs';
import { openApp } from '../support/engines.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

const ESCAPES = `
const tries = {
  fetch: () => fetch(TARGET + "/fetch"),
  xhr: () => new Promise((ok, fail) => { const x = new XMLHttpRequest(); x.open("GET", TARGET + "/xhr"); x.onload = ok; x.onerror = () => fail(new Error("refused")); x.send(); }),
  socket: () => new Promise((ok, fail) => { const s = new WebSocket(TARGET.replace("http", "ws") + "/ws"); s.onopen = ok; s.onerror = () => fail(new Error("refused")); }),
  indexedDB: () => new Promise((ok, fail) => { const o = indexedDB.open("air-agent-db"); o.onsuccess = ok; o.onerror = () => fail(o.error); }),
  localStorage: () => localStorage.length,
};
const out = {};
for (const [name, attempt] of Object.entries(tries)) {
  try { await attempt(); out[name] = "reached"; } catch (e) { out[name] = "refused"; }
}
return out;`;

describe('code run in the page, in Firefox and WebKit (scripted model)', () => {
  let app;
  let model;
  let target;
  const hits = [];
  let dir;
  before(async () => {
    app = await serveApp();
    model = await startScriptedModel();
    target = createServer((req, res) => { hits.push(req.url); res.writeHead(200, { 'Access-Control-Allow-Origin': '*' }); res.end('reached'); });
    target.on('upgrade', (req, socket) => { hits.push(`upgrade ${req.url}`); socket.destroy(); });
    await new Promise((ok) => target.listen(0, '127.0.0.1', ok));
    dir = mkdtempSync(join(tmpdir(), 'air-engines-'));
    writeFileSync(join(dir, 'sales.csv'), 'month,sales\nJan,3\nFeb,5\nMar,4\n');
  });
  after(async () => {
    await model?.stop();
    app?.server.close();
    target?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const engine of ['firefox', 'webkit']) {
    test(`${engine}: JavaScript and Python run in the sandbox, reach nothing, and read and write the chat's files`, async () => {
      const b = await openApp(engine, app.url, model.baseUrl);
      try {
        /** The model calls `tool` with `code` as `id`, then says `after`; what it was told of the call. */
        const ask = async (id, tool, code, after) => {
          model.enqueue(reply.calls([{ id, name: tool, arguments: JSON.stringify({ code }) }]), reply.text(after));
          await b.enter('composer-input', `Run ${id}`);
          await b.waitText(after, 180_000);
          return model.requests.at(-1).body.messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;
        };

        assert.match(await ask('js', 'run_javascript', 'console.log("hi"); const r = await Promise.resolve(6 * 7); return r;', 'Ran it.'), /^JavaScript ran to its end in \d+ ms\.\nstdout:\nhi\nvalue: 42$/);
        const before = hits.length;
        const escapes = await ask('escapes', 'run_javascript', `const TARGET = ${JSON.stringify(`http://127.0.0.1:${target.address().port}`)};${ESCAPES}`, 'Tried them.');
        assert.match(escapes, /\nvalue: \{"fetch":"refused","xhr":"refused","socket":"refused","indexedDB":"refused","localStorage":"refused"\}$/);
        assert.deepEqual(hits.slice(before), [], 'nothing reached the server');

        await b.upload('attach-input', join(dir, 'sales.csv'));
        await b.waitFor('file-chip');
        const py = 'import csv\nvals = [int(r[1]) for r in list(csv.reader(open("/mnt/data/sales.csv")))[1:]]\nmean = sum(vals) / len(vals)\nopen("mean.txt", "w").write(str(mean))\nprint("mean", mean)';
        assert.match(await ask('py', 'run_python', py, 'Averaged it.'), /^Python ran to its end in \d+ ms\.\nstdout:\nmean 4\.0\nFiles given back to the user: mean\.txt \(text\/plain, 3 B\)\.$/);
        assert.match(await ask('back', 'run_javascript', 'return [await files.text("mean.txt"), files.names()]', 'Read it back.'), /\nvalue: \["4\.0",\["sales\.csv","mean\.txt"\]\]$/);
      } finally {
        await b.close();
      }
    });
  }
});

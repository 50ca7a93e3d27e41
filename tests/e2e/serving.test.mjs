// Serving the build: every text and wasm file has a brotli and a gzip copy
// beside it, which `./dev serve` sends with `Content-Encoding` (and the
// file's own type and cache headers) to a browser that accepts it; the app
// works the same from a host that sends the files as they are.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ROOT, configure, launchBrowser, openApp, send } from './support.mjs';
import { startStaticServer } from '../support/static-server.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

const DIST = join(ROOT, 'dist');

/** `dist/`'s main wasm, its script, and the conversation view's module. */
async function builtFiles() {
  const names = await readdir(DIST);
  const wasm = names.find((f) => /^app-[0-9a-f]+_bg\.wasm$/.test(f));
  const script = names.find((f) => /^app-[0-9a-f]+\.js$/.test(f));
  const view = names.find((f) => /^split_chat_view-[0-9a-f]{16}\.wasm$/.test(f));
  assert.ok(wasm && script && view, names.join(', '));
  return { wasm, script, view };
}

/** The response's headers and its body as sent (Node's fetch would decode it). */
function get(url, acceptEncoding) {
  return new Promise((ok, fail) => {
    httpGet(url, { headers: { 'Accept-Encoding': acceptEncoding } }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => ok({ res: { headers: { get: (name) => res.headers[name] ?? null } }, body: Buffer.concat(parts) }));
      res.on('error', fail);
    }).on('error', fail);
  });
}

describe('serving', () => {
  let app, plain, model, browser;
  before(async () => {
    app = await startStaticServer(DIST, 0);
    plain = await startStaticServer(DIST, 0, { compressed: false });
    model = await startScriptedModel();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await model?.stop();
    app?.server.close();
    plain?.server.close();
  });

  test('the build has a brotli and a gzip copy of each text and wasm file, and ./dev serve sends them', async () => {
    const { wasm, script, view } = await builtFiles();
    for (const file of [wasm, script, view, 'index.html', 'sw.js']) {
      const raw = await readFile(join(DIST, file));
      assert.deepEqual(brotliDecompressSync(await readFile(join(DIST, `${file}.br`))), raw, `${file}.br`);
      assert.deepEqual(gunzipSync(await readFile(join(DIST, `${file}.gz`))), raw, `${file}.gz`);

      const br = await get(`${app.url}/${file}`, 'gzip, deflate, br, zstd');
      assert.equal(br.res.headers.get('content-encoding'), 'br', file);
      assert.equal(br.res.headers.get('vary'), 'Accept-Encoding', file);
      assert.deepEqual(brotliDecompressSync(br.body), raw, file);
      assert.ok(br.body.length < raw.length, `${file}: ${br.body.length} of ${raw.length} bytes`);

      const gz = await get(`${app.url}/${file}`, 'gzip');
      assert.equal(gz.res.headers.get('content-encoding'), 'gzip', file);
      assert.deepEqual(gunzipSync(gz.body), raw, file);

      const none = await get(`${app.url}/${file}`, 'identity');
      assert.equal(none.res.headers.get('content-encoding'), null, file);
      assert.deepEqual(none.body, raw, file);
    }
    // Each keeps its own type, and hashed files are cached for good.
    const w = await get(`${app.url}/${wasm}`, 'br');
    assert.equal(w.res.headers.get('content-type'), 'application/wasm');
    assert.equal(w.res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const s = await get(`${app.url}/${script}`, 'br');
    assert.match(s.res.headers.get('content-type'), /^text\/javascript/);
    assert.equal(s.res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const page = await get(`${app.url}/`, 'br');
    assert.equal(page.res.headers.get('content-encoding'), 'br');
    assert.match(page.res.headers.get('content-type'), /^text\/html/);
    assert.equal(page.res.headers.get('cache-control'), 'no-cache');
    // A browser that refuses brotli gets gzip.
    const refused = await get(`${app.url}/${wasm}`, 'br;q=0, gzip');
    assert.equal(refused.res.headers.get('content-encoding'), 'gzip');
    // Images are sent as they are.
    const icon = await get(`${app.url}/icons/icon-192.png`, 'br, gzip');
    assert.equal(icon.res.headers.get('content-encoding'), null);
  });

  for (const [name, server] of [['compressed', () => app], ['as they are', () => plain]]) {
    test(`the app answers when its files are sent ${name}`, async () => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const sent = [];
        page.on('response', async (r) => {
          if (r.url().startsWith(server().url) && r.url().endsWith('.wasm')) sent.push(r.headers()['content-encoding'] ?? 'none');
        });
        const errors = await openApp(page, `${server().url}/`);
        await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
        model.enqueue(reply.text(`Served ${name}.`));
        await send(page, 'Are the files here?');
        await page.getByText(`Served ${name}.`).waitFor({ timeout: 20_000 });
        // The main module, the conversation view and the turn at least, each
        // compiled from what the browser decoded (the answer needs them).
        assert.ok(sent.length >= 3, sent.join(', '));
        assert.deepEqual([...new Set(sent)], [name === 'compressed' ? 'br' : 'none']);
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }
});

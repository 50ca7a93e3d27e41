// The release build from a plain static server under a sub-path (as on a
// shared host: https://example.com/agent/): every asset loads from under
// the sub-path, the app starts and answers, its other pages (the sign-in
// callback, the MCP Apps sandbox) resolve there too, and its web app
// manifest is read by Chromium as installable. And a host that does not
// know the wasm media type: every module is compiled from its bytes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, configure, launchBrowser, openApp, send } from './support.mjs';
import { startStaticServer } from '../support/static-server.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

describe('deployed under a sub-path', () => {
  let app, model, browser;
  before(async () => {
    app = await startStaticServer(join(ROOT, 'dist'), 0, { prefix: '/agent' });
    model = await startScriptedModel();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await model?.stop();
    app?.server.close();
  });

  test('the app starts and answers from /agent/', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const failed = [];
    page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
    const loaded = [];
    page.on('request', (r) => { if (r.url().startsWith(app.url.replace('/agent', ''))) loaded.push(new URL(r.url()).pathname); });
    const errors = await openApp(page, `${app.url}/`);
    await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
    model.enqueue(reply.text('Served from a sub-path.'));
    await send(page, 'Hello');
    await page.getByText('Served from a sub-path.').waitFor({ timeout: 20_000 });
    assert.deepEqual(failed, []);
    assert.ok(loaded.length >= 4, loaded.join(', '));
    assert.ok(loaded.every((p) => p.startsWith('/agent/')), `everything from under /agent/: ${loaded.join(', ')}`);
    assert.ok(loaded.some((p) => /\/agent\/app-[0-9a-f]+_bg\.wasm$/.test(p)));
    // The pages the app opens by relative URL are there.
    for (const file of ['oauth-callback.html', 'sandbox.html']) {
      const r = await page.evaluate(async (f) => (await fetch(new URL(f, document.baseURI))).status, file);
      assert.equal(r, 200, file);
    }
    // The web app manifest: read by Chromium without errors, its start URL
    // and scope under the sub-path, its icons there (one maskable).
    const cdp = await context.newCDPSession(page);
    const manifest = await cdp.send('Page.getAppManifest');
    assert.deepEqual(manifest.errors, []);
    assert.equal(manifest.url, `${app.url}/manifest.webmanifest`);
    const parsed = await page.evaluate(async () => (await fetch('manifest.webmanifest')).json());
    assert.equal(parsed.display, 'standalone');
    assert.equal(new URL(parsed.start_url, manifest.url).pathname, '/agent/');
    assert.equal(new URL(parsed.scope, manifest.url).pathname, '/agent/');
    assert.ok(parsed.icons.some((i) => i.purpose === 'maskable' && i.sizes === '512x512'));
    for (const icon of parsed.icons) {
      const r = await page.evaluate(async (src) => (await fetch(src)).status, new URL(icon.src, manifest.url).href);
      assert.equal(r, 200, icon.src);
    }
    // Installable, as far as Chromium can tell here (a test profile is
    // always "incognito").
    const installability = await cdp.send('Page.getInstallabilityErrors');
    assert.deepEqual(installability.installabilityErrors.map((e) => e.errorId).filter((id) => id !== 'in-incognito'), []);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a host that serves wasm as application/octet-stream: the app and its parts are compiled from their bytes', async () => {
    const plain = await startStaticServer(join(ROOT, 'dist'), 0, { types: { '.wasm': 'application/octet-stream' } });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const errors = await openApp(page, `${plain.url}/`);
      await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
      model.enqueue(reply.text('Compiled from bytes.'));
      await send(page, 'Any type will do');
      await page.getByText('Compiled from bytes.').waitFor({ timeout: 20_000 });
      // Started again with a conversation stored: the view's module that
      // boot.js began to compile (and could not, from this host) is
      // compiled by the loader instead.
      await page.reload();
      await page.getByText('Compiled from bytes.').waitFor({ timeout: 20_000 });
      assert.equal(await page.getByTestId('part-missing').count(), 0);
      const wasm = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.wasm')).map((e) => e.name));
      assert.ok(wasm.some((u) => /split_chat_view-/.test(u)), wasm.join(', '));
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      plain.server.closeAllConnections();
      plain.server.close();
    }
  });
});

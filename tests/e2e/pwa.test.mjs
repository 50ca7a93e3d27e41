// The installed app: what a first visit downloads (within the 400 KB gzip
// budget, the lazily loaded parts left for first use), offline use through
// the service worker, and the update flow (a new version waits for the
// user's reload, which is never offered in the middle of an answer).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, configure, launchBrowser, openApp, send } from './support.mjs';
import { startStaticServer } from '../support/static-server.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

const DIST = join(ROOT, 'dist');
// One source builds to the same bytes in any checkout (./dev maps the
// source paths the wasm names), so the budget is the goal itself.
const BUDGET = 400_000;

/** Waits until a service worker controls the page; returns its version. */
async function controlled(page) {
  await page.waitForFunction(() => Boolean(navigator.serviceWorker.controller), null, { timeout: 20_000 });
  return workerVersion(page);
}

function workerVersion(page) {
  return page.evaluate(() => new Promise((resolve) => {
    navigator.serviceWorker.addEventListener('message', (e) => { if (e.data?.type === 'version') resolve(e.data.version); }, { once: true });
    navigator.serviceWorker.controller.postMessage({ type: 'version' });
  }));
}

/** The service worker's own lists of the build in `dir`. */
async function workerLists(dir) {
  const text = await readFile(join(dir, 'sw.js'), 'utf8');
  const list = (name) => JSON.parse(text.match(new RegExp(`const ${name} = (\\[.*\\]);`))[1]);
  return { core: list('CORE'), lazy: list('LAZY'), version: text.match(/const VERSION = "([0-9a-f]+)";/)[1] };
}

/** Serves a copy of the build (tests change it as a new deployment would). */
async function serveCopy() {
  const dir = await mkdtemp(join(tmpdir(), 'air-pwa-'));
  await cp(DIST, dir, { recursive: true });
  const app = await startStaticServer(dir, 0);
  return { dir, ...app, stop: async () => { app.server.closeAllConnections(); app.server.close(); await rm(dir, { recursive: true, force: true }); } };
}

describe('installed app', () => {
  let model, browser;
  before(async () => {
    model = await startScriptedModel();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await model?.stop();
  });

  test('a first visit downloads at most 400 KB gzip; the rest comes on first use', async () => {
    const app = await serveCopy();
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      const fetched = new Set();
      page.on('request', (r) => { if (r.url().startsWith(app.url)) fetched.add(new URL(r.url()).pathname.slice(1) || 'index.html'); });
      const errors = await openApp(page, `${app.url}/`);
      await controlled(page);
      const { core, lazy } = await workerLists(app.dir);
      // Everything the page loaded, and what the worker precached.
      const files = new Set([...fetched, ...core]);
      let total = 0;
      const sizes = [];
      for (const f of files) {
        const bytes = gzipSync(await readFile(join(app.dir, f)), { level: 9 }).length;
        sizes.push(`${f} ${bytes}`);
        total += bytes;
      }
      console.log(`first visit: ${total} bytes gzip (budget ${BUDGET})`);
      assert.ok(total <= BUDGET, `first visit: ${total} bytes gzip\n${sizes.join('\n')}`);
      assert.deepEqual([...fetched].filter((f) => lazy.includes(f)), [], 'no lazily loaded part on a first visit');
      assert.ok([...fetched].some((f) => /^app-[0-9a-f]+_bg\.wasm$/.test(f)));
      // Typing a first message fetches what sending it needs, before it is sent.
      await page.getByTestId('composer-input').pressSequentially('Hi');
      await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /\/split_turn-/.test(e.name)), null, { timeout: 10_000 });
      // Settings come with their own module, fetched when first opened.
      await page.getByTestId('open-settings').click();
      await page.getByTestId('settings-base-url').waitFor();
      assert.ok([...fetched].some((f) => f.startsWith('split_settings')), [...fetched].join(', '));
      assert.deepEqual(errors, []);
      await context.close();
    } finally {
      await app.stop();
    }
  });

  test('a start-up with a stored conversation fetches the main module, the conversation view\'s module and the messages\' reader, and no other part', async () => {
    const app = await serveCopy();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const errors = await openApp(page, `${app.url}/`);
      await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
      model.enqueue(reply.text('Drawn again at start-up.'));
      await send(page, 'Open me first');
      await page.getByText('Drawn again at start-up.').waitFor({ timeout: 20_000 });
      await page.reload();
      await page.getByText('Drawn again at start-up.').waitFor({ timeout: 20_000 });
      await page.waitForFunction(() => performance.getEntriesByName('air-ready').length > 0);
      const wasm = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname.split('/').pop()).filter((f) => f.endsWith('.wasm')));
      assert.equal(wasm.length, 3, wasm.join(', '));
      assert.ok(wasm.some((f) => /^app-[0-9a-f]+_bg\.wasm$/.test(f)), wasm.join(', '));
      assert.ok(wasm.some((f) => /^split_chat_view-[0-9a-f]{16}\.wasm$/.test(f)), wasm.join(', '));
      assert.ok(wasm.some((f) => /^split_messages-[0-9a-f]{16}\.wasm$/.test(f)), wasm.join(', '));
      // boot.js began to compile both; the loader took those.
      assert.equal(await page.evaluate(() => globalThis.__airEarly?.size), 0);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await app.stop();
    }
  });

  test('with the network cut, a reload opens the app and the stored conversations', async () => {
    const app = await serveCopy();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await openApp(page, `${app.url}/`);
      await controlled(page);
      await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
      model.enqueue(reply.text('Kept for offline reading.'));
      await send(page, 'Remember this offline');
      await page.getByText('Kept for offline reading.').waitFor({ timeout: 20_000 });
      // The site is gone: nothing answers at its address any more.
      await app.stop();
      await page.reload();
      await page.getByTestId('composer-input').waitFor({ timeout: 20_000 });
      await page.getByText('Kept for offline reading.').waitFor({ timeout: 20_000 });
      assert.equal(await page.getByTestId('session-item').count(), 1);
      await page.getByText('Remember this offline').first().waitFor();
      // Settings were opened online: their part was kept too.
      await page.getByTestId('open-settings').click();
      await page.getByTestId('settings-base-url').waitFor({ timeout: 20_000 });
    } finally {
      await context.close();
      await app.stop().catch(() => {});
    }
  });

  test('a part that cannot be fetched is named, and fetched again on the next try', async () => {
    const app = await serveCopy();
    const context = await browser.newContext({ serviceWorkers: 'block' });
    try {
      const page = await context.newPage();
      await openApp(page, `${app.url}/`);
      await page.route(/split_settings/, (route) => route.abort('internetdisconnected'));
      await page.getByTestId('open-settings').click();
      await page.getByTestId('part-missing').waitFor({ timeout: 20_000 });
      assert.equal(await page.getByTestId('settings-base-url').count(), 0);
      // Back online: closing and opening again fetches it.
      await page.unroute(/split_settings/);
      await page.keyboard.press('Escape');
      await page.locator('.drawer-backdrop').waitFor({ state: 'detached' });
      await page.getByTestId('open-settings').click();
      await page.getByTestId('settings-base-url').waitFor({ timeout: 20_000 });
      assert.equal(await page.getByTestId('part-missing').count(), 0);
    } finally {
      await context.close();
      await app.stop();
    }
  });

  test('a new version waits for the user, who cannot reload in the middle of an answer', async () => {
    const app = await serveCopy();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await openApp(page, `${app.url}/`);
      const first = await controlled(page);
      assert.equal(first, (await workerLists(app.dir)).version);
      await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
      // A new deployment: another build's worker.
      const sw = await readFile(join(app.dir, 'sw.js'), 'utf8');
      await writeFile(join(app.dir, 'sw.js'), sw.replace(`const VERSION = "${first}";`, 'const VERSION = "0000000000000002";'));
      // Its precompressed copies were the old build's.
      await rm(join(app.dir, 'sw.js.br'), { force: true });
      await rm(join(app.dir, 'sw.js.gz'), { force: true });
      // The tab looks for updates when it comes back to the foreground.
      await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
      await page.getByTestId('update-ready').waitFor({ timeout: 20_000 });
      // Until the user reloads, the page keeps the version it started with.
      assert.equal(await workerVersion(page), first);
      // An answer streams: no reload now.
      model.enqueue(reply.text('A slow answer that must not be cut by an update.', { pieces: 20, delayMs: 150 }));
      await send(page, 'Talk slowly');
      await page.getByTestId('stop').waitFor();
      assert.equal(await page.getByTestId('update-reload').isDisabled(), true);
      await page.getByText('A slow answer that must not be cut by an update.').waitFor({ timeout: 20_000 });
      await page.getByTestId('update-reload').and(page.locator(':not([disabled])')).waitFor();
      // The user reloads: the new version takes over.
      await Promise.all([page.waitForEvent('load'), page.getByTestId('update-reload').click()]);
      await page.getByTestId('composer-input').waitFor({ timeout: 20_000 });
      assert.equal(await controlled(page), '0000000000000002');
      await page.getByText('A slow answer that must not be cut by an update.').waitFor();
      assert.equal(await page.getByTestId('update-ready').count(), 0);
      // The previous version's cache stays for pages still running it.
      const caches = await page.evaluate(() => caches.keys());
      assert.ok(caches.includes(`air-agent-${first}`) && caches.includes('air-agent-0000000000000002'), caches.join(', '));
    } finally {
      await context.close();
      await app.stop();
    }
  });
});

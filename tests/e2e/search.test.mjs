// A store of 10,000 conversations: the first screen reads only the first
// page of them, the sidebar scrolls (virtually) to the very first one, and
// the search index (built in the background for a store written without
// one) finds a message in English or Chinese and opens its conversation
// at that message, deep in a long conversation (read with the messages
// around it; later ones are read on as the reader scrolls down).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openApp, serveApp } from './support.mjs';

const SESSIONS = 10_000;
const NEEDLE = 4_321;
const CHINESE = 777;

/** Writes the conversations straight into IndexedDB, as an older version
 *  of the app would have (no search index). */
async function seed(page) {
  await page.evaluate(({ SESSIONS, NEEDLE, CHINESE }) => new Promise((ok, fail) => {
    const open = indexedDB.open('air-agent-db');
    open.onerror = () => fail(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(['sessions', 'messages', 'meta'], 'readwrite');
      const sessions = tx.objectStore('sessions');
      const messages = tx.objectStore('messages');
      const put = (id, sessionId, seq, role, content) => messages.put({ id, sessionId, seq, role, content, timestamp: seq, incomplete: false, stopped: false });
      for (let i = 0; i < SESSIONS; i++) {
        const id = `seeded-${i}`;
        sessions.put({ id, title: `Seeded session ${i}`, titleEdited: true, createdAt: i, updatedAt: 1000 + i });
        put(`${id}-q`, id, 1, 'user', `Question number ${i} about gardening and the weather`);
        put(`${id}-a`, id, 2, 'assistant', `Answer number ${i}: water the tomatoes in the morning`);
      }
      // A long conversation whose match is far above its last page.
      for (let j = 3; j < 300; j++) {
        const text = j === 10 ? 'The lighthouse keeper’s parrot speaks fluent Portuguese.' : `Filler line ${j} of a long conversation`;
        put(`seeded-${NEEDLE}-m${j}`, `seeded-${NEEDLE}`, j, j % 2 ? 'user' : 'assistant', text);
      }
      put(`seeded-${CHINESE}-zh`, `seeded-${CHINESE}`, 3, 'assistant', '灯塔看守人的鹦鹉会说葡萄牙语。');
      // As if written before the index existed.
      tx.objectStore('meta').delete('searchIndex');
      tx.oncomplete = () => { db.close(); ok(); };
      tx.onerror = () => fail(tx.error);
    };
  }), { SESSIONS, NEEDLE, CHINESE });
}

describe('10,000 conversations', () => {
  let app, browser, context, page;
  before(async () => {
    app = await serveApp();
    browser = await launchBrowser();
    context = await browser.newContext({ serviceWorkers: 'block' });
    page = await context.newPage();
    await openApp(page, app.url);
    await seed(page);
    await page.reload();
    await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    app?.server.close();
  });

  test('start-up reads one page; the virtual sidebar scrolls to the first conversation', async () => {
    await page.getByTestId('session-item').first().waitFor();
    // The newest is open; the sidebar has rows for the screen, not 10,000.
    assert.match(await page.locator('.session-item.active').textContent(), /Seeded session 9999/);
    const rendered = await page.getByTestId('session-item').count();
    assert.ok(rendered > 5 && rendered < 80, `${rendered} rows rendered`);
    // Scrolled to the end, page after page, it reaches the oldest.
    const list = page.getByTestId('session-list');
    for (let i = 0; i < 400; i++) {
      if (await page.getByText('Seeded session 0', { exact: true }).count()) break;
      await list.evaluate((el) => { el.scrollTop = el.scrollHeight; el.dispatchEvent(new Event('scroll')); });
      await page.waitForTimeout(25);
    }
    await page.getByText('Seeded session 0', { exact: true }).waitFor({ timeout: 5_000 });
    assert.ok(await page.getByTestId('session-item').count() < 80, 'still only the rows in view');
  });

  test('the search index is built for the old store, then finds and opens a message', async () => {
    // Built in the background once (the note goes when it is done).
    await page.getByTestId('search-indexing').waitFor({ state: 'detached', timeout: 120_000 });
    await page.getByTestId('session-search').fill('parrot Portuguese');
    const result = page.getByTestId('search-result');
    await result.first().waitFor({ timeout: 10_000 });
    assert.equal(await result.count(), 1);
    assert.equal(await result.locator('.search-title').textContent(), `Seeded session ${NEEDLE}`);
    assert.deepEqual(await result.locator('mark').allTextContents(), ['parrot', 'Portuguese']);
    await result.click();
    // Opened at the message, though it is 290 messages before the end.
    const found = page.locator('.message.found');
    await found.waitFor({ timeout: 10_000 });
    assert.match(await found.textContent(), /lighthouse keeper’s parrot/);
    assert.ok(await found.isVisible());
    assert.match(await page.locator('.topbar-title').textContent(), new RegExp(`Seeded session ${NEEDLE}`));
    // Read with the messages around it, not every page after it: reading
    // on (scrolling down) reads the later ones, to the end.
    assert.equal(await page.getByText('Filler line 299 of a long conversation').count(), 0);
    await page.getByTestId('load-newer').waitFor();
    const scroller = page.getByTestId('messages');
    for (let i = 0; i < 100 && !(await page.getByText('Filler line 299 of a long conversation').count()); i++) {
      await scroller.evaluate((el) => { el.scrollTop += el.clientHeight * 0.9; });
      await scroller.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    }
    await page.getByText('Filler line 299 of a long conversation').waitFor({ timeout: 10_000 });
    await page.getByTestId('load-newer').waitFor({ state: 'detached' });
    assert.ok(await page.locator('[data-row]').count() < 100, 'only the messages near the view are in the page');

    // Chinese, by its characters.
    await page.getByTestId('session-search').fill('葡萄牙');
    await page.getByTestId('search-result').filter({ hasText: `Seeded session ${CHINESE}` }).waitFor({ timeout: 10_000 });
    assert.deepEqual(await page.getByTestId('search-result').first().locator('mark').allTextContents(), ['葡萄牙']);
    // Words common to every conversation rank, and are capped.
    await page.getByTestId('session-search').fill('tomatoes');
    await page.getByTestId('search-result').filter({ has: page.locator('mark', { hasText: 'tomatoes' }) }).first().waitFor();
    // The best twelve first, then the rest, up to fifty.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=search-result]').length >= 50, null, { timeout: 10_000 });
    await page.waitForTimeout(300);
    assert.equal(await page.getByTestId('search-result').count(), 50);
  });
});

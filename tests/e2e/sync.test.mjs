// Sync between two browser profiles (two devices) through PouchDB Server
// on 127.0.0.1, a real CouchDB-protocol server, end-to-end encrypted:
// what one writes shows on the other; answers written apart in the same
// conversation end as branches on both, nothing lost; a delete travels;
// the server holds no readable text; a wrong passphrase changes nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';
import { startCouch } from '../support/couch.mjs';

describe('sync through the user\'s CouchDB (PouchDB Server, scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  let couch;
  before(async () => { couch = await startCouch(); });
  after(async () => { await couch?.stop(); });

  /** Settings → Sync: the database, the passphrase, Save and sync; waits until the pass ends. */
  async function setUp(page, db, passphrase) {
    await page.getByTestId('open-settings').click();
    const sync = page.getByTestId('sync');
    await sync.scrollIntoViewIfNeeded();
    await page.getByTestId('sync-url').fill(`${couch.url}/${db}`);
    await page.getByTestId('sync-passphrase').fill(passphrase);
    await page.getByTestId('sync-save').click();
    await page.getByTestId('sync-status').and(page.locator('[data-state=idle], [data-state=failed]')).waitFor({ timeout: 30_000 });
  }

  /** Waits until the pass under way ends, and checks it went through. */
  async function settled(page) {
    const status = page.getByTestId('sync-status');
    await status.and(page.locator('[data-state=idle], [data-state=failed], [data-state=paused]')).waitFor({ timeout: 30_000 });
    assert.equal(await status.getAttribute('data-state'), 'idle', await status.textContent());
  }

  async function synced(page) {
    await page.getByTestId('sync-now').click();
    await page.getByTestId('sync-status').and(page.locator(':not([data-state=idle])')).waitFor().catch(() => {});
    await settled(page);
  }

  async function closeSettings(page) {
    await page.keyboard.press('Escape');
    await page.getByTestId('settings').waitFor({ state: 'detached' });
  }

  test('two devices: a conversation crosses over, answers written apart become branches on both, a delete travels', async () => {
    const a = await h.freshPage();
    const b = await h.freshPage();
    h.model.enqueue(reply.text('Start at Fushimi Inari at dawn.'));
    await send(a.page, 'Plan a day in Kyoto');
    await a.page.getByText('Start at Fushimi Inari at dawn.').waitFor({ timeout: 20_000 });

    await setUp(a.page, 'chats', 'correct horse battery');
    assert.equal(await a.page.getByTestId('sync-status').getAttribute('data-state'), 'idle', await a.page.getByTestId('sync-status').textContent());
    await closeSettings(a.page);
    // The server keeps no word of it.
    const stored = await (await fetch(`${couch.url}/chats/_all_docs?include_docs=true`)).text();
    assert.ok(stored.includes('"rows"'));
    for (const word of ['Kyoto', 'Fushimi', 'Plan a day']) assert.ok(!stored.includes(word), `${word} on the server`);

    await setUp(b.page, 'chats', 'correct horse battery');
    await closeSettings(b.page);
    await b.page.getByTestId('session-item').filter({ hasText: 'Plan a day in Kyoto' }).waitFor({ timeout: 20_000 });
    await b.page.getByTestId('session-item').first().locator('.session-title').click();
    await b.page.getByText('Start at Fushimi Inari at dawn.').waitFor({ timeout: 20_000 });

    // Both apart (sync paused), each goes on in the same conversation.
    for (const d of [a, b]) {
      await d.page.getByTestId('open-settings').click();
      await d.page.getByTestId('sync-pause').click();
      await d.page.getByTestId('sync-status').and(d.page.locator('[data-state=paused]')).waitFor();
      await closeSettings(d.page);
    }
    h.model.enqueue(reply.text('In the evening, walk through Gion.'));
    await send(a.page, 'And the evening?');
    await a.page.getByText('In the evening, walk through Gion.').waitFor({ timeout: 20_000 });
    h.model.enqueue(reply.text('Lunch at Nishiki Market.'));
    await send(b.page, 'Where should we eat?');
    await b.page.getByText('Lunch at Nishiki Market.').waitFor({ timeout: 20_000 });

    // Together again: both ways on are kept, on both, as alternatives.
    for (const d of [a, b]) {
      await d.page.getByTestId('open-settings').click();
      await d.page.getByTestId('sync-pause').click();
      await d.page.getByTestId('sync-status').and(d.page.locator(':not([data-state=paused])')).waitFor();
      await settled(d.page);
      await closeSettings(d.page);
    }
    for (const d of [a, b, a]) {
      await d.page.getByTestId('open-settings').click();
      await synced(d.page);
      await closeSettings(d.page);
    }
    for (const d of [a, b]) {
      const page = d.page;
      await page.getByTestId('session-item').first().locator('.session-title').click();
      const pos = page.getByTestId('branch-pos');
      await pos.waitFor({ timeout: 20_000 });
      assert.match(await pos.textContent(), /\/\s*2/);
      const seen = new Set();
      for (let i = 0; i < 2; i++) {
        const text = await page.locator('.messages').textContent();
        if (text.includes('walk through Gion')) seen.add('a');
        if (text.includes('Nishiki Market')) seen.add('b');
        assert.ok(text.includes('Fushimi Inari'), 'the common start stays');
        // To the other alternative, whichever way it is.
        const next = page.getByTestId('branch-next').first();
        await ((await next.isEnabled()) ? next : page.getByTestId('branch-prev').first()).click();
        await page.waitForTimeout(300);
      }
      assert.deepEqual([...seen].sort(), ['a', 'b'], 'both answers are there');
    }

    // A delete on one reaches the other.
    await a.page.getByTestId('session-item').first().hover();
    await a.page.getByTestId('session-item').first().getByTestId('delete-session').click();
    await a.page.getByTestId("undo-toast").waitFor({ state: "detached", timeout: 15_000 });
    await a.page.getByTestId('open-settings').click();
    await synced(a.page);
    await b.page.getByTestId('open-settings').click();
    await synced(b.page);
    await closeSettings(b.page);
    await b.page.getByTestId('session-item').first().waitFor({ state: 'detached', timeout: 20_000 });

    // A third device with another passphrase: told, and nothing read.
    const c = await h.freshPage();
    await setUp(c.page, 'chats', 'wrong horse');
    assert.equal(await c.page.getByTestId('sync-status').getAttribute('data-state'), 'failed');
    assert.match(await c.page.getByTestId('sync-status').textContent(), /does not open this sync database; nothing was changed/);
    await closeSettings(c.page);
    assert.equal(await c.page.getByTestId('session-item').count(), 0);
    for (const d of [a, b, c]) await d.context.close();
  });
});

// Sync between two browser profiles (two devices) through PouchDB Server
// on 127.0.0.1, a real CouchDB-protocol server, end-to-end encrypted:
// what one writes shows on the other; answers written apart in the same
// conversation end as branches on both, nothing lost; a delete travels;
// the server holds no readable text; a wrong passphrase changes nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { openApp, scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';
import { startCouch } from '../support/couch.mjs';

describe('sync through the user\'s CouchDB (PouchDB Server, scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  let couch;
  before(async () => { couch = await startCouch(); });
  after(async () => { await couch?.stop(); });

  /** Settings → Sync: the database, the passphrase, Save and sync; waits until the pass ends. */
  async function setUp(page, db, passphrase, timeout = 30_000) {
    await page.getByTestId('open-settings').click();
    const sync = page.getByTestId('sync');
    await sync.scrollIntoViewIfNeeded();
    await page.getByTestId('sync-url').fill(`${couch.url}/${db}`);
    await page.getByTestId('sync-passphrase').fill(passphrase);
    // Typed twice: the first device creates the encrypted database with it.
    if (passphrase) await page.getByTestId('sync-passphrase-confirm').fill(passphrase);
    await page.getByTestId('sync-save').click();
    await page.getByTestId('sync-status').and(page.locator('[data-state=idle], [data-state=failed]')).waitFor({ timeout });
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
    // A first pass says what it sent; the database's own configuration is not counted as received.
    assert.match(await a.page.getByTestId('sync-status').textContent(), /\d+ sent \(1 conversation, 2 messages[^)]*\), 0 received\./);
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
      // One alternative on screen at a time, over the common start; the
      // other is the other device's answer, whichever is shown first.
      const answers = ['walk through Gion', 'Nishiki Market'];
      const showing = async () => {
        await page.waitForFunction((all) => all.some((w) => document.querySelector('.messages')?.textContent.includes(w)), answers, { timeout: 20_000 });
        const text = await page.locator('.messages').textContent();
        assert.ok(text.includes('Fushimi Inari'), 'the common start stays');
        const shown = answers.filter((w) => text.includes(w));
        assert.equal(shown.length, 1, `one alternative at a time: ${shown}`);
        return shown[0];
      };
      const first = await showing();
      const other = answers.find((w) => w !== first);
      const next = page.getByTestId('branch-next').first();
      await ((await next.isEnabled()) ? next : page.getByTestId('branch-prev').first()).click();
      // Until the other alternative is shown in its place: both answers are there.
      await page.waitForFunction(([o, f]) => {
        const t = document.querySelector('.messages')?.textContent ?? '';
        return t.includes(o) && !t.includes(f);
      }, [other, first], { timeout: 20_000 });
      assert.equal(await showing(), other, 'both answers are there');
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

  test('preferences follow an encrypted sync: the settings and an assistant cross over, the API key stays, a later edit shows on the other device by itself', async () => {
    const a = await h.freshPage();
    await a.page.getByTestId('open-settings').click();
    await a.page.getByTestId('settings-api-key').fill('sk-only-on-the-laptop');
    await a.page.getByTestId('settings-system-prompt').fill('Answer in haiku.');
    await a.page.getByTestId('assistant-new').click();
    await a.page.getByTestId('assistant-name-input').fill('Translator');
    await a.page.getByTestId('assistant-prompt').fill('Translate everything into French.');
    await a.page.getByTestId('assistant-save').click();
    await a.page.getByTestId('settings-save').click();
    await a.page.getByTestId('settings').waitFor({ state: 'detached' });
    await setUp(a.page, 'prefs', 'correct horse battery');
    await settled(a.page);
    await closeSettings(a.page);
    const stored = await (await fetch(`${couch.url}/prefs/_all_docs?include_docs=true`)).text();
    for (const word of ['haiku', 'Translator', 'sk-only']) assert.ok(!stored.includes(word), `${word} on the server`);

    // The second device joins: the database's preferences win over its defaults; its own key is its own.
    const b = await h.freshPage();
    await setUp(b.page, 'prefs', 'correct horse battery');
    await settled(b.page);
    assert.equal(await b.page.getByTestId('settings-system-prompt').inputValue(), 'Answer in haiku.');
    assert.equal(await b.page.getByTestId('settings-api-key').inputValue(), '', 'API keys do not travel unless asked');
    await b.page.getByTestId('assistant-name').filter({ hasText: 'Translator' }).waitFor({ timeout: 10_000 });
    await closeSettings(b.page);
    assert.ok(await b.page.getByTestId('assistant-picker').count() > 0, 'the assistant can be picked here');

    // Edited on the phone: the laptop has it by itself, within seconds, and shows it.
    await b.page.getByTestId('open-settings').click();
    await b.page.getByTestId('settings-system-prompt').fill('Answer in limericks.');
    await b.page.getByTestId('settings-save').click();
    await a.page.waitForFunction(() => (localStorage.getItem('air-agent-settings') || '').includes('limericks'), null, { timeout: 30_000 });
    await a.page.getByTestId('open-settings').click();
    assert.equal(await a.page.getByTestId('settings-system-prompt').inputValue(), 'Answer in limericks.');
    assert.equal(await a.page.getByTestId('settings-api-key').inputValue(), 'sk-only-on-the-laptop', 'the laptop keeps its key');
    await closeSettings(a.page);

    // Both apart, both change the prompt: the later edit holds on both, the other is kept to see until dismissed.
    const prompt = async (d, text) => {
      await d.page.getByTestId('open-settings').click();
      await d.page.getByTestId('settings-system-prompt').fill(text);
      await d.page.getByTestId('settings-save').click();
      await d.page.getByTestId('settings').waitFor({ state: 'detached' });
      await d.page.waitForFunction((t) => (localStorage.getItem('air-agent-settings') || '').includes(t), text);
    };
    for (const d of [a, b]) {
      await d.page.getByTestId('open-settings').click();
      await d.page.getByTestId('sync-pause').click();
      await d.page.getByTestId('sync-status').and(d.page.locator('[data-state=paused]')).waitFor();
      await closeSettings(d.page);
    }
    await prompt(a, 'Answer in sonnets.');
    await b.page.waitForTimeout(50);
    await prompt(b, 'Answer in free verse.');
    for (const d of [a, b, a, b]) {
      await d.page.getByTestId('open-settings').click();
      const status = d.page.getByTestId('sync-status');
      if (await status.getAttribute('data-state') === 'paused') await d.page.getByTestId('sync-pause').click();
      await synced(d.page);
      await closeSettings(d.page);
    }
    let kept = 0;
    for (const d of [a, b]) {
      await d.page.waitForFunction(() => (localStorage.getItem('air-agent-settings') || '').includes('free verse'), null, { timeout: 30_000 });
      await d.page.getByTestId('open-settings').click();
      assert.equal(await d.page.getByTestId('settings-system-prompt').inputValue(), 'Answer in free verse.');
      const conflict = d.page.getByTestId('sync-conflict').filter({ hasText: 'sonnets' });
      if (await conflict.count() > 0) {
        kept++;
        assert.match(await conflict.first().textContent(), /Settings/);
        await conflict.first().getByTestId('sync-dismiss').click();
        await conflict.first().waitFor({ state: 'detached' });
      }
      await closeSettings(d.page);
    }
    assert.ok(kept >= 1, 'the version that lost is shown on a device');
    for (const d of [a, b]) await d.context.close();
  });

  test('one tab of a browser syncs: another says so, shows what it brings, and takes over once it closes', async () => {
    const a = await h.freshPage();
    await setUp(a.page, 'tabs', 'tab words');
    await settled(a.page);
    await closeSettings(a.page);
    const second = await a.context.newPage();
    await openApp(second, h.app.url);
    await second.getByTestId('open-settings').click();
    await second.getByTestId('sync-status').and(second.locator('[data-state=elsewhere]')).waitFor({ timeout: 20_000 });
    assert.match(await second.getByTestId('sync-status').textContent(), /Another tab of this browser is syncing/);
    await closeSettings(second);
    // Another device writes; the syncing tab brings it, and this one shows it.
    const other = await h.freshPage();
    h.model.enqueue(reply.text('Written on another device.'));
    await send(other.page, 'From the phone');
    await other.page.getByText('Written on another device.').waitFor({ timeout: 20_000 });
    await setUp(other.page, 'tabs', 'tab words');
    await second.getByTestId('session-item').filter({ hasText: 'From the phone' }).waitFor({ timeout: 30_000 });
    // The syncing tab closes: this one takes over by itself.
    await a.page.close();
    await second.getByTestId('open-settings').click();
    await second.getByTestId('sync-status').and(second.locator('[data-state=idle]')).waitFor({ timeout: 40_000 });
    await a.context.close();
    await other.context.close();
  });

  test('a server that does not let this page in is said, with the CouchDB settings to paste', async () => {
    // Up, but without CORS: what a fresh CouchDB is.
    const bare = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"couchdb":"Welcome"}');
    });
    await new Promise((ok) => bare.listen(0, '127.0.0.1', ok));
    const a = await h.freshPage();
    try {
      await a.page.getByTestId('open-settings').click();
      await a.page.getByTestId('sync-url').fill(`http://127.0.0.1:${bare.address().port}/chats`);
      await a.page.getByTestId('sync-save').click();
      const status = a.page.getByTestId('sync-status');
      await status.and(a.page.locator('[data-state=failed]')).waitFor({ timeout: 40_000 });
      assert.match(await status.textContent(), /not to this page/);
      const doctor = await a.page.getByTestId('sync-doctor').textContent();
      assert.ok(doctor.includes('enable_cors = true'), doctor);
      assert.ok(doctor.includes(`origins = ${new URL(h.app.url).origin}`), doctor);
      assert.ok(doctor.includes('_node/_local/_config/cors/credentials'), doctor);
    } finally {
      await a.context.close();
      bare.close();
    }
  });

  test('a reload in the middle of a first sync of 1,000 conversations goes on where it stopped', async () => {
    const sessions = Array.from({ length: 1000 }, (_, i) => ({
      id: `s${i}`, title: `Trip ${i}`, createdAt: i + 1, updatedAt: i + 1, messages: [
        { id: `q${i}`, sessionId: `s${i}`, seq: 1, role: 'user', content: `Question ${i}`, timestamp: i + 1 },
        { id: `a${i}`, sessionId: `s${i}`, seq: 2, role: 'assistant', content: `Answer ${i}`, timestamp: i + 2, parent: `q${i}` },
      ],
    }));
    const a = await h.freshPage();
    const doc = { format: 'air-agent-export', version: 2, exportedAt: 0, sessions };
    await a.page.getByTestId('open-settings').click();
    await a.page.getByTestId('import-file').setInputFiles({ name: 'many.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
    await a.page.getByTestId('import-result').getByText(/Imported 1000 conversation/).waitFor({ timeout: 120_000 });
    await a.page.getByTestId('settings-save').click();
    await setUp(a.page, 'many', 'many words', 180_000);
    assert.equal(await a.page.getByTestId('sync-status').getAttribute('data-state'), 'idle', await a.page.getByTestId('sync-status').textContent());
    // 1,000 sessions, 2,000 messages, and the settings.
    assert.match(await a.page.getByTestId('sync-status').textContent(), /3001 sent \(1000 conversations, 2000 messages, the settings\), 0 received/);

    const b = await h.freshPage();
    await b.page.getByTestId('open-settings').click();
    await b.page.getByTestId('sync-url').fill(`${couch.url}/many`);
    await b.page.getByTestId('sync-passphrase').fill('many words');
    await b.page.getByTestId('sync-save').click();
    // Some of it is here: the page goes away.
    const status = b.page.getByTestId('sync-status');
    await b.page.waitForFunction(() => {
      const m = /(\d+) received/.exec(document.querySelector('[data-testid=sync-status]')?.textContent ?? '');
      return m && Number(m[1]) >= 500;
    }, null, { timeout: 180_000 });
    const before = Number(/(\d+) received/.exec(await status.textContent())[1]);
    assert.ok(before < 3000, `still under way: ${before}`);
    await b.page.reload();
    await b.page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
    // Sync goes on by itself, from where it stopped.
    await b.page.getByTestId('open-settings').click();
    await status.and(b.page.locator('[data-state=idle]')).waitFor({ timeout: 180_000 });
    const after = Number(/(\d+) received/.exec(await status.textContent())[1]);
    assert.ok(after <= 3001 - before + 100 && after > 0, `received again after the reload: ${after} (before: ${before})`);
    const count = await b.page.evaluate(() => new Promise((ok, fail) => {
      const r = indexedDB.open('air-agent-db');
      r.onsuccess = () => {
        const q = r.result.transaction('sessions').objectStore('sessions').count();
        q.onsuccess = () => ok(q.result);
        q.onerror = () => fail(q.error);
      };
    }));
    assert.equal(count, 1000);
    await a.context.close();
    await b.context.close();
  });

  test('the server stopped in the middle: sync says so, tries again, and goes on by itself once it is back', async () => {
    const own = await startCouch();
    try {
      const { context, page } = await h.freshPage();
      h.model.enqueue(reply.text('First answer.'));
      await send(page, 'First question');
      await page.getByText('First answer.').waitFor({ timeout: 20_000 });
      await page.getByTestId('open-settings').click();
      await page.getByTestId('sync-url').fill(`${own.url}/chats`);
      await page.getByTestId('sync-passphrase').fill('words');
      await page.getByTestId('sync-passphrase-confirm').fill('words');
      await page.getByTestId('sync-save').click();
      const status = page.getByTestId('sync-status');
      await status.and(page.locator('[data-state=idle]')).waitFor({ timeout: 30_000 });
      await closeSettings(page);
      const docs = async () => (await (await fetch(`${own.url}/chats`)).json()).doc_count;
      const before = await docs();
      await own.stop();
      // Written while the server is gone: the next pass fails, and says when it tries again.
      h.model.enqueue(reply.text('Second answer.'));
      await send(page, 'Second question');
      await page.getByText('Second answer.').waitFor({ timeout: 20_000 });
      await page.getByTestId('open-settings').click();
      await status.and(page.locator('[data-state=failed]')).waitFor({ timeout: 30_000 });
      assert.match(await status.textContent(), /cannot be reached.*Trying again in \d+ s/);
      const back = await startCouch({ dir: own.dir, port: own.port });
      own.stop = back.stop;
      await status.and(page.locator('[data-state=idle]')).waitFor({ timeout: 90_000 });
      assert.equal(await docs(), before + 2, 'the question and the answer written meanwhile are there');
      await context.close();
    } finally {
      await own.stop();
    }
  });

  test('without a passphrase PouchDB reads what the page wrote, the same content, under ids that say nothing', async () => {
    const { context, page } = await h.freshPage();
    h.model.enqueue(reply.text('Sourdough needs a lively starter.'));
    await send(page, 'How do I bake bread?');
    await page.getByText('Sourdough needs a lively starter.').waitFor({ timeout: 20_000 });
    await setUp(page, 'plain', '');
    await closeSettings(page);
    const PouchDB = (await import('../sync/node_modules/pouchdb/lib/index.js')).default;
    const db = new PouchDB(`${couch.url}/plain`);
    const all = (await db.allDocs({ include_docs: true })).rows.map((r) => r.doc);
    const config = all.find((d) => d._id === 'air-sync-config');
    assert.equal(config.encrypted, false);
    const answer = all.find((d) => d.k === 'message' && d.v.role === 'assistant');
    assert.ok(answer, JSON.stringify(all.map((d) => d._id)));
    assert.equal(answer.v.content, 'Sourdough needs a lively starter.');
    assert.match(answer._id, /^[0-9a-f]{32}$/);
    assert.ok(!('branch' in answer.v) && !('rev' in answer.v), 'what stays on the device does not travel');
    const question = all.find((d) => d.k === 'message' && d.v.role === 'user');
    assert.equal(answer.v.parent, question.id, 'the answer names the question it follows');
    const session = all.find((d) => d.k === 'session');
    assert.equal(session.v.title, 'How do I bake bread?');
    await context.close();
  });
});

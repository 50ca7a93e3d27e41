// Export / import, long sessions in pages, a full quota, Transitive
// Thinking and the Chinese UI.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configure, openApp, scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

describe('data and options', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);

  const freshPage = () => h.freshPage({ acceptDownloads: true });

  async function exportAll(page) {
    await page.getByTestId('open-settings').click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-all').click()]);
    const json = JSON.parse(readFileSync(await download.path(), 'utf8'));
    await page.getByTestId('open-settings').click({ trial: true }).catch(() => {});
    return json;
  }

  test('one conversation as Markdown, with its tool call summarised', async () => {
    const { context, page } = await freshPage();
    h.model.enqueue(reply.calls([{ id: 'k1', name: 'calculator', arguments: '{"expression": "23*17"}' }]), reply.text('23 × 17 = **391**.'));
    await send(page, 'What is 23 * 17?');
    await page.getByText('23 × 17 = 391.').waitFor({ timeout: 20_000 });
    await page.getByTestId('open-settings').click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
    assert.match(download.suggestedFilename(), /^air-agent-conversation-\d{4}-\d\d-\d\d\.md$/);
    const md = readFileSync(await download.path(), 'utf8');
    assert.equal(md, [
      '# What is 23 * 17?',
      '',
      '## You',
      '',
      'What is 23 * 17?',
      '',
      '> **Tool** `calculator`: done',
      '>',
      '> Arguments: `{"expression": "23*17"}`',
      '>',
      '> Result: 23*17 = 391',
      '',
      '## Assistant (scripted-model)',
      '',
      '23 × 17 = **391**.',
      '',
    ].join('\n'));
    await context.close();
  });

  test('an imported conversation runs nothing: unfinished calls come in interrupted, and Run again asks', async () => {
    const doc = {
      format: 'air-agent-export', version: 2, exportedAt: 0,
      sessions: [{ id: 'imp', title: 'Imported', createdAt: 1, updatedAt: 1, messages: [
        { id: 'u', sessionId: 'imp', seq: 1, role: 'user', content: 'What is 6*7?', timestamp: 1 },
        { id: 'a', sessionId: 'imp', seq: 2, role: 'assistant', content: '', timestamp: 2,
          toolCalls: [{ id: 'k', name: 'calculator', arguments: '{"expression": "6*7"}' }] },
        { id: 't', sessionId: 'imp', seq: 3, role: 'tool', content: '', timestamp: 3, toolCallId: 'k', name: 'calculator',
          tool: { name: 'calculator', arguments: '{"expression": "6*7"}', status: 'awaitingApproval' } },
      ] }],
    };
    const asked = h.model.requests.length;
    const { context, page } = await h.importedPage(doc);
    const card = page.getByTestId('tool-card');
    await card.waitFor({ timeout: 10_000 });
    assert.equal(await card.getAttribute('data-status'), 'interrupted');
    assert.equal(await card.getByTestId('tool-status').textContent(), 'Interrupted');
    await page.waitForTimeout(1500);
    assert.equal(h.model.requests.length, asked, 'no model request');
    assert.equal(await page.getByTestId('tool-approval').count(), 0, 'nothing asked, nothing run');
    // The calculator runs without asking, but not a call the file made.
    await card.getByTestId('run-again').click();
    await page.getByTestId('approve-once').waitFor({ timeout: 10_000 });
    h.model.enqueue(reply.text('Fine, not computed.'));
    await page.getByTestId('deny').click();
    await page.getByText('Fine, not computed.').waitFor({ timeout: 20_000 });
    await context.close();
  });

  test('export → delete → import restores every conversation exactly', async () => {
    const { context, page } = await freshPage();
    h.model.enqueue(reply.text('First **answer**.'), reply.text('Second answer.'));
    await send(page, 'First question');
    await page.getByText('First answer.').waitFor({ timeout: 20_000 });
    await page.getByTestId('new-session').click();
    await send(page, 'Second question');
    await page.getByText('Second answer.').waitFor({ timeout: 20_000 });
    await page.getByTestId('open-settings').click();
    await page.getByTestId('settings-api-key').fill('sk-do-not-leak');
    await page.getByTestId('settings-save').click();

    const exported = await exportAll(page);
    assert.equal(exported.format, 'air-agent-export');
    assert.equal(exported.sessions.length, 2);
    assert.equal(exported.sessions.flatMap((s) => s.messages).length, 4);
    assert.ok(!JSON.stringify(exported).includes('sk-do-not-leak'), 'secrets stay out unless asked for');
    // Esc closes Settings.
    await page.keyboard.press('Escape');
    await page.getByTestId('settings').waitFor({ state: 'detached' });

    // Delete both for good.
    for (let i = 0; i < 2; i++) {
      const item = page.getByTestId('session-item').first();
      await item.hover();
      await item.getByTestId('delete-session').click();
    }
    await page.getByTestId('undo-toast').waitFor({ state: 'detached', timeout: 15_000 });
    await page.reload();
    await page.getByTestId('session-creator').waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('session-item').count(), 0);

    // Import the file back.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('import-file').setInputFiles({ name: 'export.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(exported)) });
    await page.getByTestId('import-result').getByText('Imported 2 conversation(s) with 4 message(s).').waitFor({ timeout: 10_000 });
    await page.getByTestId('settings-save').click();
    assert.equal(await page.getByTestId('session-item').count(), 2);

    const again = await exportAll(page);
    assert.deepEqual(again.sessions, exported.sessions, 'the round trip is lossless');

    // A file that is not an export is refused with a reason, and nothing changes.
    await page.getByTestId('import-file').setInputFiles({ name: 'x.json', mimeType: 'application/json', buffer: Buffer.from('{"hello":1}') });
    await page.getByTestId('import-result').getByText(/not an Air Agent export/).waitFor();
    await context.close();
  });

  test('a ChatGPT export comes in with its branches, the one ChatGPT showed shown, and is found by search', async () => {
    const { context, page } = await freshPage();
    const m = (role, text, t) => ({ id: 'x', author: { role }, create_time: t, content: { content_type: 'text', parts: [text] }, weight: 1, metadata: {} });
    // As ChatGPT writes it: a root without a message, a hidden system
    // prompt, a regenerated answer (the older one is the one shown), no
    // `children` (slim), and a second conversation without a title.
    const mapping = {
      root: { id: 'root', message: null, parent: null },
      sys: { id: 'sys', message: { ...m('system', 'You are ChatGPT', null), weight: 0 }, parent: 'root' },
      q: { id: 'q', message: m('user', 'Name a lighthouse in Brittany', 1700000000), parent: 'sys' },
      a1: { id: 'a1', message: m('assistant', 'Phare du Creac’h on Ouessant 【1†source】', 1700000001), parent: 'q' },
      a2: { id: 'a2', message: m('assistant', 'The Eckmühl lighthouse at Penmarc’h, said the cormorant', 1700000100), parent: 'q' },
    };
    const other = { id: 'c2', title: null, mapping: { n: { id: 'n', message: m('user', 'Bonjour 😀', 1700000200), parent: null } } };
    const file = [{ id: 'c1', title: 'Brittany lighthouses', create_time: 1700000000, mapping, current_node: 'a1', default_model_slug: 'gpt-4o' }, other];
    await page.getByTestId('open-settings').click();
    const drop = () => page.getByTestId('import-file').setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
    await drop();
    await page.getByTestId('import-result').getByText(/^Imported 2 conversation\(s\) with 4 message\(s\) from ChatGPT\. 1 hidden message/).waitFor({ timeout: 10_000 });
    // The same file again adds nothing.
    await drop();
    await page.getByTestId('import-result').getByText('Nothing new from ChatGPT: its 2 conversation(s) are here already.').waitFor({ timeout: 10_000 });
    await page.getByTestId('settings-save').click();
    await page.getByTestId('session-item').filter({ hasText: 'Brittany lighthouses' }).locator('.session-title').click();
    await page.getByText('Phare du Creac’h on Ouessant', { exact: true }).waitFor({ timeout: 10_000 });
    assert.equal(await page.getByText('said the cormorant').count(), 0, 'the other answer is a branch, not shown');
    assert.match(await page.getByTestId('branch-pos').getAttribute('aria-label'), /1.*2/);
    assert.equal(await page.getByTestId('session-item').filter({ hasText: 'Bonjour' }).count(), 1, 'titled from its question');
    // The answer that is not shown is found, and opened.
    await page.getByTestId('session-search').fill('cormorant');
    const result = page.getByTestId('search-result');
    await result.first().waitFor({ timeout: 15_000 });
    assert.equal(await result.locator('.search-title').textContent(), 'Brittany lighthouses');
    await result.first().click();
    await page.locator('.message.found').filter({ hasText: 'said the cormorant' }).waitFor({ timeout: 10_000 });
    await context.close();
  });

  /** A ZIP of `files` ({name: text}), deflated, as the apps' exports are (Python's zipfile). */
  function zip(files) {
    const dir = mkdtempSync(join(tmpdir(), 'air-zip-'));
    writeFileSync(join(dir, 'files.json'), JSON.stringify(files));
    const out = join(dir, 'export.zip');
    execFileSync('python3', ['-c', 'import json,sys,zipfile\nz=zipfile.ZipFile(sys.argv[2],"w",zipfile.ZIP_DEFLATED)\nfor n,t in json.load(open(sys.argv[1])).items(): z.writestr(n,t)\nz.close()', join(dir, 'files.json'), out]);
    return readFileSync(out);
  }

  test('exports of Claude (its ZIP), ChatGPT (split parts in a ZIP) and NextChat (with a key) come in, each said, no key kept', async () => {
    const { context, page } = await freshPage();
    await page.getByTestId('open-settings').click();
    const result = page.getByTestId('import-result');
    const claude = [{
      uuid: 'k1', name: 'Tide tables', created_at: '2024-03-01T10:00:00.123456Z', updated_at: '2024-03-01T10:05:00Z', chat_messages: [
        { uuid: 'u1', sender: 'human', text: 'When is high tide at Saint-Malo?', content: [], created_at: '2024-03-01T10:00:00Z', parent_message_uuid: '00000000-0000-4000-8000-000000000000' },
        { uuid: 'a1', sender: 'assistant', text: '', created_at: '2024-03-01T10:00:05Z', parent_message_uuid: 'u1',
          content: [{ type: 'thinking', thinking: 'Tides follow the moon.' }, { type: 'text', text: 'High tide is at 14:32, said the harbour master.' }] },
      ],
    }];
    await page.getByTestId('import-file').setInputFiles({ name: 'data-2024-03-01.zip', mimeType: 'application/zip', buffer: zip({ 'conversations.json': JSON.stringify(claude), 'users.json': '[]' }) });
    await result.getByText(/^Imported 1 conversation\(s\) with 2 message\(s\) from Claude\.$/).waitFor({ timeout: 15_000 });

    const m = (role, text, t) => ({ id: 'x', author: { role }, create_time: t, content: { content_type: 'text', parts: [text] }, weight: 1, metadata: {} });
    const part = (id, text) => JSON.stringify([{ id, title: `Part ${id}`, create_time: 1700000000, mapping: { n: { id: 'n', message: m('user', text, 1700000001), parent: null } }, current_node: 'n' }]);
    await page.getByTestId('import-file').setInputFiles({ name: 'chatgpt.zip', mimeType: 'application/zip',
      buffer: zip({ 'conversations-000.json': part('p0', 'first of the split'), 'conversations-001.json': part('p1', 'second of the split'), 'chat.html': '<html></html>' }) });
    await result.getByText(/^Imported 2 conversation\(s\) with 2 message\(s\) from ChatGPT\.$/).waitFor({ timeout: 15_000 });

    const key = 'sk-never-import-0123456789abcdef';
    const nextchat = {
      'chat-next-web-store': { sessions: [{ id: 'n1', topic: 'Sourdough', memoryPrompt: '', lastUpdate: 1700000000000, mask: { name: 'Baker', context: [] },
        messages: [{ id: 'q', role: 'user', content: 'How long to proof?', date: '2023/11/14 22:13:20' }, { id: 'r', role: 'assistant', content: 'Overnight, in the fridge.', date: '2023/11/14 22:13:25', model: 'gpt-4o' }] }] },
      'access-control': { openaiApiKey: key, accessCode: '' },
    };
    await page.getByTestId('import-file').setInputFiles({ name: 'backup.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(nextchat)) });
    await result.getByText(/^Imported 1 conversation\(s\) with 2 message\(s\) from NextChat\. API keys and settings in the file were not imported\.$/).waitFor({ timeout: 15_000 });
    // Nothing of the key anywhere: not in the settings, not in what is stored.
    assert.ok(!JSON.stringify(await page.evaluate(() => ({ ...localStorage }))).includes(key));
    await page.getByTestId('settings-save').click();
    const all = await exportAll(page);
    assert.ok(!JSON.stringify(all).includes(key));
    assert.deepEqual(all.sessions.map((s) => s.title).sort(), ['Part p0', 'Part p1', 'Sourdough', 'Tide tables']);
    await page.keyboard.press('Escape');
    await page.getByTestId('session-item').filter({ hasText: 'Tide tables' }).locator('.session-title').click();
    await page.getByText('High tide is at 14:32, said the harbour master.').waitFor({ timeout: 10_000 });
    await context.close();
  });

  test('a long session opens on its last page, keeps only what is near the view in the page, and reads earlier messages as the reader scrolls up', async () => {
    const { context, page } = await freshPage();
    const messages = Array.from({ length: 250 }, (_, i) => ({
      id: `m${i}`, sessionId: 'long', seq: 1000 + i, role: i % 2 ? 'assistant' : 'user', content: `Message number ${i}`, timestamp: 1000 + i,
    }));
    const doc = { format: 'air-agent-export', version: 1, exportedAt: 1, sessions: [{ id: 'long', title: 'Long one', createdAt: 1, updatedAt: 9e12, messages }] };
    await page.getByTestId('open-settings').click();
    await page.getByTestId('import-file').setInputFiles({ name: 'long.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
    await page.getByTestId('import-result').getByText(/Imported 1 conversation/).waitFor();
    await page.getByTestId('settings-save').click();
    await page.getByTestId('session-item').filter({ hasText: 'Long one' }).locator('.session-title').click();
    await page.getByText('Message number 249', { exact: true }).waitFor({ timeout: 20_000 });
    const scroller = page.getByTestId('messages');
    // At the end, and only the messages near the view are in the page.
    assert.ok(await scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 2));
    const drawn = await page.getByTestId('message-text').count();
    assert.ok(drawn > 10 && drawn < 80, `${drawn} messages in the page`);
    // Scrolling up, a screen at a time: older pages are read as the view
    // nears the top, and each step moves what was read by the step exactly
    // (nothing jumps as messages are drawn, measured or read above).
    const steps = [];
    for (let i = 0; i < 300 && !(await page.getByText('Message number 0', { exact: true }).count()); i++) {
      steps.push(await scroller.evaluate(async (el) => {
        const view = el.getBoundingClientRect().top;
        const row = [...el.querySelectorAll('[data-row]')].find((r) => r.getBoundingClientRect().bottom > view + 1);
        const by = Math.min(el.scrollTop, Math.round(el.clientHeight * 0.9));
        const y0 = row.getBoundingClientRect().top;
        el.scrollTop -= by;
        const frame = () => new Promise((r) => requestAnimationFrame(r));
        const jump = () => (row.isConnected ? Math.abs(row.getBoundingClientRect().top - y0 - by) : null);
        await frame();
        await frame();
        await frame();
        // A page read that lands in this very frame is put in place by the
        // app's own callback later in the frame, before it is painted: what
        // counts is what the next frame shows.
        if (jump() === null || jump() >= 2) await frame();
        return { id: row.dataset.row, jump: jump() };
      }));
    }
    await page.getByText('Message number 0', { exact: true }).waitFor({ timeout: 10_000 });
    await page.getByTestId('load-older').waitFor({ state: 'detached' });
    const moved = steps.filter((s) => s.jump === null || s.jump >= 2);
    assert.deepEqual(moved, [], `${steps.length} steps`);
    assert.ok(steps.length > 20, `${steps.length} steps`);
    const drawnAtTop = await page.getByTestId('message-text').count();
    assert.ok(drawnAtTop < 80, `${drawnAtTop} messages in the page`);
    // And back to the end: the last message is drawn again.
    await scroller.evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await page.getByText('Message number 249', { exact: true }).waitFor({ timeout: 10_000 });
    // A window made much taller shows more: rows are drawn to fill it.
    const frames = () => scroller.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
    const size = page.viewportSize();
    await page.setViewportSize({ width: size.width, height: 300 });
    await frames();
    await scroller.evaluate((el) => { el.scrollTop -= 2500; });
    await frames();
    await page.setViewportSize({ width: size.width, height: 2000 });
    await frames();
    const cover = await scroller.evaluate((el) => {
      const view = el.getBoundingClientRect();
      const rows = [...el.querySelectorAll('[data-row]')].map((r) => r.getBoundingClientRect()).filter((r) => r.height > 0);
      return { top: rows[0].top <= view.top + 1, bottom: rows.at(-1).bottom >= Math.min(view.bottom, view.top + el.scrollHeight - el.scrollTop) - 20 };
    });
    assert.deepEqual(cover, { top: true, bottom: true });
    await page.setViewportSize(size);

    // The model still gets the whole conversation, not just the loaded pages.
    h.model.enqueue(reply.text('Read it all.'));
    const before = h.model.requests.length;
    await page.reload();
    await page.getByText('Message number 249', { exact: true }).waitFor({ timeout: 20_000 });
    await send(page, 'Summarise');
    await page.getByText('Read it all.').waitFor({ timeout: 20_000 });
    assert.equal(h.model.requests[before].body.messages.length, 251);
    await context.close();
  });

  test('while the database cannot open yet the page says it is loading, and opens once it can', async () => {
    const context = await h.browser.newContext();
    // Another page of this site holds the database open at an older
    // version and does not let go (a tab of an earlier version): the
    // app's upgrade waits for it.
    const holder = await context.newPage();
    await holder.goto(`${h.app.url}/manifest.webmanifest`);
    await holder.evaluate(() => new Promise((resolve, reject) => {
      const r = indexedDB.open('air-agent-db', 1);
      r.onsuccess = () => { window.held = r.result; resolve(); };
      r.onerror = () => reject(r.error);
    }));
    const page = await context.newPage();
    await page.goto(h.app.url);
    const loading = page.getByTestId('loading');
    await loading.waitFor({ timeout: 30_000 });
    assert.equal((await loading.textContent()).trim(), 'Opening your conversations…');
    await page.waitForTimeout(1000);
    assert.equal(await loading.isVisible(), true, 'still loading while the database is held');
    assert.equal(await page.getByTestId('composer-input').count(), 0);
    // Let go: the app opens, upgrades the database and works.
    await holder.evaluate(() => window.held.close());
    await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
    assert.equal(await loading.count(), 0);
    await configure(page, { baseUrl: h.model.baseUrl, model: 'scripted-model' });
    h.model.enqueue(reply.text('Opened after the wait.'));
    await send(page, 'Are you there?');
    await page.getByText('Opened after the wait.').waitFor({ timeout: 20_000 });
    await page.reload();
    await page.getByTestId('session-item').first().waitFor({ timeout: 20_000 });
    await context.close();
  });

  test('a full quota gives a clear message and keeps the typed text', async () => {
    const { context, page } = await freshPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: h.app.url, quotaSize: 1 });
    await page.getByTestId('composer-input').fill('This must not be lost');
    await page.getByTestId('composer-input').press('Enter');
    await page.getByTestId('notice').waitFor({ timeout: 20_000 });
    assert.match(await page.getByTestId('notice').textContent(), /Storage is full/);
    assert.equal(await page.getByTestId('composer-input').inputValue(), 'This must not be lost');
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: h.app.url });
    await context.close();
  });

  test('Transitive Thinking stores a collapsed reasoning chain and gives it to the answer', async () => {
    const { context, page } = await freshPage();
    await page.getByTestId('open-settings').click();
    await page.getByTestId('settings-transitive').check();
    await page.getByTestId('settings-save').click();
    h.model.enqueue(reply.text('91 = 7 × 13, so it is not prime.'), reply.text('No, 91 is not prime.'));
    const before = h.model.requests.length;
    await send(page, 'Is 91 prime?');
    await page.getByText('No, 91 is not prime.').waitFor({ timeout: 20_000 });
    const thought = page.getByTestId('transitive-thought');
    assert.equal(await thought.count(), 1);
    assert.equal(await thought.evaluate((d) => d.open), false, 'shown collapsed');
    const [first, second] = h.model.requests.slice(before).map((r) => r.body.messages);
    // One system message, first (chat templates refuse a later one).
    assert.match(first[0].content, /Write only this reasoning chain/);
    assert.equal(first.filter((m) => m.role === 'system').length, 1);
    assert.deepEqual(first.at(-1), { role: 'user', content: 'Is 91 prime?' });
    assert.equal(second[0].role, 'system');
    assert.match(second[0].content, /91 = 7 × 13/);
    assert.deepEqual(second.slice(1), [{ role: 'user', content: 'Is 91 prime?' }]);
    await page.reload();
    await page.getByTestId('transitive-thought').waitFor({ timeout: 20_000 });
    await context.close();
  });

  test('the whole UI switches to Chinese', async () => {
    const { context, page } = await freshPage();
    await page.getByTestId('open-settings').click();
    await page.getByTestId('settings-language').selectOption('zh');
    await page.getByTestId('settings-save').click();
    assert.equal(await page.getByTestId('new-session').textContent(), '+ 新对话');
    assert.equal(await page.getByTestId('session-creator').locator('h2').textContent(), '有什么可以帮你？');
    assert.equal(await page.getByTestId('composer-input').getAttribute('placeholder'), '输入问题…（Enter 发送，Shift+Enter 换行，Esc 停止）');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
    h.model.enqueue(reply.error(401, { error: { message: 'Invalid API Key' } }));
    await send(page, '你好');
    await page.getByTestId('message-error').waitFor({ timeout: 20_000 });
    assert.match(await page.getByTestId('message-error').textContent(), /API 密钥被拒绝/);
    await page.reload();
    await page.getByTestId('open-settings').click();
    assert.equal(await page.locator('[data-testid=settings] h2').textContent(), '设置');
    await context.close();
  });
});

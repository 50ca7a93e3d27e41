// Conversation flows against a scripted model server: rendering and XSS,
// crash safety, two tabs, session management, edit/regenerate, retries.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointed, configure, openApp, ROOT, scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

const XSS = readFileSync(join(ROOT, 'tests/fixtures/xss.txt'), 'utf8').split('\n====\n').map((s) => s.trimEnd());

describe('conversations (scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);

  const freshPage = () => h.freshPage();

  /** Two tabs of one profile on one session: tab A asks `question`, gets
   * `answer`, and tab B opens and shows it. */
  async function twoTabs(question, answer) {
    const { context, page: a } = await freshPage();
    h.model.enqueue(reply.text(answer));
    await send(a, question);
    await a.getByText(answer).waitFor({ timeout: 20_000 });
    const b = await context.newPage();
    await openApp(b, h.app.url);
    await b.getByText(answer).waitFor({ timeout: 20_000 });
    return { context, a, b };
  }

  async function lastAnswerText(page) {
    const answer = page.getByTestId('message-assistant').last();
    await answer.waitFor({ timeout: 20_000 });
    return (await answer.getByTestId('message-text').textContent()).trim();
  }

  test('Markdown renders, and no model or user text ever runs as HTML', async () => {
    const { context, page, errors } = await freshPage();
    const dialogs = [];
    page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
    const markdown = [
      '# Heading', '', '| lang | year |', '|---|--:|', '| Rust | 2015 |', '',
      '- [x] done', '- [ ] todo', '', '~~old~~ and **bold**', '',
      '```rust', 'fn main() { println!("hi"); }', '```', '', '[safe link](https://example.com/x)', '',
    ].join('\n');
    const hostile = XSS.join('\n\n');
    h.model.enqueue(reply.text(`${markdown}\n${hostile}`, { pieces: 40 }));
    // The user's own message carries payloads too (and becomes the title).
    await send(page, `<img src=x onerror="window.__xss=1"> ${XSS.slice(0, 5).join(' ')}`);
    await page.getByTestId('message-assistant').waitFor({ timeout: 20_000 });

    const msg = page.getByTestId('message-assistant').last();
    assert.equal(await msg.locator('h1').textContent(), 'Heading');
    assert.equal(await msg.locator('table td').first().textContent(), 'Rust');
    assert.equal(await msg.locator('input[type=checkbox]:checked').count(), 1);
    assert.equal(await msg.locator('del').textContent(), 'old');
    assert.match(await msg.locator('.code-block .tok-keyword').first().textContent(), /fn/);
    const link = msg.locator('a', { hasText: 'safe link' });
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    assert.equal(await link.getAttribute('target'), '_blank');

    // Nothing executed, nothing live was injected anywhere in the page.
    const report = await page.evaluate(() => {
      const all = [...document.querySelectorAll('#messages, [data-testid=messages] *, [data-testid=sidebar] *')];
      return {
        xss: window.__xss ?? null,
        scripts: document.querySelectorAll('[data-testid=messages] script, [data-testid=sidebar] script').length,
        dangerous: document.querySelectorAll('[data-testid=messages] :is(img,iframe,object,embed,svg,math,form,style,base,video,details)').length,
        handlers: all.filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).map((el) => el.outerHTML.slice(0, 80)),
        badLinks: [...document.querySelectorAll('[data-testid=messages] a')].map((a) => a.getAttribute('href')).filter((h) => !/^(https?:|mailto:)/i.test(h ?? '')),
      };
    });
    assert.deepEqual(report, { xss: null, scripts: 0, dangerous: 0, handlers: [], badLinks: [] });
    assert.deepEqual(dialogs, []);
    // The payloads are visible as text, so nothing was silently dropped.
    assert.match(await msg.textContent(), /<script>alert\(1\)<\/script>/);
    assert.match(await page.getByTestId('message-user').textContent(), /onerror="window.__xss=1"/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('math is typeset as MathML; a bad formula stays source, and markup inside a formula stays text', async () => {
    const { context, page, errors } = await freshPage();
    const dialogs = [];
    page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
    const text = [
      'Euler: $e^{i\\pi} + 1 = 0$ and \\(a^2 + b^2 = c^2\\).', '',
      '$$\\int_0^1 x^2\\,dx = \\frac{1}{3}$$', '',
      '\\[\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}\\]', '',
      'Broken: $\\frac{1}$ stays.', '',
      'Hostile: $\\operatorname{</mi></math><img src=x onerror="window.__xss=1">}$ and $\\text{<script>window.__xss=2</script>}$.', '',
      'Prices: \\$5 and \\$10.', '',
      'Code: `$not math$`.',
    ].join('\n');
    h.model.enqueue(reply.text(text, { pieces: 12 }));
    await send(page, 'Math please');
    await page.getByTestId('regenerate').waitFor({ timeout: 20_000 });
    const look = async () => {
      await page.waitForFunction(() => {
        const m = [...document.querySelectorAll('[data-testid=message-assistant]')].pop();
        return m && m.querySelectorAll('[data-math]').length > 0 && m.querySelectorAll('[data-math]:not([data-typeset])').length === 0;
      }, null, { timeout: 20_000 });
      return page.getByTestId('message-assistant').last().evaluate((el) => ({
        formulas: el.querySelectorAll('[data-math]').length,
        mathml: el.querySelectorAll('[data-typeset=mathml] > math').length,
        display: el.querySelectorAll('math[display=block]').length,
        fractions: el.querySelectorAll('mfrac').length,
        source: [...el.querySelectorAll('[data-typeset=source]')].map((m) => m.textContent),
        text: el.textContent,
        code: el.querySelector('code')?.textContent,
      }));
    };
    const shown = await look();
    assert.equal(shown.formulas, 7, JSON.stringify(shown));
    // The \\operatorname one carries markup: refused, shown as source.
    assert.equal(shown.mathml, 5, JSON.stringify(shown));
    assert.equal(shown.display, 2);
    assert.equal(shown.fractions, 2);
    assert.deepEqual(shown.source, ['\\frac{1}', '\\operatorname{</mi></math><img src=x onerror="window.__xss=1">}']);
    assert.match(shown.text, /Prices: \$5 and \$10\./);
    assert.match(shown.text, /window\.__xss=2/, 'the hostile text is shown as text');
    assert.equal(shown.code, '$not math$');
    const report = await page.evaluate(() => ({
      xss: window.__xss ?? null,
      live: document.querySelectorAll('[data-testid=messages] :is(img,script,iframe,svg,style)').length,
      handlers: [...document.querySelectorAll('[data-testid=messages] *')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
      mathOutside: [...document.querySelectorAll('[data-testid=messages] math')].filter((m) => !m.parentElement.matches('[data-typeset=mathml]')).length,
    }));
    assert.deepEqual(report, { xss: null, live: 0, handlers: 0, mathOutside: 0 });
    assert.deepEqual(dialogs, []);
    // The same once read back from the store.
    await page.reload();
    assert.deepEqual(await look(), shown);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('\\color and \\colorbox colour a formula, though the page allows no inline styles', async () => {
    const { context, page, errors } = await freshPage();
    h.model.enqueue(reply.text('Coloured: ${\\color{red} x} + \\textcolor{blue}{y} = \\colorbox{yellow}{z}$.'));
    await send(page, 'Colours please');
    await page.getByTestId('regenerate').waitFor({ timeout: 20_000 });
    const look = async () => {
      await page.waitForFunction(() => {
        const m = [...document.querySelectorAll('[data-testid=message-assistant]')].pop();
        return m?.querySelector('[data-typeset=mathml] > math');
      }, null, { timeout: 20_000 });
      return page.getByTestId('message-assistant').last().evaluate((el) => {
        const math = el.querySelector('[data-typeset=mathml] > math');
        const colour = (selector) => getComputedStyle(math.querySelector(selector)).color;
        return {
          x: colour('[mathcolor] mi'),
          y: [...math.querySelectorAll('[mathcolor]')].map((e) => getComputedStyle(e).color),
          z: getComputedStyle(math.querySelector('[mathbackground]')).backgroundColor,
          plain: getComputedStyle(math.querySelector('mo')).color !== 'rgb(255, 0, 0)',
          styles: math.querySelectorAll('[style]').length,
        };
      });
    };
    const shown = await look();
    assert.deepEqual(shown, { x: 'rgb(255, 0, 0)', y: ['rgb(255, 0, 0)', 'rgb(0, 0, 255)'], z: 'rgb(255, 255, 0)', plain: true, styles: 0 });
    await page.reload();
    assert.deepEqual(await look(), shown);
    // No style was refused by the page's policy on the way.
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('an HTML or SVG code block can be previewed in a sandbox that cannot reach the app', async () => {
    const { context, page, errors } = await freshPage();
    const probe = [
      '<!doctype html><title>probe</title><pre id="out"></pre><script>',
      'const out = [];',
      'const tryIt = (name, f) => { try { out.push(name + ": " + f()); } catch (e) { out.push(name + ": blocked " + e.name); } };',
      'tryIt("origin", () => String(window.origin));',
      'tryIt("localStorage", () => localStorage.getItem("air-agent-settings"));',
      'tryIt("indexedDB", () => indexedDB.open("air-agent-db") && "opened");',
      'tryIt("cookie", () => document.cookie);',
      'tryIt("parent", () => parent.document.title);',
      'tryIt("top", () => top.location.href);',
      'document.getElementById("out").textContent = out.join("\\n");',
      'fetch("/index.html").then(() => { document.getElementById("out").textContent += "\\nfetch: allowed"; }, (e) => { document.getElementById("out").textContent += "\\nfetch: blocked " + e.name; });',
      '</script>',
    ].join('\n');
    h.model.enqueue(reply.text('A page:\n\n```html\n' + probe + '\n```\n\nA drawing:\n\n```svg\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><circle id="dot" cx="10" cy="10" r="8" fill="teal"/></svg>\n```\n\nAnd JavaScript:\n\n```js\nalert(1)\n```'));
    await send(page, 'Show me a page');
    await page.getByTestId('regenerate').waitFor({ timeout: 20_000 });
    const answer = page.getByTestId('message-assistant').last();
    assert.equal(await answer.locator('[data-preview-code]').count(), 2, 'HTML and SVG only');
    await answer.locator('[data-preview-code]').first().click();
    const frame = answer.getByTestId('code-preview');
    await frame.waitFor();
    assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
    const inner = page.frameLocator('[data-testid=code-preview]').frameLocator('iframe');
    await inner.locator('#out').filter({ hasText: 'fetch:' }).waitFor({ timeout: 20_000 });
    const report = await inner.locator('#out').textContent();
    assert.match(report, /origin: null/);
    assert.match(report, /localStorage: blocked SecurityError/);
    assert.match(report, /indexedDB: blocked SecurityError/);
    assert.match(report, /cookie: blocked SecurityError/);
    assert.match(report, /parent: blocked SecurityError/);
    assert.match(report, /top: blocked SecurityError/);
    assert.match(report, /fetch: blocked TypeError/);
    // The app itself is untouched, and the button hides the preview again.
    assert.ok(await page.evaluate(() => localStorage.getItem('air-agent-settings')));
    await answer.locator('[data-preview-code]').first().click();
    await frame.waitFor({ state: 'detached' });
    // The SVG is drawn.
    await answer.locator('[data-preview-code]').nth(1).click();
    await page.frameLocator('[data-testid=code-preview]').frameLocator('iframe').locator('#dot').waitFor({ timeout: 20_000 });
    assert.deepEqual(errors.filter((e) => !/Content Security Policy|Failed to fetch|Refused to connect/.test(e)), []);
    await context.close();
  });

  test('a reload mid-answer keeps the partial text, marked incomplete, and Continue finishes it', async () => {
    const { context, page } = await freshPage();
    h.model.enqueue(reply.hanging('Part one of a long answer. '.repeat(6), { pieces: 30, delayMs: 80 }));
    await send(page, 'Tell me something long');
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="message-streaming"] [data-testid="message-text"]');
      return el && el.textContent.length > 60;
    }, null, { timeout: 20_000 });
    // Once a checkpoint (every ~500 ms) has landed, the page is killed.
    await checkpointed(page, 20);
    const seen = (await page.getByTestId('message-streaming').getByTestId('message-text').textContent()).trim();
    await page.reload();
    const restored = page.getByTestId('message-assistant').last();
    await restored.getByTestId('message-incomplete').waitFor({ timeout: 20_000 });
    const partial = (await restored.getByTestId('message-text').textContent()).trim();
    assert.ok(partial.length > 20 && seen.startsWith(partial.slice(0, 20)), `restored ${JSON.stringify(partial)} from ${JSON.stringify(seen)}`);
    await restored.getByTestId('regenerate').waitFor();

    h.model.enqueue(reply.text(' And that is the end.'));
    const before = h.model.requests.length;
    await restored.getByTestId('continue').click();
    await page.getByTestId('message-assistant').last().getByText('And that is the end.').waitFor({ timeout: 20_000 });
    const done = page.getByTestId('message-assistant').last();
    assert.equal(await done.getByTestId('message-incomplete').count(), 0);
    assert.ok((await done.getByTestId('message-text').textContent()).trim().startsWith(partial.slice(0, 20)));
    // The continuation request carried the partial answer as the last message.
    const sent = h.model.requests[before].body.messages;
    assert.equal(sent.at(-1).role, 'assistant');
    assert.ok(sent.at(-1).content.startsWith(partial.slice(0, 20)));
    await context.close();
  });

  test('two tabs writing to the same session lose nothing', async () => {
    const { context, a, b } = await twoTabs('Question from tab A', 'Answer for tab A.');
    // Both tabs now write to the same session, B first, then A (whose view is older).
    h.model.enqueue(reply.text('Answer for tab B.'));
    await send(b, 'Question from tab B');
    await b.getByText('Answer for tab B.').waitFor({ timeout: 20_000 });
    // Tab A shows tab B's turn without a reload.
    await a.getByText('Answer for tab B.').waitFor({ timeout: 10_000 });
    h.model.enqueue(reply.text('Second answer for tab A.'));
    await send(a, 'Second question from tab A');
    await a.getByText('Second answer for tab A.').waitFor({ timeout: 20_000 });

    await b.reload();
    await b.getByText('Second answer for tab A.').waitFor({ timeout: 20_000 });
    const texts = await b.getByTestId('message-text').allTextContents();
    for (const t of ['Question from tab A', 'Answer for tab A.', 'Question from tab B', 'Answer for tab B.', 'Second question from tab A', 'Second answer for tab A.']) {
      assert.ok(texts.some((x) => x.trim() === t), `${t} kept: ${JSON.stringify(texts)}`);
    }
    assert.equal(texts.length, 6);
    // Tab A's second question was asked with tab B's turn in the history.
    const lastRequest = h.model.requests.at(-1).body.messages.map((m) => m.content);
    assert.deepEqual(lastRequest, ['Question from tab A', 'Answer for tab A.', 'Question from tab B', 'Answer for tab B.', 'Second question from tab A']);
    await context.close();
  });

  test('another tab shows an answer that is still streaming as such, then the result', async () => {
    const { context, a, b } = await twoTabs('Warm up', 'Warm up.');

    h.model.enqueue(reply.text('A slow answer that takes a while to arrive in full.', { pieces: 20, delayMs: 100 }));
    await send(a, 'Slowly please');
    await b.getByTestId('message-remote').waitFor({ timeout: 10_000 });
    assert.equal(await b.getByTestId('continue').count(), 0, 'no Continue while another tab is answering');
    assert.equal(await b.getByTestId('regenerate').count(), 0);
    await b.getByText('A slow answer that takes a while to arrive in full.').waitFor({ timeout: 20_000 });
    // The last checkpoint can carry the whole text before the answer is
    // saved: the remote mark goes once the saved message arrives.
    await b.getByTestId('message-remote').waitFor({ state: 'detached', timeout: 20_000 });
    await b.getByText('A slow answer that takes a while to arrive in full.').waitFor();
    assert.equal(await b.getByTestId('message-incomplete').count(), 0);
    await context.close();
  });

  test('when the answering tab dies, the other tab offers Continue after its heartbeat stops', async () => {
    const { context, a, b } = await twoTabs('Ready?', 'Ready.');

    h.model.enqueue(reply.hanging('Words that arrive for a while. '.repeat(10), { pieces: 40, delayMs: 100 }));
    await send(a, 'Keep going');
    await b.getByTestId('message-remote').waitFor({ timeout: 10_000 });
    await checkpointed(a, 20);
    await a.close();
    // No heartbeat any more: within ~10 s tab B treats it as an interrupted answer.
    await b.getByTestId('message-incomplete').waitFor({ timeout: 20_000 });
    await b.getByTestId('continue').waitFor();
    assert.ok((await b.getByTestId('message-assistant').last().getByTestId('message-text').textContent()).includes('Words that arrive'));
    await context.close();
  });

  test('sessions: auto title, rename, search by content, delete with undo', async () => {
    const { context, page } = await freshPage();
    h.model.enqueue(reply.text('Kyoto has many old temples.'));
    await send(page, 'Where should I travel next spring in Japan, any ideas?');
    await page.getByText('Kyoto has many old temples.').waitFor({ timeout: 20_000 });
    const item = page.getByTestId('session-item').first();
    assert.equal((await item.textContent()).replace(/[✎×]/g, '').trim(), 'Where should I travel next spr');

    await page.getByTestId('new-session').click();
    h.model.enqueue(reply.text('Sourdough needs a starter.'));
    await send(page, 'How do I bake bread?');
    await page.getByText('Sourdough needs a starter.').waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('session-item').count(), 2);

    // Rename the newest session.
    await page.getByTestId('session-item').first().hover();
    await page.getByTestId('session-item').first().getByTestId('rename-session').click();
    await page.getByTestId('rename-input').fill('Baking');
    await page.getByTestId('rename-input').press('Enter');
    await page.getByTestId('session-item').filter({ hasText: 'Baking' }).waitFor();

    // Search finds a session by the text of an answer, and opens it there.
    await page.getByTestId('session-search').fill('temples');
    const result = page.getByTestId('search-result');
    await result.first().waitFor();
    assert.equal(await result.count(), 1);
    assert.match(await result.locator('.search-title').textContent(), /Where should I travel/);
    assert.equal(await result.locator('mark').textContent(), 'temples');
    await result.click();
    await page.locator('.message.found').getByText('Kyoto has many old temples.').waitFor();
    await page.getByTestId('session-search').fill('no such words anywhere');
    await page.getByTestId('search-empty').waitFor();
    await page.getByTestId('session-search').fill('');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-item]').length === 2);

    // Delete, undo, then delete for good.
    const baking = page.getByTestId('session-item').filter({ hasText: 'Baking' });
    await baking.hover();
    await baking.getByTestId('delete-session').click();
    await page.getByTestId('undo-toast').waitFor();
    assert.equal(await page.getByTestId('session-item').count(), 1);
    await page.getByTestId('undo-delete').click();
    await page.getByTestId('session-item').filter({ hasText: 'Baking' }).waitFor();
    await page.getByTestId('session-item').filter({ hasText: 'Baking' }).hover();
    await page.getByTestId('session-item').filter({ hasText: 'Baking' }).getByTestId('delete-session').click();
    await page.getByTestId('undo-toast').waitFor({ state: 'detached', timeout: 15_000 });
    // The deletion is written once the undo window closes.
    // (A predicate that returns a promise is truthy at once: poll here.)
    const stored = () => page.evaluate(() => new Promise((ok) => {
      const open = indexedDB.open('air-agent-db');
      open.onsuccess = () => {
        const r = open.result.transaction(['sessions']).objectStore('sessions').count();
        r.onsuccess = () => { open.result.close(); ok(r.result); };
      };
    }));
    for (const until = Date.now() + 10_000; (await stored()) !== 1;) {
      assert.ok(Date.now() < until, 'the deletion is written within 10 s of the undo window closing');
      await page.waitForTimeout(100);
    }

    await page.reload();
    await page.getByTestId('session-item').first().waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('session-item').count(), 1, 'the deleted session stays deleted, the renamed title was saved before');
    assert.match(await page.getByTestId('session-item').textContent(), /Where should I travel/);
    await context.close();
  });

  test('edit and resend, regenerate, and what the model is sent', async () => {
    const { context, page } = await freshPage();
    h.model.enqueue(reply.text('First answer.'));
    await send(page, 'Original question');
    await page.getByText('First answer.').waitFor({ timeout: 20_000 });

    h.model.enqueue(reply.text('Regenerated answer.'));
    let before = h.model.requests.length;
    await page.getByTestId('regenerate').click();
    await page.getByText('Regenerated answer.').waitFor({ timeout: 20_000 });
    assert.equal(await page.getByText('First answer.').count(), 0);
    assert.deepEqual(h.model.requests[before].body.messages.map((m) => m.role), ['user']);

    h.model.enqueue(reply.text('Answer to the edited question.'));
    before = h.model.requests.length;
    await page.getByTestId('message-user').hover();
    await page.getByTestId('edit-message').click();
    await page.getByTestId('edit-input').fill('Edited question');
    await page.getByTestId('edit-save').click();
    await page.getByText('Answer to the edited question.').waitFor({ timeout: 20_000 });
    assert.deepEqual(h.model.requests[before].body.messages, [{ role: 'user', content: 'Edited question' }]);
    assert.equal(h.model.requests[before].body.stream, true);

    await page.reload();
    await page.getByText('Answer to the edited question.').waitFor({ timeout: 20_000 });
    const texts = (await page.getByTestId('message-text').allTextContents()).map((t) => t.trim());
    assert.deepEqual(texts, ['Edited question', 'Answer to the edited question.']);
    await context.close();
  });

  test('HTTP errors: 429 honours Retry-After and retries; 400 context overflow and 401 are explained', async () => {
    const { context, page } = await freshPage();
    h.model.enqueue(reply.error(429, { error: { message: 'Rate limit reached' } }, { 'Retry-After': '1' }), reply.text('Worth the wait.'));
    const before = h.model.requests.length;
    await send(page, 'Busy?');
    await page.getByTestId('message-status').waitFor({ timeout: 10_000 });
    assert.match(await page.getByTestId('message-status').textContent(), /Rate limited.*Retrying in 1 s/);
    await page.getByText('Worth the wait.').waitFor({ timeout: 20_000 });
    const gap = h.model.requests[before + 1].at - h.model.requests[before].at;
    assert.ok(gap >= 900, `waited for Retry-After before retrying (${gap} ms)`);

    h.model.enqueue(reply.error(400, { error: { code: 400, message: 'request (5031 tokens) exceeds the available context size (4096 tokens)', type: 'exceed_context_size_error' } }));
    await send(page, 'A very long question');
    await page.getByTestId('message-error').last().waitFor({ timeout: 20_000 });
    assert.match(await page.getByTestId('message-error').last().textContent(), /too long for this model's context window/);

    h.model.enqueue(reply.error(401, { error: { message: 'Invalid API Key', type: 'authentication_error' } }));
    await send(page, 'Another question');
    await page.getByTestId('message-error').nth(1).waitFor({ timeout: 20_000 });
    assert.match(await page.getByTestId('message-error').nth(1).textContent(), /API key was refused.*Invalid API Key/);
    // The typed questions are all still in the conversation.
    for (const q of ['Busy?', 'A very long question', 'Another question']) {
      await page.getByTestId('message-user').getByText(q, { exact: true }).waitFor();
    }
    await context.close();
  });

  test('a suggestion card on the session creator starts a conversation', async () => {
    const { context, page } = await freshPage();
    await page.getByTestId('session-creator').waitFor();
    assert.equal(await page.getByTestId('suggestion').count(), 4);
    const question = (await page.getByTestId('suggestion').first().textContent()).trim();
    h.model.enqueue(reply.text('Sunlight refracts in raindrops.'));
    await page.getByTestId('suggestion').first().click();
    await page.getByText('Sunlight refracts in raindrops.').waitFor({ timeout: 20_000 });
    assert.equal((await page.getByTestId('message-user').getByTestId('message-text').textContent()).trim(), question);
    assert.equal(await page.getByTestId('session-creator').count(), 0);
    await context.close();
  });

  test('a double Enter sends once; switching away and back mid-answer shows the answer once', async () => {
    const { context, page } = await freshPage();
    h.model.enqueue(reply.text('Only one answer.', { pieces: 10, delayMs: 80 }));
    const before = h.model.requests.length;
    const input = page.getByTestId('composer-input');
    await input.fill('Just once');
    await input.press('Enter');
    await input.press('Enter');
    await page.getByTestId('message-streaming').waitFor({ timeout: 10_000 });
    // Away to a new chat and back while the answer streams.
    await page.getByTestId('new-session').click();
    await page.getByTestId('session-item').first().locator('.session-title').click();
    await page.getByText('Only one answer.').waitFor({ timeout: 20_000 });
    // The turn is over (the answer is saved, its live view gone).
    await page.getByTestId('message-streaming').waitFor({ state: 'detached', timeout: 20_000 });
    await page.getByTestId('regenerate').waitFor({ timeout: 20_000 });
    assert.equal(h.model.requests.length - before, 1, 'one request');
    assert.equal(await page.getByTestId('message-user').count(), 1, 'one user message');
    assert.equal(await page.getByTestId('message-assistant').count(), 1, 'one answer on screen');
    await context.close();
  });

  test('the view follows a growing answer, unless the reader scrolls up', async () => {
    const { context, page } = await freshPage();
    const long = Array.from({ length: 60 }, (_, i) => `Paragraph ${i} of a long answer.`).join('\n\n');
    const gap = () => page.getByTestId('messages').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    h.model.enqueue(reply.text(long, { pieces: 30, delayMs: 40 }));
    await send(page, 'Long please');
    await page.getByText('Paragraph 59 of a long answer.').waitFor({ timeout: 20_000 });
    await page.getByTestId('regenerate').waitFor();
    // Scrolled at the next frame.
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="messages"]');
      return el.scrollHeight - el.scrollTop - el.clientHeight < 60;
    }, null, { timeout: 10_000 }).catch(async () => assert.fail(`followed to the end (gap ${await gap()})`));

    h.model.enqueue(reply.text(long, { pieces: 30, delayMs: 60 }));
    await page.getByTestId('regenerate').click();
    await page.getByTestId('message-streaming').getByText('Paragraph 25 of a long answer.').waitFor({ timeout: 20_000 });
    assert.ok((await gap()) < 200, `following while streaming (gap ${await gap()})`);
    await page.getByTestId('messages').evaluate((el) => { el.scrollTop = 0; });
    await page.getByTestId('regenerate').waitFor({ timeout: 20_000 });
    await page.waitForTimeout(200);
    assert.ok((await page.getByTestId('messages').evaluate((el) => el.scrollTop)) < 50, 'stayed where the reader went');
    await context.close();
  });

  test('a long answer is put in the page a block at a time, while it streams and once saved', async () => {
    const { context, page, errors } = await freshPage();
    const block = (i) => i % 7 === 3
      ? '```js\nconst x' + i + ' = 1;\n\nconsole.log(x' + i + ');\n```'
      : i % 5 === 0 ? `- item ${i} a\n\n- item ${i} b` : `Paragraph ${i} says **something** about [docs](https://example.com/${i}).`;
    const text = Array.from({ length: 600 }, (_, i) => block(i)).join('\n\n') + '\n\nThe end QZX.';
    assert.ok(text.length > 30_000);
    // All of it in one chunk: it is still cut into small blocks.
    h.model.enqueue(reply.text(text, { pieces: 1 }));
    await send(page, 'Long please');
    await page.getByTestId('regenerate').waitFor({ timeout: 20_000 });
    const look = () => page.getByTestId('message-assistant').last().getByTestId('message-text').evaluate((el) => {
      const groups = [...el.querySelectorAll(':scope > .md-group')];
      const blocks = [...el.querySelectorAll(':scope > .md-group > .md-block')];
      return {
        groups: groups.length,
        blocks: blocks.length,
        longest: Math.max(...blocks.map((b) => b.textContent.length)),
        visibility: groups[0] && getComputedStyle(groups[0]).contentVisibility,
        pres: el.querySelectorAll('pre').length,
        loose: el.querySelectorAll('ul').length,
        end: el.textContent.includes('The end QZX.'),
      };
    });
    const saved = await look();
    assert.ok(saved.blocks > 400, JSON.stringify(saved));
    assert.ok(saved.longest < 200, JSON.stringify(saved));
    assert.equal(saved.groups, Math.ceil(saved.blocks / 16), 'sixteen blocks to a group, the page skips a group off screen');
    assert.equal(saved.visibility, 'auto');
    const kinds = Array.from({ length: 600 }, (_, i) => block(i)[0]);
    assert.equal(saved.pres, kinds.filter((k) => k === '`').length, 'every code block, blank lines inside kept');
    assert.equal(saved.loose, kinds.filter((k) => k === '-').length, 'a loose list is one list');
    assert.ok(saved.end);
    await page.reload();
    await page.getByTestId('regenerate').waitFor({ timeout: 20_000 });
    assert.deepEqual(await look(), saved, 'the same blocks after a reload');
    // Streamed slowly: the blocks shown while streaming are the saved
    // message's (moved, not rendered again), followed by the rest.
    h.model.enqueue(reply.text(text, { pieces: 40, delayMs: 25 }));
    await page.getByTestId('regenerate').click();
    const first = page.getByTestId('message-streaming').locator('.md-block').first();
    await first.waitFor({ timeout: 20_000 });
    await first.evaluate((el) => { el.dataset.streamed = 'yes'; });
    await page.getByTestId('regenerate').waitFor({ timeout: 20_000 });
    assert.deepEqual(await look(), saved, 'the same blocks once saved');
    assert.equal(await page.getByTestId('message-assistant').last().locator('.md-block').first().getAttribute('data-streamed'), 'yes');
    // A text with link definitions is kept whole: the link resolves.
    h.model.enqueue(reply.text('See [the docs][d].\n\n' + 'Filler paragraph.\n\n'.repeat(1200) + '[d]: https://example.com/docs\n'));
    await page.getByTestId('regenerate').click();
    await page.getByTestId('message-assistant').last().locator('a[href="https://example.com/docs"]').waitFor({ timeout: 20_000 });
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('an answer streaming in one chat is still whole after visiting a chat with a long answer', async () => {
    const { context, page, errors } = await freshPage();
    const long = Array.from({ length: 700 }, (_, i) => `Paragraph ${i} of the long answer.`).join('\n\n');
    assert.ok(long.length > 16 * 1024);
    h.model.enqueue(reply.text(long, { pieces: 1 }));
    await send(page, 'Long one');
    await page.getByTestId('regenerate').waitFor({ timeout: 20_000 });
    await page.getByTestId('new-session').click();
    const slow = Array.from({ length: 100 }, (_, i) => `Streamed block ${i}.`).join('\n\n') + '\n\nEND-OF-SLOW';
    h.model.enqueue(reply.text(slow, { pieces: 100, delayMs: 50 }));
    await send(page, 'Slow one');
    const streaming = page.getByTestId('message-streaming');
    await streaming.locator('.md-block').nth(5).waitFor({ timeout: 20_000 });
    // To the chat with the long answer (drawn a block at a time), and back.
    await page.getByTestId('session-item').nth(1).locator('.session-title').click();
    await page.getByText('Paragraph 699 of the long answer.').waitFor({ timeout: 20_000 });
    await page.getByTestId('session-item').first().locator('.session-title').click();
    await streaming.locator('.md-block').nth(10).waitFor({ timeout: 20_000 });
    const live = await streaming.getByTestId('message-text').textContent();
    const seen = [...live.matchAll(/Streamed block (\d+)\./g)].map((m) => Number(m[1]));
    assert.deepEqual(seen, seen.map((_, i) => i), 'every block so far, in order, once: ' + seen.join(','));
    await page.getByTestId('regenerate').waitFor({ timeout: 30_000 });
    const saved = await page.getByTestId('message-assistant').last().getByTestId('message-text').textContent();
    assert.equal([...saved.matchAll(/Streamed block \d+\./g)].length, 100);
    assert.match(saved, /END-OF-SLOW/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('Esc in the composer stops the answer', async () => {
    const { context, page } = await freshPage();
    h.model.enqueue(reply.hanging('Streaming until told to stop. '.repeat(20), { pieces: 40, delayMs: 100 }));
    await send(page, 'Talk');
    await page.getByTestId('message-streaming').getByText('Streaming until').waitFor({ timeout: 10_000 });
    await page.getByTestId('composer-input').press('Escape');
    await page.getByTestId('message-stopped').waitFor({ timeout: 10_000 });
    assert.match(await lastAnswerText(page), /^Streaming until/);
    await page.getByTestId('send').waitFor();
    await context.close();
  });

  test('a dropped connection keeps the text, says so, and offers Continue', async () => {
    const { context, page } = await freshPage();
    h.model.enqueue(reply.dropped('The first half of an answer'));
    await send(page, 'Go on');
    const error = page.getByTestId('message-error');
    await error.waitFor({ timeout: 20_000 });
    assert.match(await error.textContent(), /connection was lost before the answer was complete/);
    assert.equal(await lastAnswerText(page), 'The first half of an answer');
    await page.getByTestId('continue').waitFor();
    await context.close();
  });

  test('reasoning is shown collapsed above the answer, and code can be copied', async () => {
    const { context, page } = await freshPage();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.app.url });
    h.model.enqueue(reply.reasoning('The user wants a snippet. Keep it short.', 'Here:\n\n```python\nprint("hi")\n```\n'));
    await send(page, 'Snippet please');
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByTestId('regenerate').waitFor({ timeout: 20_000 });
    const reasoning = answer.getByTestId('reasoning');
    assert.equal(await reasoning.evaluate((d) => d.open), false);
    assert.match(await reasoning.textContent(), /The user wants a snippet\. Keep it short\./);
    await answer.locator('[data-copy-code]').click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'print("hi")\n');
    assert.match(await answer.locator('[data-copy-code]').getAttribute('class'), /copied/);
    assert.equal(await answer.locator('[data-copy-code]').evaluate((b) => getComputedStyle(b, '::after').content), '"Copied"');
    await answer.getByTestId('copy-message').click();
    assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^Here:\n\n```python/);
    await context.close();
  });

  test('on a narrow screen the sidebar is an overlay with a backdrop; the collapsed state persists', async () => {
    const context = await h.browser.newContext({ viewport: { width: 400, height: 800 } });
    const page = await context.newPage();
    await openApp(page, h.app.url);
    const sidebarVisible = () => page.getByTestId('sidebar').evaluate((el) => el.getBoundingClientRect().right > 0);
    // Until the sidebar has slid in (`true`) or out (polled, not by frame:
    // see below).
    const sidebarComes = (p, shown) => p.waitForFunction((shown) => document.querySelector('[data-testid="sidebar"]').getBoundingClientRect().right > 0 === shown
      && document.querySelector('[data-testid="sidebar"]').getAnimations().length === 0, shown, { polling: 50, timeout: 10_000 });
    assert.equal(await sidebarVisible(), false, 'collapsed by default under 768 px');
    await page.getByTestId('toggle-sidebar').click();
    await sidebarComes(page, true);
    assert.equal(await page.getByTestId('sidebar-backdrop').isVisible(), true);
    await page.getByTestId('sidebar-backdrop').click({ position: { x: 380, y: 400 } });
    await sidebarComes(page, false);

    // Widened, the page has room for the rail and drops the backdrop: read
    // from the page, not clicked (a click waits for frames, and a headless
    // page resized by the test has been seen to stop painting them).
    await page.setViewportSize({ width: 1200, height: 800 });
    assert.deepEqual(await page.evaluate(() => [
      getComputedStyle(document.querySelector('.sidebar-rail')).display,
      getComputedStyle(document.querySelector('.backdrop')).display,
    ]), ['flex', 'none']);
    await context.close();

    // On a wide screen: open by default; collapse, reload, still collapsed.
    const wide = await h.browser.newContext({ viewport: { width: 1200, height: 800 } });
    const widePage = await wide.newPage();
    await openApp(widePage, h.app.url);
    const wideSidebarVisible = () => widePage.getByTestId('sidebar').evaluate((el) => el.getBoundingClientRect().right > 0);
    assert.equal(await wideSidebarVisible(), true, 'open by default from 768 px');
    await widePage.getByTestId('collapse-sidebar').click();
    await sidebarComes(widePage, false);
    await widePage.getByTestId('toggle-sidebar').click();
    await sidebarComes(widePage, true);
    await widePage.getByTestId('collapse-sidebar').click();
    await widePage.reload();
    await widePage.getByTestId('composer-input').waitFor();
    await sidebarComes(widePage, false);
    assert.equal(await widePage.evaluate(() => localStorage.getItem('air-agent-sidebar-collapsed')), 'true');
    await wide.close();
  });

  test('a browser that refuses IndexedDB still chats, in memory, and says nothing will be kept', async () => {
    const context = await h.browser.newContext();
    await context.addInitScript(() => {
      IDBFactory.prototype.open = function () {
        throw new DOMException('The user denied permission to access the database.', 'SecurityError');
      };
    });
    const page = await context.newPage();
    const errors = await openApp(page, h.app.url);
    // The store in memory is a part of its own, fetched only now.
    await page.getByTestId('notice').filter({ hasText: 'will not be kept' }).waitFor({ timeout: 20_000 });
    await configure(page, { baseUrl: h.model.baseUrl, model: 'scripted-model' });
    h.model.enqueue(reply.text('Kept in memory.'));
    await send(page, 'Hello');
    await page.getByText('Kept in memory.').waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('session-item').count(), 1);
    // Another chat, then back: read from memory.
    await page.getByTestId('new-session').click();
    await page.getByText('Kept in memory.').waitFor({ state: 'detached' });
    await page.getByTestId('session-item').first().locator('.session-title').click();
    await page.getByText('Kept in memory.').waitFor({ timeout: 10_000 });
    assert.equal((await page.getByTestId('message-user').first().getByTestId('message-text').textContent()).trim(), 'Hello');
    assert.deepEqual(errors.filter((e) => !/denied permission/.test(e)), []);
    await context.close();
  });
});

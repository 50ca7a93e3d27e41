// MCP Apps: a real MCP App server (npm @modelcontextprotocol/server-basic-vanillajs,
// a `get-time` tool with a View) on 127.0.0.1. The model calls the tool;
// its View is read from the server and shown in a sandboxed frame under
// the card; the View's own button calls the tool through the app; the
// frame cannot reach the app's storage or any undeclared origin.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { addMcpServer, scriptedHarness, send, startBasicApp, startPyMcpApp } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Chromium's own reports of what the frame's policy refused, the 400 of the first `server/discover`, and the View's report of the call the user denied. */
function unexpected(errors) {
  return errors.filter((e) => !/Failed to load resource: the server responded with a status of 400|Content Security Policy|Refused to|The user denied this call/.test(e));
}

/** Polls `check` (async) until it holds (15 s at most). */
async function waitUntil(check, what) {
  for (let i = 0; i < 150; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`not in time: ${what}`);
}

describe('MCP Apps (server-basic-vanillajs, scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  let server;
  // A server the View has not declared: it must never be reached.
  let undeclared;
  let undeclaredHits = 0;
  before(async () => {
    server = await startBasicApp();
    undeclared = createServer((req, res) => { undeclaredHits++; res.writeHead(200, { 'Access-Control-Allow-Origin': '*' }); res.end('reached'); });
    await new Promise((ok) => undeclared.listen(0, '127.0.0.1', ok));
  });
  after(async () => {
    await server?.stop();
    await new Promise((ok) => undeclared?.close(ok));
  });

  test('the View renders, calls its tool through the app, and stays in its sandbox', async () => {
    const { context, page, errors } = await h.freshPage();
    const logs = [];
    page.on('console', (m) => logs.push(m.text()));

    // Added like any server; the tool's View is remembered with it.
    await addMcpServer(page, 'basic', server.url);
    await page.getByTestId('settings-save').click();
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-servers')));
    assert.equal(saved[0].tools[0].name, 'get-time');
    assert.equal(saved[0].tools[0].ui, 'ui://get-time/mcp-app.html');

    // The model calls it: the card, and under it the View with the result.
    h.model.enqueue(reply.calls([{ id: 't1', name: 'mcp_basic_get-time', arguments: '{}' }]), reply.text('Here is the time.'));
    await send(page, 'What time is it on the server?');
    // Not marked read-only: the user allows it first, and no View shows before.
    await page.getByTestId('approve-once').click({ timeout: 20_000 });
    await page.getByText('Here is the time.').waitFor({ timeout: 20_000 });
    await page.locator('[data-testid=app-view][data-state=ready]').waitFor({ timeout: 20_000 });
    const view = page.frameLocator('[data-testid=app-frame]').frameLocator('iframe');
    const time = view.locator('#server-time');
    await waitUntil(async () => ISO.test((await time.textContent()) ?? ''), 'the tool result reaches the View');
    const first = await time.textContent();
    // The card says the same as the View.
    assert.match(await page.getByTestId('tool-output').textContent(), new RegExp(first.replace(/[.]/g, '\\.')));
    // The frame takes the View's height (it says its size).
    await waitUntil(async () => (await page.getByTestId('app-frame').getAttribute('style')) !== 'height: 120px;', 'the frame is resized');
    const height = parseInt((await page.getByTestId('app-frame').getAttribute('style')).replace(/\D+/g, ''), 10);
    assert.ok(height > 150 && height <= 800, `height ${height}`);

    // Its button calls get-time through the app (not the model), under the
    // same policy as the model's calls: this tool asks first.
    const modelCalls = h.model.requests.length;
    await view.locator('#get-time-btn').click();
    const askCall = page.getByTestId('app-call');
    await askCall.waitFor({ timeout: 10_000 });
    assert.match(await askCall.textContent(), /get-time/);
    // Refused: the View gets an error and its server is not called.
    await page.getByTestId('app-call-deny').click();
    await askCall.waitFor({ state: 'detached' });
    await page.waitForTimeout(1000);
    const afterDeny = await time.textContent();
    assert.ok(!(ISO.test(afterDeny) && afterDeny !== first), `no new time from the server: ${afterDeny}`);
    // Allowed: it runs.
    await view.locator('#get-time-btn').click();
    await page.getByTestId('app-call-allow').click({ timeout: 10_000 });
    await waitUntil(async () => { const t = await time.textContent(); return ISO.test(t) && t !== first; }, 'a new time from the View\'s own call');
    assert.equal(h.model.requests.length, modelCalls, 'the model was not asked');

    // Sandbox: an opaque origin with no way into the app's storage, and a
    // policy that lets nothing reach an undeclared origin.
    await page.evaluate(() => { localStorage.setItem('secret-probe', 'x'); document.cookie = 'probe=1'; });
    const inner = page.frames().find((f) => f.parentFrame() && f.parentFrame() !== page.mainFrame());
    assert.ok(inner, 'the View runs in a frame inside the sandbox proxy');
    const seen = await inner.evaluate(async (target) => {
      const attempt = (f) => { try { const v = f(); return `read:${v}`; } catch (e) { return e.name; } };
      const violation = new Promise((res) => document.addEventListener('securitypolicyviolation', (e) => res(e.effectiveDirective), { once: true }));
      const fetched = await fetch(target).then(() => 'fetched', (e) => `blocked:${e.name}`);
      return {
        origin: self.origin,
        localStorage: attempt(() => localStorage.getItem('secret-probe')),
        indexedDB: attempt(() => { indexedDB.open('air-agent'); return 'opened'; }),
        cookie: attempt(() => document.cookie),
        parentDom: attempt(() => window.top.document.title),
        fetched,
        directive: await Promise.race([violation, new Promise((r) => setTimeout(() => r('no report'), 2000))]),
      };
    }, `http://127.0.0.1:${undeclared.address().port}/probe`);
    assert.deepEqual(seen, {
      origin: 'null',
      localStorage: 'SecurityError',
      indexedDB: 'SecurityError',
      cookie: 'SecurityError',
      parentDom: 'SecurityError',
      fetched: 'blocked:TypeError',
      directive: 'connect-src',
    });
    assert.equal(undeclaredHits, 0, 'the undeclared server was never reached');

    // ui/message: the View's message goes into the composer; the user
    // sends it (a View never starts a turn by itself).
    const before = h.model.requests.length;
    await view.locator('#message-text').fill('Hello from the View');
    await view.locator('#send-message-btn').click();
    await waitUntil(async () => (await page.getByTestId('composer-input').inputValue()) === 'Hello from the View', 'the message is in the composer');
    await page.waitForTimeout(500);
    assert.equal(h.model.requests.length, before, 'no turn started by the View');
    h.model.enqueue(reply.text('Got your message from the app.'));
    await page.getByTestId('composer-input').press('Enter');
    await page.getByText('Got your message from the app.').waitFor({ timeout: 20_000 });
    const lastUser = h.model.requests.at(-1).body.messages.filter((m) => m.role === 'user').at(-1);
    assert.equal(lastUser.content, 'Hello from the View');

    // ui/open-link: asked first; refused here.
    await view.locator('#open-link-btn').click();
    const ask = page.getByTestId('app-link');
    await ask.waitFor({ timeout: 10_000 });
    assert.match(await ask.locator('code').textContent(), /^https?:\/\//);
    await page.getByTestId('app-link-cancel').click();
    await waitUntil(() => logs.some((l) => /Open link request rejected/.test(l)), 'the View hears the refusal');
    assert.equal(context.pages().length, 1, 'no window opened');

    // Closing: the View is told first, then the frame goes.
    await page.getByTestId('app-close').click();
    await waitUntil(() => logs.some((l) => /App is being torn down/.test(l)), 'the View hears the teardown');
    await page.getByTestId('app-frame').waitFor({ state: 'detached', timeout: 5_000 });

    // After a reload, the View comes back on request, with the stored result.
    await page.reload();
    await page.getByTestId('app-open').waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('app-frame').count(), 0, 'not started until asked');
    await page.getByTestId('app-open').click();
    await page.locator('[data-testid=app-view][data-state=ready]').waitFor({ timeout: 20_000 });
    await waitUntil(async () => (await page.frameLocator('[data-testid=app-frame]').frameLocator('iframe').locator('#server-time').textContent()) === first, 'the stored result is shown again');

    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  test('app-only and model-only tools, declared origins, context for the model, full screen', async () => {
    const palette = await startPyMcpApp(`http://127.0.0.1:${undeclared.address().port}`);
    try {
      const { context, page, errors } = await h.freshPage();
      await addMcpServer(page, 'palette', palette.url);
      await page.getByTestId('settings-save').click();

      h.model.enqueue(reply.calls([{ id: 'c1', name: 'mcp_palette_pick_color', arguments: '{"color": "teal"}' }]), reply.text('Pick one.'));
      await send(page, 'Show me the palette');
      await page.getByTestId('approve-once').click({ timeout: 20_000 });
      await page.getByText('Pick one.').waitFor({ timeout: 20_000 });
      // The model is offered its tools, not the app's.
      const offered = h.model.requests.at(-1).body.tools.map((t) => t.function.name);
      assert.ok(offered.includes('mcp_palette_pick_color') && offered.includes('mcp_palette_admin_reset'), offered.join(', '));
      assert.ok(!offered.some((n) => n.includes('save_choice')), 'the app-only tool is not offered to the model');

      await page.locator('[data-testid=app-view][data-state=ready]').waitFor({ timeout: 20_000 });
      const view = page.frameLocator('[data-testid=app-frame]').frameLocator('iframe');
      const out = view.locator('#out');
      await view.locator('#result').filter({ hasText: 'result=Offered teal' }).waitFor({ timeout: 10_000 });
      assert.equal(await view.locator('#input').textContent(), 'input={"color":"teal"}');
      assert.match(await view.locator('#theme').textContent(), /^theme=(light|dark)$/);

      // An app-only tool that may change things: the user allows it first.
      await view.locator('#save').click();
      await page.getByTestId('app-call-allow').click({ timeout: 10_000 });
      await out.filter({ hasText: 'save: saved teal' }).waitFor({ timeout: 10_000 });
      await view.locator('#admin').click();
      await out.filter({ hasText: /admin: refused: The tool admin_reset is not available to this app/ }).waitFor({ timeout: 10_000 });
      await view.locator('#read').click();
      await out.filter({ hasText: 'read: teal, coral, sand' }).waitFor({ timeout: 10_000 });
      // The declared origin is reached; the undeclared one is not.
      await view.locator('#fetch').click();
      await out.filter({ hasText: 'undeclared:' }).waitFor({ timeout: 10_000 });
      assert.match(await out.textContent(), /declared: pong\nundeclared: blocked/);
      assert.equal(undeclaredHits, 0);

      // Context for the model: a chip the user sees, sent with the next message.
      await view.locator('#context').click();
      await out.filter({ hasText: 'context: ok' }).waitFor({ timeout: 10_000 });
      const chip = page.getByTestId('attachments');
      await chip.filter({ hasText: 'pick_color (from its app)' }).waitFor({ timeout: 10_000 });
      h.model.enqueue(reply.text('Teal it is.'));
      await send(page, 'Which one did I pick?');
      await page.getByText('Teal it is.').waitFor({ timeout: 20_000 });
      const sent = h.model.requests.at(-1).body.messages.filter((m) => m.role === 'user').at(-1).content;
      assert.match(sent, /^Which one did I pick\?\n\n<app-context tool="pick_color">\nThe user picked teal in the palette\.\n<\/app-context>$/);

      // Full screen on the View's request, and back.
      await view.locator('#full').click();
      await out.filter({ hasText: 'full: fullscreen' }).waitFor({ timeout: 10_000 });
      assert.match(await page.getByTestId('app-view').getAttribute('class'), /fullscreen/);
      assert.match(await out.textContent(), /mode: fullscreen/);
      await page.getByTestId('app-exit-fullscreen').click();
      await out.filter({ hasText: 'mode: inline' }).waitFor({ timeout: 10_000 });
      assert.doesNotMatch(await page.getByTestId('app-view').getAttribute('class'), /fullscreen/);

      // Closing waits for the View's answer to the teardown.
      await page.getByTestId('app-close').click();
      await page.getByTestId('app-frame').waitFor({ state: 'detached', timeout: 5_000 });
      assert.deepEqual(unexpected(errors), []);
      await context.close();
    } finally {
      await palette.stop();
    }
  });
});

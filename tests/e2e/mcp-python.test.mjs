// MCP servers of the Python SDK (PyPI `mcp`), started by the test on
// 127.0.0.1 in each of its modes. They speak 2026-07-28, so the page uses
// stateless requests: a tool's questions come back as input_required
// results, arguments marked x-mcp-header travel as headers too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptedHarness, send, startPyMcp } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

/**
 * Calls `touch` as another client would, in one 2026-07-28 request, so
 * the server announces that note://counter changed.
 */
async function touch(url) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'touch',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'touch', arguments: {}, _meta: meta } }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(text, /count \d+/);
}

/** Allows `n` calls that ask first (tools without annotations do). */
async function allow(page, n) {
  for (let i = 0; i < n; i++) {
    const button = page.getByTestId('approve-once').first();
    await button.waitFor({ timeout: 20_000 });
    await button.click();
  }
}

for (const mode of ['stateful', 'stateless-json', 'stateless']) {
  describe(`MCP server of the Python SDK (${mode})`, () => {
    const h = scriptedHarness({ before, after }, startScriptedModel);
    let server;
    before(async () => { server = await startPyMcp(mode); });
    after(async () => { await server?.stop(); });

    test('its tools are added, called, and a question is answered on the card', async () => {
      const { context, page, errors } = await h.freshPage();
      // The next message goes once the last turn is over: Enter while one
      // runs sends nothing (an answer's text shows before its turn ends).
      const idle = () => page.getByTestId('send').waitFor({ timeout: 20_000 });
      const sent = [];
      page.on('request', (r) => { if (r.url() === server.url && r.method() === 'POST') sent.push(r); });
      await page.getByTestId('open-settings').click();
      await page.getByTestId('mcp-name').fill('py');
      await page.getByTestId('mcp-url').fill(server.url);
      await page.getByTestId('mcp-add').click();
      await page.getByTestId('mcp-picks').waitFor({ timeout: 20_000 });
      assert.equal(await page.getByTestId('mcp-pick').count(), 9);
      await page.getByTestId('mcp-save').click();
      const status = page.getByTestId('mcp-server-status');
      await status.filter({ hasText: 'Connected (protocol 2026-07-28)' }).waitFor({ timeout: 20_000 });
      await page.getByTestId('settings-save').click();

      h.model.enqueue(
        reply.calls([
          { id: 'a', name: 'mcp_py_add', arguments: '{"a": 2, "b": 40}' },
          { id: 'w', name: 'mcp_py_whoami', arguments: '{"tenant": "acme"}' },
        ]),
        reply.text('Both answered.'),
      );
      await send(page, 'Add and tell me the tenant');
      // `add` is allowed always (as it is now), `whoami` once.
      const addCard = page.getByTestId('tool-card').filter({ hasText: 'mcp_py_add' });
      await addCard.getByTestId('approve-always').click({ timeout: 20_000 });
      await allow(page, 1);
      await page.getByText('Both answered.').waitFor({ timeout: 20_000 });
      const results = h.model.requests.at(-1).body.messages.filter((m) => m.role === 'tool').map((m) => m.content);
      assert.deepEqual(results, ['42', 'tenant: acme']);
      // Each call stood alone: version, method and name in headers, the
      // marked argument mirrored, no session.
      const call = sent.map((r) => ({ h: r.headers(), b: JSON.parse(r.postData()) })).find((r) => r.b.params?.name === 'whoami');
      assert.equal(call.h['mcp-protocol-version'], '2026-07-28');
      assert.equal(call.h['mcp-method'], 'tools/call');
      assert.equal(call.h['mcp-name'], 'whoami');
      assert.equal(call.h['mcp-param-tenant'], 'acme');
      assert.equal(call.h['mcp-session-id'], undefined);

      // From now on the server's tools run without asking (its policy in
      // Settings; each tool is listed there too).
      await page.getByTestId('open-settings').click();
      assert.equal(await page.getByTestId('policy-mcp_py_favourite').count(), 1);
      await page.getByTestId('server-policy-py').selectOption('allow');
      await page.getByTestId('settings-save').click();

      // The tool needs an answer from the user first (input_required).
      h.model.enqueue(
        reply.calls([{ id: 'f', name: 'mcp_py_favourite', arguments: '{}' }]),
        reply.text('Noted your colour.'),
      );
      await idle();
      await send(page, 'Ask my favourite colour');
      const question = page.getByTestId('tool-question');
      await question.waitFor({ timeout: 20_000 });
      assert.equal(await question.getByTestId('question-message').textContent(), 'What is your favourite colour?');
      assert.equal(await question.locator('[data-field=colour]').inputValue(), 'green');
      await question.locator('[data-field=colour]').fill('blue');
      await question.getByTestId('question-submit').click();
      await page.getByText('Noted your colour.').waitFor({ timeout: 20_000 });
      assert.equal(h.model.requests.at(-1).body.messages.at(-1).content, 'favourite colour: blue');
      assert.equal(await page.getByTestId('approve-once').count(), 0, 'not asked: the server is allowed');

      // The server adds a tool (marked read-only) and says so on its
      // subscription stream: the page lists the tools again, and the new
      // one waits for the user, not offered, until accepted in Settings.
      h.model.enqueue(reply.calls([{ id: 'g', name: 'mcp_py_grow', arguments: '{}' }]), reply.text('Grown.'));
      await idle();
      await send(page, 'Grow a tool');
      await page.getByText('Grown.').waitFor({ timeout: 20_000 });
      await page.waitForFunction(
        () => JSON.parse(localStorage.getItem('air-agent-mcp-servers'))[0].tools.some((t) => t.name === 'echo_back'),
        null,
        { timeout: 20_000 },
      );
      assert.match(await page.getByTestId('notice').textContent(), /py offers 1 new tool\(s\)/);
      const offers = () => h.model.requests.at(-1).body.tools.map((t) => t.function.name);
      h.model.enqueue(reply.text('Not yet.'));
      await idle();
      await send(page, 'What tools now?');
      await page.getByText('Not yet.').waitFor({ timeout: 20_000 });
      assert.ok(offers().includes('mcp_py_add') && !offers().includes('mcp_py_echo_back'), offers().join());
      await page.getByTestId('open-settings').click();
      const review = page.getByTestId('mcp-review');
      assert.match(await review.textContent(), /echo_back\s*new/);
      await page.getByTestId('mcp-accept-echo_back').click();
      await review.waitFor({ state: 'detached' });
      await page.getByTestId('settings-save').click();
      h.model.enqueue(reply.text('I see it.'));
      await idle();
      await send(page, 'And now?');
      await page.getByText('I see it.').waitFor({ timeout: 20_000 });
      assert.ok(offers().includes('mcp_py_echo_back'));

      // The server changes what `add` says after the user allowed it
      // always (and allowed the whole server): the next call asks, and the
      // card shows what changed.
      h.model.enqueue(reply.calls([{ id: 'r', name: 'mcp_py_reword', arguments: '{}' }]), reply.text('Reworded.'));
      await idle();
      await send(page, 'Reword');
      await page.getByText('Reworded.').waitFor({ timeout: 20_000 });
      await page.waitForFunction(
        () => JSON.parse(localStorage.getItem('air-agent-mcp-servers'))[0].tools.some((t) => t.description.includes('evil.example')),
        null,
        { timeout: 20_000 },
      );
      h.model.enqueue(reply.calls([{ id: 'a2', name: 'mcp_py_add', arguments: '{"a": 1, "b": 1}' }]), reply.text('Refused.'));
      await idle();
      await send(page, 'Add again');
      const changed = page.getByTestId('tool-changed');
      await changed.waitFor({ timeout: 20_000 });
      const diff = await changed.getByTestId('tool-diff').textContent();
      assert.match(diff, /- Adds two integers\./);
      assert.match(diff, /\+ Adds two integers, then sends them to https:\/\/evil\.example\/\./);
      await page.getByTestId('deny').click();
      await page.getByText('Refused.').waitFor({ timeout: 20_000 });
      assert.match(h.model.requests.at(-1).body.messages.at(-1).content, /denied/);

      // Audio in a result plays on the card.
      h.model.enqueue(reply.calls([{ id: 'c', name: 'mcp_py_chime', arguments: '{}' }]), reply.text('Chimed.'));
      await idle();
      await send(page, 'Chime');
      await page.getByText('Chimed.').waitFor({ timeout: 20_000 });
      const audio = page.getByTestId('tool-audio').last();
      assert.match(await audio.getAttribute('src'), /^data:audio\/wav;base64,UklGR/);
      const duration = await audio.evaluate((a) => new Promise((done) => {
        if (a.readyState >= 1) done(a.duration);
        else a.addEventListener('loadedmetadata', () => done(a.duration), { once: true });
        setTimeout(() => done(`not loaded (readyState ${a.readyState}, error ${a.error?.message})`), 10_000);
      }));
      assert.ok(Math.abs(duration - 0.25) < 0.01, `duration ${duration}`);
      assert.equal(h.model.requests.at(-1).body.messages.at(-1).content, '[audio: audio/wav]');

      // An attached resource follows its changes: the page subscribes, and
      // when another client moves the counter on, it reads it again.
      await page.getByTestId('resources-open').click();
      await page.locator('[data-testid=resource-item][data-uri="note://counter"]').click();
      const attachment = page.getByTestId('attachment').filter({ hasText: 'counter' });
      await attachment.waitFor({ timeout: 20_000 });
      await page.locator('[data-testid=attachment][data-live=true]').waitFor({ timeout: 20_000 });
      await touch(server.url);
      await attachment.getByTestId('attachment-updated').waitFor({ timeout: 20_000 });
      h.model.enqueue(reply.text('Read the counter.'));
      await idle();
      await send(page, 'What does the counter say?');
      await page.getByText('Read the counter.').waitFor({ timeout: 20_000 });
      const user = h.model.requests.at(-1).body.messages.filter((m) => m.role === 'user').at(-1).content;
      assert.match(user, /<resource uri="note:\/\/counter" mimeType="text\/plain">\s*count 1\s*<\/resource>/);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });
}

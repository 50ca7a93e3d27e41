// MCP from the page: a real MCP server (the reference "everything" server
// on 127.0.0.1) is added in Settings, its tools are saved, and the model
// calls one of them through the chat.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, scriptedHarness, send, startEverything } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

/**
 * Console errors, less the 400 the reference server answers to the
 * client's first question (`server/discover`, asked to find out whether
 * it speaks 2026-07-28): Chromium logs every 4xx response.
 */
function unexpected(errors) {
  return errors.filter((e) => !/Failed to load resource: the server responded with a status of 400/.test(e));
}

/** Polls `check` until it holds (10 s at most). */
async function waitUntil(check) {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(check(), 'condition not met in time');
}

describe('MCP servers (reference server, scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  let server;
  before(async () => { server = await startEverything(); });
  after(async () => { await server?.stop(); });

  /** Settings → MCP servers → Connect; returns the error shown, or null once the tools are listed. */
  async function connect(page, name, url) {
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-name').fill(name);
    await page.getByTestId('mcp-url').fill(url);
    await page.getByTestId('mcp-add').click();
    const picks = page.getByTestId('mcp-picks');
    const failed = page.getByTestId('mcp-add-result').filter({ hasText: /Could not/ });
    await Promise.race([picks.waitFor({ timeout: 20_000 }), failed.waitFor({ timeout: 20_000 })]);
    return (await failed.count()) ? (await failed.textContent()).trim() : null;
  }

  test('a server is added from its URL and its tool is called in a chat', async () => {
    const { context, page, errors } = await h.freshPage();
    // Every MCP session the page starts with the server, how each ends,
    // and which session each tool call goes through.
    const mcp = { sessions: [], ended: [], calls: [] };
    const method = (r) => { try { return JSON.parse(r.postData() ?? '{}').method; } catch { return null; } };
    page.on('request', (r) => {
      if (r.url() !== server.url) return;
      if (r.method() === 'DELETE') mcp.ended.push(r.headers()['mcp-session-id']);
      if (r.method() === 'POST' && method(r) === 'tools/call') mcp.calls.push(r.headers()['mcp-session-id']);
    });
    page.on('response', (r) => {
      if (r.url() === server.url && r.request().method() === 'POST' && method(r.request()) === 'initialize') mcp.sessions.push(r.headers()['mcp-session-id']);
    });
    assert.equal(await connect(page, 'everything', server.url), null);
    // The add flow's own connection, opened to list the tools, is ended
    // once they are listed.
    await waitUntil(() => mcp.ended.length === 1);
    assert.equal(mcp.sessions.length, 1);
    assert.ok(mcp.sessions[0], 'the server gave a session id');
    assert.deepEqual(mcp.ended, mcp.sessions);
    // The server's tools, all picked; nothing is saved before "Add".
    assert.equal(await page.getByTestId('mcp-pick').count(), 14);
    assert.equal(await page.evaluate(() => localStorage.getItem('air-agent-mcp-servers')), null);
    await page.getByTestId('mcp-pick-get-env').uncheck();
    assert.equal((await page.getByTestId('mcp-save').textContent()).trim(), 'Add with 13 tool(s)');
    await page.getByTestId('mcp-save').click();
    assert.equal((await page.getByTestId('mcp-add-result').textContent()).trim(), 'Added “everything” with 13 tool(s).');
    const row = page.getByTestId('mcp-server');
    assert.equal(await row.getByTestId('mcp-server-name').textContent(), 'everything');
    assert.equal(await row.getByTestId('mcp-server-tools').textContent(), '13 tools');
    // Saved with the picked tools: no reconnect is needed to know them.
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-servers')));
    assert.equal(saved[0].url, server.url);
    assert.equal(saved[0].protocol, '2025-11-25', 'the revision it speaks is remembered');
    assert.ok(saved[0].tools.some((t) => t.name === 'echo' && t.inputSchema.required.includes('message')));
    assert.ok(!saved[0].tools.some((t) => t.name === 'get-env'), 'the unpicked tool is left out');
    // Its session is started at once, and its state shown.
    await row.getByTestId('mcp-server-status').filter({ hasText: 'Connected (protocol 2025-11-25)' }).waitFor({ timeout: 20_000 });
    assert.equal(await row.getByTestId('mcp-server-status').getAttribute('data-state'), 'connected');
    await page.getByTestId('settings-save').click();

    // Per chat: switched off in the new chat, its tools are not offered.
    const chip = page.locator('[data-testid=mcp-chip][data-server=everything]');
    assert.equal(await chip.getAttribute('aria-pressed'), 'true');
    await chip.click();
    assert.equal(await chip.getAttribute('aria-pressed'), 'false');
    h.model.enqueue(reply.text('Without the server.'));
    await send(page, 'No MCP in this chat');
    await page.getByText('Without the server.').waitFor({ timeout: 20_000 });
    assert.ok(!(h.model.requests.at(-1).body.tools ?? []).some((t) => t.function.name.startsWith('mcp_')));
    assert.equal(await chip.getAttribute('aria-pressed'), 'false', 'the chat keeps its choice once it exists');
    const chatSettings = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-chat-settings')));
    assert.deepEqual(Object.values(chatSettings.off), [['everything']]);
    // A new chat uses every server again.
    await page.getByTestId('new-session').click();
    assert.equal(await chip.getAttribute('aria-pressed'), 'true');

    h.model.enqueue(
      reply.calls([{ id: 'm1', name: 'mcp_everything_echo', arguments: '{"message":"hello from the page"}' }]),
      reply.text('The server echoed it.'),
    );
    const before = h.model.requests.length;
    await send(page, 'Echo something through MCP');
    // The server marks echo read-only, but its hints decide nothing unless
    // the user says so: the call asks first.
    await page.getByTestId('approve-once').click({ timeout: 20_000 });
    await page.getByText('The server echoed it.').waitFor({ timeout: 20_000 });
    const offered = h.model.requests[before].body.tools.map((t) => t.function.name);
    assert.ok(offered.includes('mcp_everything_echo') && offered.includes('mcp_everything_get-sum'), offered.join(','));
    assert.ok(!offered.includes('mcp_everything_get-env'));
    const card = page.getByTestId('tool-card');
    assert.equal(await card.getAttribute('data-status'), 'done');
    assert.match(await card.locator('summary').textContent(), /mcp_everything_echo\s*everything/);
    const result = h.model.requests.at(-1).body.messages.at(-1);
    assert.deepEqual(result, { role: 'tool', content: 'Echo: hello from the page', tool_call_id: 'm1' });
    // One connection per saved server, kept over chats and turns: the
    // preview's and the saved server's, and the call went through the latter.
    assert.equal(mcp.sessions.length, 2, JSON.stringify(mcp));
    assert.deepEqual(mcp.calls, [mcp.sessions[1]]);
    assert.deepEqual(mcp.ended, [mcp.sessions[0]], 'the saved server\'s session stays open');

    // Switched off, its tools are no longer offered.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-server-enabled').uncheck();
    await page.getByTestId('settings-save').click();
    h.model.enqueue(reply.text('No MCP now.'));
    await send(page, 'And now?');
    await page.getByText('No MCP now.').waitFor({ timeout: 20_000 });
    assert.ok(!h.model.requests.at(-1).body.tools.some((t) => t.function.name.startsWith('mcp_')));
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  test('a server that cannot be reached is explained and not saved', async () => {
    const { context, page } = await h.freshPage();
    const text = await connect(page, 'nowhere', 'http://127.0.0.1:9/mcp');
    assert.match(text, /Could not add it: the MCP server could not be reached/);
    assert.equal(await page.getByTestId('mcp-server').count(), 0);
    await context.close();
  });

  test('re-syncing a server updates its tools, keeps what went, and says how many', async () => {
    const { context, page } = await h.freshPage();
    assert.equal(await connect(page, 'everything', server.url), null);
    await page.getByTestId('mcp-save').click();
    // This page's own connection is done before the reload below.
    await page.getByTestId('mcp-chip').and(page.locator('[data-state=connected]')).waitFor({ timeout: 20_000 });
    // Since then the server changed: echo was described differently, and
    // a tool it offered is gone.
    await page.evaluate(() => {
      const list = JSON.parse(localStorage.getItem('air-agent-mcp-servers'));
      list[0].tools.find((t) => t.name === 'echo').description = 'stale';
      list[0].tools.push({ name: 'old-tool', description: 'gone soon', inputSchema: { type: 'object' } });
      localStorage.setItem('air-agent-mcp-servers', JSON.stringify(list));
    });
    const posted = [];
    page.on('request', (r) => { if (r.method() === 'POST' && r.url() === server.url) posted.push(JSON.parse(r.postData()).method); });
    await page.reload();
    // Restored on start in the era it spoke last: no need to ask.
    await page.getByTestId('mcp-chip').and(page.locator('[data-state=connected]')).waitFor({ timeout: 20_000 });
    assert.equal(posted[0], 'initialize');
    assert.ok(!posted.includes('server/discover'), posted.join(','));
    await page.getByTestId('open-settings').click();
    const row = page.getByTestId('mcp-server');
    assert.equal(await row.getByTestId('mcp-server-tools').textContent(), '15 tools');
    await row.getByTestId('mcp-server-resync').click();
    const result = page.getByTestId('mcp-sync-result').filter({ hasText: /Re-synced/ });
    await result.waitFor({ timeout: 20_000 });
    assert.equal((await result.textContent()).trim(), 'Re-synced: 1 updated, 0 added, 1 gone, 13 unchanged.');
    assert.equal(await page.getByTestId('mcp-server-tools').textContent(), '14 tools (+ 1 no longer offered) (1 to review)');
    // echo is not as the user accepted it: what changed is shown, and
    // accepting it ends the review.
    const review = row.getByTestId('mcp-review-tool');
    assert.match(await review.textContent(), /^echo changed since you accepted it/);
    assert.deepEqual(await review.locator('.diff-gone, .diff-added').allTextContents(), ['- stale', '+ Echoes back the input string']);
    await row.getByTestId('mcp-accept-echo').click();
    await page.getByTestId('mcp-server-tools').filter({ hasText: /^14 tools \(\+ 1 no longer offered\)$/ }).waitFor();
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-servers'))[0].tools);
    assert.equal(saved.find((t) => t.name === 'echo').description, 'Echoes back the input string');
    assert.equal(saved.find((t) => t.name === 'old-tool').gone, true);

    // A new address that does not answer changes nothing.
    await page.getByTestId('mcp-server-url').fill('http://127.0.0.1:9/mcp');
    await page.getByTestId('mcp-server-resync').click();
    await page.getByTestId('mcp-sync-result').filter({ hasText: /Could not re-sync/ }).waitFor({ timeout: 20_000 });
    const url = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-servers'))[0].url);
    assert.equal(url, server.url);

    // Its headers are edited on its row: a line that is not a header is
    // refused there; good ones are checked by the re-sync, saved, and sent
    // from then on.
    await page.getByTestId('mcp-server-url').fill(server.url);
    await row.getByTestId('mcp-server-headers').locator('summary').click();
    await row.getByTestId('mcp-server-headers-input').fill('not a header');
    await row.getByTestId('mcp-server-resync').click();
    await page.getByTestId('mcp-sync-result').filter({ hasText: 'line 1 is not a header (Name: value)' }).waitFor();
    const sent = [];
    page.on('request', (r) => { if (r.method() === 'POST' && r.url() === server.url) sent.push(r.headers()['x-trace']); });
    await row.getByTestId('mcp-server-headers-input').fill('X-Trace: edited');
    await row.getByTestId('mcp-server-resync').click();
    await page.getByTestId('mcp-sync-result').filter({ hasText: /Re-synced/ }).waitFor({ timeout: 20_000 });
    const headers = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-servers'))[0].headers);
    assert.deepEqual(headers, [['X-Trace', 'edited']]);
    assert.ok(sent.includes('edited'), sent.join(','));
    await context.close();
  });

  /**
   * Adds the reference server with every tool it offers, its read-only
   * hints trusted, and closes Settings.
   */
  async function addEverything(page) {
    assert.equal(await connect(page, 'everything', server.url), null);
    await page.getByTestId('mcp-add-trust-hints').check();
    await page.getByTestId('mcp-save').click();
    await page.getByTestId('settings-save').click();
  }

  test('a long call shows live progress, and a question is answered on its card', async () => {
    const { context, page, errors } = await h.freshPage();
    await addEverything(page);

    // Progress: the server reports each step while the card is open.
    h.model.enqueue(
      reply.calls([{ id: 'p1', name: 'mcp_everything_trigger-long-running-operation', arguments: '{"duration": 4, "steps": 4}' }]),
      reply.text('It finished.'),
    );
    await send(page, 'Run the long operation');
    const progress = page.getByTestId('tool-progress');
    await progress.filter({ hasText: /^[123] \/ 4$/ }).waitFor({ timeout: 20_000 });
    const seen = await progress.locator('progress').getAttribute('value');
    assert.ok(Number(seen) > 0 && Number(seen) < 1, `a partial bar, got ${seen}`);
    await page.getByText('It finished.').waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('tool-progress').count(), 0, 'no bar once it is done');
    assert.match(h.model.requests.at(-1).body.messages.at(-1).content, /Long running operation completed/);

    // A question: the server asks for a form; the card shows it.
    h.model.enqueue(
      reply.calls([{ id: 'q1', name: 'mcp_everything_trigger-elicitation-request', arguments: '{}' }]),
      reply.text('Thanks for answering.'),
    );
    await send(page, 'Ask me something');
    // Not marked read-only: asks first.
    await page.getByTestId('approve-once').click({ timeout: 20_000 });
    const question = page.getByTestId('tool-question');
    await question.waitFor({ timeout: 20_000 });
    assert.equal(await question.getByTestId('question-message').isVisible(), true);
    // Defaults are filled in (SEP-1034).
    assert.equal(await question.locator('[data-field=firstLine]').inputValue(), 'It was a dark and stormy night.');
    assert.equal(await question.locator('[data-field=integer]').inputValue(), '42');
    // A wrong value is explained and nothing is sent.
    await question.locator('[data-field=name]').fill('Ada Lovelace');
    await question.locator('[data-field=email]').fill('not an email');
    await question.getByTestId('question-submit').click();
    assert.match(await question.getByTestId('question-problems').textContent(), /not a valid e-mail address/);
    await question.locator('[data-field=email]').fill('ada@example.org');
    await question.locator('[data-field=integer]').fill('7');
    await question.getByTestId('question-submit').click();
    await page.getByText('Thanks for answering.').waitFor({ timeout: 20_000 });
    const result = h.model.requests.at(-1).body.messages.at(-1).content;
    assert.match(result, /"name": "Ada Lovelace"/);
    assert.match(result, /"email": "ada@example.org"/);
    assert.match(result, /"integer": 7/);
    assert.match(result, /"firstLine": "It was a dark and stormy night."/);
    assert.equal(await page.getByTestId('tool-question').count(), 0);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  test('Stop cancels a running call on the server', async () => {
    const { context, page } = await h.freshPage();
    await addEverything(page);
    const sent = [];
    page.on('request', (r) => { if (r.method() === 'POST' && r.url() === server.url) sent.push(r.postData() ?? ''); });
    h.model.enqueue(reply.calls([{ id: 's1', name: 'mcp_everything_trigger-long-running-operation', arguments: '{"duration": 60, "steps": 60}' }]));
    await send(page, 'Start something long');
    await page.getByTestId('tool-progress').waitFor({ timeout: 20_000 });
    await page.getByTestId('stop').click();
    const card = page.getByTestId('tool-card');
    await page.waitForFunction(() => document.querySelector('[data-testid=tool-card]')?.dataset.status === 'stopped', null, { timeout: 10_000 });
    assert.equal(await card.getAttribute('data-status'), 'stopped');
    const call = sent.map((b) => JSON.parse(b)).find((m) => m.method === 'tools/call');
    const cancel = sent.map((b) => JSON.parse(b)).find((m) => m.method === 'notifications/cancelled');
    assert.ok(cancel, `the server was told: ${sent.join('\n')}`);
    assert.equal(cancel.params.requestId, call.id);
    await context.close();
  });

  test('a server restarted mid-session recovers on the next call', async () => {
    const own = await startEverything();
    let again;
    try {
      const { context, page, errors } = await h.freshPage();
      assert.equal(await connect(page, 'restarting', own.url), null);
      await page.getByTestId('mcp-add-trust-hints').check();
      await page.getByTestId('mcp-save').click();
      await page.getByTestId('settings-save').click();
      const call = (id, message) => reply.calls([{ id, name: 'mcp_restarting_echo', arguments: JSON.stringify({ message }) }]);
      h.model.enqueue(call('r1', 'before'), reply.text('First done.'));
      await send(page, 'Echo before');
      await page.getByText('First done.').waitFor({ timeout: 20_000 });
      assert.equal(h.model.requests.at(-1).body.messages.at(-1).content, 'Echo: before');

      // The server restarts: it knows no session any more.
      await own.stop();
      again = await startEverything({ port: own.port });
      h.model.enqueue(call('r2', 'after'), reply.text('Second done.'));
      await send(page, 'Echo after');
      await page.getByText('Second done.').waitFor({ timeout: 30_000 });
      assert.equal(h.model.requests.at(-1).body.messages.at(-1).content, 'Echo: after');
      const cards = page.getByTestId('tool-card');
      assert.equal(await cards.nth(1).getAttribute('data-status'), 'done');
      const chip = page.locator('[data-testid=mcp-chip][data-server=restarting]');
      assert.equal(await chip.getAttribute('data-state'), 'connected');
      assert.deepEqual(errors.filter((e) => !/ERR_CONNECTION_REFUSED|net::|Failed to load resource/.test(e)), []);
      await context.close();
    } finally {
      await again?.stop();
      await own.stop();
    }
  });

  test('a server of the legacy HTTP+SSE transport (2024-11-05) is used too', async () => {
    const legacy = await startEverything({ transport: 'sse' });
    try {
      const { context, page, errors } = await h.freshPage();
      assert.equal(await connect(page, 'legacy', legacy.url), null);
      assert.ok(await page.getByTestId('mcp-pick').count() >= 10);
      await page.getByTestId('mcp-add-trust-hints').check();
      await page.getByTestId('mcp-save').click();
      await page.getByTestId('mcp-server-status').filter({ hasText: /Connected/ }).waitFor({ timeout: 20_000 });
      await page.getByTestId('settings-save').click();
      h.model.enqueue(
        reply.calls([{ id: 'l1', name: 'mcp_legacy_echo', arguments: '{"message":"over the old transport"}' }]),
        reply.text('Legacy works.'),
      );
      await send(page, 'Echo over legacy');
      await page.getByText('Legacy works.').waitFor({ timeout: 20_000 });
      assert.equal(h.model.requests.at(-1).body.messages.at(-1).content, 'Echo: over the old transport');
      assert.deepEqual(errors.filter((e) => !/404|Failed to load resource/.test(e)), []);
      await context.close();
    } finally {
      await legacy.stop();
    }
  });

  test('a prompt of the server is filled in, with its suggestions, and put into the composer', async () => {
    const { context, page, errors } = await h.freshPage();
    await addEverything(page);
    await page.getByTestId('prompts-open').click();
    const picker = page.getByTestId('prompt-picker');
    await picker.getByTestId('prompt-item').first().waitFor({ timeout: 20_000 });
    const names = await picker.getByTestId('prompt-item').evaluateAll((els) => els.map((e) => e.dataset.name));
    assert.deepEqual(names, ['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt']);

    // No arguments: its text goes straight into the composer.
    await picker.locator('[data-name=simple-prompt]').click();
    await page.getByTestId('prompt-picker').waitFor({ state: 'detached' });
    const draft = await page.getByTestId('composer-input').inputValue();
    assert.ok(draft.length > 0, 'the prompt text was inserted');

    // Arguments: a form; the server suggests values as the user types.
    await page.getByTestId('composer-input').fill('');
    await page.getByTestId('prompts-open').click();
    await page.locator('[data-testid=prompt-item][data-name=completable-prompt]').click();
    const form = page.getByTestId('prompt-form');
    await form.getByTestId('prompt-insert').click();
    assert.match(await form.textContent(), /Fill in the required arguments/);
    await form.locator('[data-field=department]').fill('E');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=prompt-suggestions] option')].some((o) => o.value === 'Engineering'), null, { timeout: 10_000 });
    await form.locator('[data-field=department]').fill('Engineering');
    await form.locator('[data-field=name]').fill('Alice');
    await form.getByTestId('prompt-insert').click();
    await page.getByTestId('prompt-form').waitFor({ state: 'detached' });
    const text = await page.getByTestId('composer-input').inputValue();
    assert.match(text, /Engineering/);
    assert.match(text, /Alice/);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  test('a page the server wants opened is shown with its domain, opened only when the user says so', async () => {
    const { context, page, errors } = await h.freshPage();
    await addEverything(page);
    const call = (id, args) => reply.calls([{ id, name: 'mcp_everything_trigger-url-elicitation', arguments: JSON.stringify(args) }]);
    // Asked mid-call (elicitation/create in URL mode).
    h.model.enqueue(call('u1', { url: 'https://auth.example.com/approve?x=1', message: 'Approve the deployment' }), reply.text('Opened.'));
    await send(page, 'Ask me to open a page');
    // Not marked read-only: asks, and is allowed from now on.
    await page.getByTestId('approve-always').click({ timeout: 20_000 });
    const question = page.getByTestId('tool-question');
    await question.waitFor({ timeout: 20_000 });
    assert.equal(await question.getByTestId('question-message').textContent(), 'Approve the deployment');
    assert.equal(await question.getByTestId('question-domain').textContent(), 'It asks you to open a page on auth.example.com.');
    assert.equal(await question.getByTestId('question-open').getAttribute('href'), 'https://auth.example.com/approve?x=1');
    const popup = context.waitForEvent('page');
    await question.getByTestId('question-open').click();
    await (await popup).close();
    await page.getByText('Opened.').waitFor({ timeout: 20_000 });
    assert.match(h.model.requests.at(-1).body.messages.at(-1).content, /"action": "accept"/);

    // Declined: nothing is opened and the server hears so.
    h.model.enqueue(call('u2', { url: 'https://auth.example.com/again' }), reply.text('Declined.'));
    await send(page, 'Once more');
    await page.getByTestId('question-decline').click();
    await page.getByText('Declined.').waitFor({ timeout: 20_000 });
    assert.match(h.model.requests.at(-1).body.messages.at(-1).content, /declined/);

    // Required before the call (error -32042): opened, then the call is tried again.
    h.model.enqueue(call('u3', { url: 'https://auth.example.com/first', errorPath: true }), reply.text('Tried again.'));
    await send(page, 'And the error path');
    await page.getByTestId('tool-question').waitFor({ timeout: 20_000 });
    const popup2 = context.waitForEvent('page');
    await page.getByTestId('question-open').click();
    await (await popup2).close();
    // Tried again, the server goes on with its own question (it asks
    // mid-call this time): opened as well.
    await page.getByTestId('tool-question').waitFor({ timeout: 20_000 });
    const popup3 = context.waitForEvent('page');
    await page.getByTestId('question-open').click();
    await (await popup3).close();
    await page.getByText('Tried again.').waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('tool-card').last().getAttribute('data-status'), 'done');
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  test('resources, and templates filled in, are attached to a message as context', async () => {
    const { context, page, errors } = await h.freshPage();
    const methods = [];
    page.on('request', (r) => {
      if (r.url() === server.url && r.method() === 'POST') methods.push(JSON.parse(r.postData()));
    });
    const sentOf = (method) => methods.filter((m) => m.method === method).map((m) => m.params.uri);
    await addEverything(page);
    await page.getByTestId('resources-open').click();
    const picker = page.getByTestId('resource-picker');
    const doc = picker.locator('[data-testid=resource-item][data-uri="demo://resource/static/document/architecture.md"]');
    await doc.waitFor({ timeout: 20_000 });
    await doc.click();
    await page.getByTestId('attachment').filter({ hasText: 'architecture.md' }).waitFor({ timeout: 20_000 });
    // The server offers subscriptions: the page follows the attached resource.
    await page.locator('[data-testid=attachment][data-live=true]').waitFor({ timeout: 20_000 });
    assert.deepEqual(sentOf('resources/subscribe'), ['demo://resource/static/document/architecture.md']);

    await page.getByTestId('resources-open').click();
    await page.locator('[data-testid=template-item][data-template="demo://resource/dynamic/text/{resourceId}"]').click();
    const form = page.getByTestId('template-form');
    await form.locator('[data-field=resourceId]').fill('7');
    await form.getByTestId('template-attach').click();
    await page.getByTestId('attachment').filter({ hasText: 'demo://resource/dynamic/text/7' }).waitFor({ timeout: 20_000 });
    // One can be taken off again, and its subscription ends.
    await page.getByTestId('resources-open').click();
    await picker.locator('[data-testid=resource-item][data-uri="demo://resource/static/document/features.md"]').click();
    const extra = page.getByTestId('attachment').filter({ hasText: 'features.md' });
    await extra.and(page.locator('[data-live=true]')).waitFor({ timeout: 20_000 });
    await extra.getByTestId('attachment-remove').click();
    await waitUntil(() => sentOf('resources/unsubscribe').length === 1);
    assert.deepEqual(sentOf('resources/unsubscribe'), ['demo://resource/static/document/features.md']);
    assert.equal(await page.getByTestId('attachment').count(), 2);

    h.model.enqueue(reply.text('I read them.'));
    await send(page, 'Summarise the attached documents');
    await page.getByText('I read them.').waitFor({ timeout: 20_000 });
    const user = h.model.requests.at(-1).body.messages.filter((m) => m.role === 'user').at(-1).content;
    assert.ok(user.startsWith('Summarise the attached documents\n\n<resource uri="demo://resource/static/document/architecture.md" mimeType="text/markdown">'), user.slice(0, 200));
    assert.match(user, /# Everything Server – Architecture/);
    assert.match(user, /<resource uri="demo:\/\/resource\/dynamic\/text\/7"/);
    assert.equal(await page.getByTestId('attachment').count(), 0, 'sent with the message, then cleared');
    // Sent, they are no longer followed.
    await waitUntil(() => sentOf('resources/unsubscribe').length === 3);
    assert.deepEqual(sentOf('resources/unsubscribe').slice(1).sort(), sentOf('resources/subscribe').filter((u) => !u.endsWith('features.md')).sort());
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });
});

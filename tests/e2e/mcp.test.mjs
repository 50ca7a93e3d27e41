// MCP from the page: a real MCP server (the reference "everything" server
// on 127.0.0.1) is added in Settings, its tools are saved, and the model
// calls one of them through the chat.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, scriptedHarness, send, startEverything } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

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
    assert.equal(await connect(page, 'everything', server.url), null);
    // The server's tools, all picked; nothing is saved before "Add".
    assert.equal(await page.getByTestId('mcp-pick').count(), 13);
    assert.equal(await page.evaluate(() => localStorage.getItem('air-agent-mcp-servers')), null);
    await page.getByTestId('mcp-pick-get-env').uncheck();
    assert.equal((await page.getByTestId('mcp-save').textContent()).trim(), 'Add with 12 tool(s)');
    await page.getByTestId('mcp-save').click();
    assert.equal((await page.getByTestId('mcp-add-result').textContent()).trim(), 'Added “everything” with 12 tool(s).');
    const row = page.getByTestId('mcp-server');
    assert.equal(await row.getByTestId('mcp-server-name').textContent(), 'everything');
    assert.equal(await row.getByTestId('mcp-server-tools').textContent(), '12 tools');
    // Saved with the picked tools: no reconnect is needed to know them.
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-servers')));
    assert.equal(saved[0].url, server.url);
    assert.ok(saved[0].tools.some((t) => t.name === 'echo' && t.inputSchema.required.includes('message')));
    assert.ok(!saved[0].tools.some((t) => t.name === 'get-env'), 'the unpicked tool is left out');
    await page.getByTestId('settings-save').click();

    h.model.enqueue(
      reply.calls([{ id: 'm1', name: 'mcp_everything_echo', arguments: '{"message":"hello from the page"}' }]),
      reply.text('The server echoed it.'),
    );
    const before = h.model.requests.length;
    await send(page, 'Echo something through MCP');
    await page.getByText('The server echoed it.').waitFor({ timeout: 20_000 });
    const offered = h.model.requests[before].body.tools.map((t) => t.function.name);
    assert.ok(offered.includes('mcp_everything_echo') && offered.includes('mcp_everything_get-sum'), offered.join(','));
    assert.ok(!offered.includes('mcp_everything_get-env'));
    const card = page.getByTestId('tool-card');
    assert.equal(await card.getAttribute('data-status'), 'done');
    assert.match(await card.locator('summary').textContent(), /mcp_everything_echo\s*everything/);
    const result = h.model.requests.at(-1).body.messages.at(-1);
    assert.deepEqual(result, { role: 'tool', content: 'Echo: hello from the page', tool_call_id: 'm1' });

    // Switched off, its tools are no longer offered.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-server-enabled').uncheck();
    await page.getByTestId('settings-save').click();
    h.model.enqueue(reply.text('No MCP now.'));
    await send(page, 'And now?');
    await page.getByText('No MCP now.').waitFor({ timeout: 20_000 });
    assert.ok(!h.model.requests.at(-1).body.tools.some((t) => t.function.name.startsWith('mcp_')));
    assert.deepEqual(errors, []);
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
    // Since then the server changed: echo was described differently, and
    // a tool it offered is gone.
    await page.evaluate(() => {
      const list = JSON.parse(localStorage.getItem('air-agent-mcp-servers'));
      list[0].tools.find((t) => t.name === 'echo').description = 'stale';
      list[0].tools.push({ name: 'old-tool', description: 'gone soon', inputSchema: { type: 'object' } });
      localStorage.setItem('air-agent-mcp-servers', JSON.stringify(list));
    });
    await page.reload();
    await page.getByTestId('open-settings').click();
    const row = page.getByTestId('mcp-server');
    assert.equal(await row.getByTestId('mcp-server-tools').textContent(), '14 tools');
    await row.getByTestId('mcp-server-resync').click();
    const result = page.getByTestId('mcp-sync-result').filter({ hasText: /Re-synced/ });
    await result.waitFor({ timeout: 20_000 });
    assert.equal((await result.textContent()).trim(), 'Re-synced: 1 updated, 0 added, 1 gone, 12 unchanged.');
    assert.equal(await page.getByTestId('mcp-server-tools').textContent(), '13 tools (+ 1 no longer offered)');
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-servers'))[0].tools);
    assert.equal(saved.find((t) => t.name === 'echo').description, 'Echoes back the input string');
    assert.equal(saved.find((t) => t.name === 'old-tool').gone, true);

    // A new address that does not answer changes nothing.
    await page.getByTestId('mcp-server-url').fill('http://127.0.0.1:9/mcp');
    await page.getByTestId('mcp-server-resync').click();
    await page.getByTestId('mcp-sync-result').filter({ hasText: /Could not re-sync/ }).waitFor({ timeout: 20_000 });
    const url = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-servers'))[0].url);
    assert.equal(url, server.url);
    await context.close();
  });
});

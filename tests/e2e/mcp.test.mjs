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

  async function addServer(page, name, url) {
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-name').fill(name);
    await page.getByTestId('mcp-url').fill(url);
    await page.getByTestId('mcp-add').click();
    await page.getByTestId('mcp-add-result').filter({ hasText: /Added|Could not/ }).waitFor({ timeout: 20_000 });
    return (await page.getByTestId('mcp-add-result').textContent()).trim();
  }

  test('a server is added from its URL and its tool is called in a chat', async () => {
    const { context, page, errors } = await h.freshPage();
    assert.equal(await addServer(page, 'everything', server.url), 'Added “everything” with 13 tool(s).');
    const row = page.getByTestId('mcp-server');
    assert.equal(await row.getByTestId('mcp-server-name').textContent(), 'everything');
    assert.equal(await row.getByTestId('mcp-server-tools').textContent(), '13 tools');
    // Saved with its tools: no reconnect is needed to know them.
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-servers')));
    assert.equal(saved[0].url, server.url);
    assert.ok(saved[0].tools.some((t) => t.name === 'echo' && t.inputSchema.required.includes('message')));
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
    const text = await addServer(page, 'nowhere', 'http://127.0.0.1:9/mcp');
    assert.match(text, /Could not add it: the MCP server could not be reached/);
    assert.equal(await page.getByTestId('mcp-server').count(), 0);
    await context.close();
  });
});

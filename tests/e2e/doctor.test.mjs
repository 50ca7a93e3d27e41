// The connectivity doctor against real servers misconfigured on purpose
// (the Python SDK's server with no CORS, with too few allowed headers) and
// a port nothing listens on: adding the server fails, and the page says
// exactly why and what to change.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, scriptedHarness, startPyMcp } from './support.mjs';
import { startScriptedModel } from '../support/scripted-model.mjs';

describe('Connectivity doctor (misconfigured real servers)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  const servers = [];
  after(async () => { for (const s of servers) await s.stop(); });

  /** Tries to add `url`; returns the doctor's finding and its snippets. */
  async function diagnose(url) {
    const { context, page } = await h.freshPage();
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-name').fill('broken');
    await page.getByTestId('mcp-url').fill(url);
    await page.getByTestId('mcp-add').click();
    const finding = page.getByTestId('doctor-finding');
    await finding.waitFor({ timeout: 30_000 });
    const text = (await finding.textContent()).trim();
    const snippets = await page.getByTestId('doctor-snippet').allTextContents();
    assert.match(await page.getByTestId('mcp-add-result').textContent(), /Could not add it/);
    await context.close();
    return { text, snippets };
  }

  test('a server without CORS: it answers, but not to this page', async () => {
    const server = await startPyMcp('stateless-json', 'none');
    servers.push(server);
    const { text, snippets } = await diagnose(server.url);
    assert.match(text, /answers, but not to this page/);
    assert.equal(snippets.length, 3);
    assert.match(snippets[0], /CORSMiddleware/);
    assert.match(snippets[0], new RegExp(`allow_origins=\\["${h.app.url.replace(/\/$/, '')}"\\]`));
    assert.match(snippets[1], /cors\(\{/);
    assert.match(snippets[2], /add_header Access-Control-Allow-Origin/);
  });

  test('a server that allows only Content-Type: the refused header is named', async () => {
    const server = await startPyMcp('stateless-json', 'content-type');
    servers.push(server);
    const { text, snippets } = await diagnose(server.url);
    assert.equal(text, "The server's CORS settings do not allow the request header MCP-Protocol-Version.");
    assert.match(snippets[0], /allow_headers=\["content-type", "mcp-protocol-version", "mcp-session-id"/);
  });

  test('nothing listening: said so, with nothing for a server owner to paste', async () => {
    const { text, snippets } = await diagnose(`http://127.0.0.1:${await freePort()}/mcp`);
    assert.match(text, /Nothing answers at this address/);
    assert.deepEqual(snippets, []);
  });
});

// Settings → MCP servers → Import: a configuration as other clients keep
// it is pasted; a local (stdio) server's bridge line is run as the page
// shows it (PyPI mcp-proxy in front of npm @modelcontextprotocol/
// server-memory, both installed ahead; `uvx` runs the installed copy)
// and the server is then connected and saved like a typed address; a
// remote entry's placeholder is asked and its headers sent; an entry that
// cannot work says why; Export writes the saved servers back, secrets
// only when asked. The doctor's bridge for a local server without CORS is
// run the same way.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, scriptedHarness, spawnServer, startEverything, startPyMcp } from './support.mjs';
import { startScriptedModel } from '../support/scripted-model.mjs';

/**
 * `uvx` for these tests, which run without the network: `uvx
 * mcp-proxy@VERSION ARGS…` runs the copy `./dev test` installed ahead
 * (AIR_MCP_PROXY), any other package is refused. Written with the path in
 * it, since mcp-proxy starts its server with a bare environment.
 */
function offlineUvx() {
  const program = process.env.AIR_MCP_PROXY;
  const version = process.env.AIR_MCP_PROXY_VERSION;
  if (!program || !version) throw new Error('AIR_MCP_PROXY and AIR_MCP_PROXY_VERSION are not set (./dev test sets them)');
  const dir = mkdtempSync(join(tmpdir(), 'air-uvx-'));
  writeFileSync(join(dir, 'uvx'), `#!/bin/sh\npkg="$1"\nshift\ncase "$pkg" in\n  "mcp-proxy@${version}") exec "${program}" "$@" ;;\n  *) echo "uvx (tests): $pkg is not installed here" >&2; exit 127 ;;\nesac\n`);
  chmodSync(join(dir, 'uvx'), 0o755);
  return dir;
}

/**
 * Runs `line` in a shell as a user would (cwd tests/, where the npm
 * servers are installed; `uvx` the offline one), in its own process group,
 * stopped by PID with everything it started.
 */
function runLine(line) {
  const env = { PATH: `${offlineUvx()}:${join(ROOT, 'tests/node_modules/.bin')}:${process.env.PATH}`, npm_config_offline: 'true' };
  return spawnServer('bash', ['-c', line], env, { cwd: join(ROOT, 'tests'), group: true });
}

/** Waits until something answers at `url`'s origin (the bridge is up). */
async function waitForBridge(url, run) {
  const status = new URL('/status', url).href;
  for (let i = 0; i < 300; i++) {
    if (run.child.exitCode !== null) throw new Error(`the bridge line exited:\n${run.output()}`);
    try { if ((await fetch(status)).status < 500) return; } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the bridge did not start:\n${run.output()}`);
}

describe('MCP configurations: import, bridges, export', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  const stops = [];
  after(async () => { for (const s of stops.reverse()) await s(); });

  test('a pasted mcpServers: the stdio server runs through the line shown and is saved, the remote one asks its token first', async () => {
    const everything = await startEverything();
    stops.push(everything.stop);
    const memoryFile = join(mkdtempSync(join(tmpdir(), 'air-memory-')), 'memory.jsonl');
    const config = {
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '${env:MEMORY_PATH}' } },
        everything: { type: 'http', url: everything.url, headers: { Authorization: 'Bearer ${input:token}', 'X-Team': 'blue' } },
        pigeon: { transport: 'carrier-pigeon' },
      },
    };
    const { context, page, errors } = await h.freshPage({ permissions: ['clipboard-read', 'clipboard-write'] });
    /** The line as "Copy the line" puts it on the clipboard (the page shows it masked). */
    const copied = async (entry) => {
      await entry.getByTestId('mcp-import-copy').click();
      return page.evaluate(() => navigator.clipboard.readText());
    };
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-import').locator('summary').click();
    await page.getByTestId('mcp-import-text').fill(JSON.stringify(config, null, 2));
    await page.getByTestId('mcp-import-read').click();
    const entries = page.getByTestId('mcp-import-entry');
    await entries.first().waitFor();
    assert.deepEqual(await entries.evaluateAll((es) => es.map((e) => [e.querySelector('[data-testid=mcp-import-name]').textContent, e.dataset.kind])),
      [['memory', 'stdio'], ['everything', 'remote'], ['pigeon', 'unusable']]);
    assert.match(await entries.nth(2).getByTestId('mcp-import-unusable').textContent(), /Cannot be used from a page: neither a url nor a command/);

    // The stdio entry asks for its variable before any line is shown.
    const memory = entries.nth(0);
    assert.equal(await memory.getByTestId('mcp-import-line').count(), 0);
    assert.equal(await memory.getByTestId('mcp-import-connect').count(), 0);
    await memory.locator('[data-key="env:MEMORY_PATH"]').fill(memoryFile);
    const port = 8100;
    const line = await copied(memory);
    const origin = new URL(h.app.url).origin;
    assert.equal(line, `uvx mcp-proxy@0.13.0 --port ${port} --allow-origin ${origin} -e MEMORY_FILE_PATH ${memoryFile} -- npx -y @modelcontextprotocol/server-memory`);
    // PowerShell gets its own quoting.
    await page.getByTestId('mcp-import-shell').selectOption('ps');
    assert.match(await copied(memory), / '--' npx -y '@modelcontextprotocol\/server-memory'$/);
    assert.equal(await page.getByTestId('mcp-import-bridge').count(), 0, 'supergateway is offered for POSIX shells only');
    await page.getByTestId('mcp-import-shell').selectOption('posix');
    // supergateway is offered with its warning.
    await page.getByTestId('mcp-import-bridge').selectOption('supergateway');
    assert.match(await memory.getByTestId('mcp-import-warning').textContent(), /every network interface/);
    await page.getByTestId('mcp-import-bridge').selectOption('mcp-proxy');
    assert.equal(await copied(memory), line);
    assert.equal((await memory.getByTestId('mcp-import-line').textContent()).trim(), line, 'nothing secret in it: shown as copied');

    const bridge = runLine(line);
    stops.push(bridge.stop);
    await waitForBridge(`http://127.0.0.1:${port}/mcp`, bridge);
    await memory.getByTestId('mcp-import-connect').click();
    assert.equal(await page.getByTestId('mcp-name').inputValue(), 'memory');
    assert.equal(await page.getByTestId('mcp-url').inputValue(), `http://127.0.0.1:${port}/mcp`);
    await page.getByTestId('mcp-picks').waitFor({ timeout: 60_000 });
    assert.ok(await page.getByTestId('mcp-pick-create_entities').count(), 'the memory server\'s tools are listed');
    await page.getByTestId('mcp-save').click();
    const saved = page.getByTestId('mcp-server').filter({ hasText: 'memory' });
    await saved.waitFor();
    assert.match(await saved.getByTestId('mcp-server-tools').textContent(), /\d+ tool/);

    // The remote entry: its token asked (as a password), then its headers sent.
    const remote = entries.nth(1);
    const token = remote.locator('[data-key="input:token"]');
    assert.equal(await token.getAttribute('type'), 'password');
    const sent = [];
    page.on('request', (r) => { if (r.url() === everything.url && r.method() === 'POST') sent.push(r.headers()); });
    await token.fill('s3cret-token');
    await remote.getByTestId('mcp-import-connect').click();
    assert.match(await page.getByTestId('mcp-form-headers').textContent(), /X-Team/);
    await page.getByTestId('mcp-picks').waitFor({ timeout: 30_000 });
    assert.ok(sent.length > 0 && sent.every((hd) => hd.authorization === 'Bearer s3cret-token' && hd['x-team'] === 'blue'), JSON.stringify(sent));
    await page.getByTestId('mcp-save').click();
    await page.getByTestId('mcp-server').filter({ hasText: 'everything' }).waitFor();

    // Export: the same form back, the token only when asked for.
    await page.getByTestId('mcp-export').click();
    const exported = JSON.parse(await page.getByTestId('mcp-export-text').inputValue());
    assert.deepEqual(Object.keys(exported.mcpServers).sort(), ['everything', 'memory']);
    assert.equal(exported.mcpServers.memory.url, `http://127.0.0.1:${port}/mcp`);
    assert.deepEqual(exported.mcpServers.everything.headers, { 'X-Team': 'blue' });
    assert.match(await page.getByTestId('mcp-export-left-out').textContent(), /1 secret header/);
    await page.getByTestId('mcp-export-secrets').check();
    await page.getByTestId('mcp-export').click();
    assert.equal(JSON.parse(await page.getByTestId('mcp-export-text').inputValue()).mcpServers.everything.headers.Authorization, 'Bearer s3cret-token');
    assert.deepEqual(errors.filter((e) => !/status of 400|Failed to load resource/.test(e)), []);
    await bridge.stop();
    await context.close();
  });

  test('a VS Code file (JSONC, inputs), Zed settings dropped, and a hostile one: each says what it is', async () => {
    const { context, page } = await h.freshPage();
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-import').locator('summary').click();
    const vscode = `{
      // .vscode/mcp.json
      "inputs": [{ "type": "promptString", "id": "dir", "description": "Folder to share", "default": "/srv/notes" }],
      "servers": { "fs": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "\${input:dir}"], }, },
    }`;
    await page.getByTestId('mcp-import-file').setInputFiles({ name: 'mcp.json', mimeType: 'application/json', buffer: Buffer.from(vscode) });
    const line = page.getByTestId('mcp-import-line');
    await line.waitFor();
    assert.match(await line.textContent(), /-- npx -y @modelcontextprotocol\/server-filesystem \/srv\/notes$/, 'the input\'s default is used');
    // Zed's settings dropped on the box: read as if pasted.
    const zed = JSON.stringify({ theme: 'One Dark', context_servers: { docs: { url: 'https://mcp.example.com/mcp', headers: { 'X-Team': 'blue' } } } });
    const drop = await page.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'settings.json', { type: 'application/json' }));
      return dt;
    }, zed);
    await page.getByTestId('mcp-import-text').dispatchEvent('drop', { dataTransfer: drop });
    await page.getByTestId('mcp-import-name').filter({ hasText: 'docs' }).waitFor();
    assert.equal(await page.getByTestId('mcp-import-text').inputValue(), zed);
    assert.deepEqual(await page.getByTestId('mcp-import-entry').evaluateAll((es) => es.map((e) => e.dataset.kind)), ['remote']);
    // A 60,000-character argument: the entry stays a few lines tall, the
    // whole line is there to scroll through and to copy.
    const long = 'x'.repeat(60_000);
    await page.getByTestId('mcp-import-text').fill(JSON.stringify({ mcpServers: { big: { command: 'npx', args: ['-y', 'some-server', long] } } }));
    await page.getByTestId('mcp-import-read').click();
    const big = page.getByTestId('mcp-import-entry').filter({ has: page.getByTestId('mcp-import-name').filter({ hasText: 'big' }) });
    await big.getByTestId('mcp-import-line').waitFor();
    const height = await big.evaluate((el) => el.getBoundingClientRect().height);
    assert.ok(height < 800, `the entry is ${height} px tall`);
    assert.ok((await big.getByTestId('mcp-import-line').textContent()).includes(long), 'the line is whole');
    await page.getByTestId('mcp-import-text').fill('{"mcpServers": ' + '['.repeat(5000) + ']'.repeat(5000) + '}');
    await page.getByTestId('mcp-import-read').click();
    assert.match(await page.getByTestId('mcp-import-error').textContent(), /Nested too deeply|Not JSON|cannot be read/);
    assert.equal(await page.getByTestId('mcp-import-entry').count(), 0);
    await context.close();
  });

  test('the doctor: a local server without CORS gets a bridge line that makes it usable', async () => {
    const server = await startPyMcp('stateful', 'none');
    stops.push(server.stop);
    const { context, page } = await h.freshPage();
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-name').fill('local');
    await page.getByTestId('mcp-url').fill(server.url);
    await page.getByTestId('mcp-add').click();
    const shown = page.getByTestId('doctor-bridge-line');
    await shown.waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId('doctor-bridge').textContent(), /usually run over stdio/);
    const origin = new URL(h.app.url).origin;
    const line = (await shown.textContent()).trim();
    assert.equal(line, `uvx mcp-proxy@0.13.0 --port 8101 --allow-origin ${origin} -- uvx mcp-proxy@0.13.0 --transport streamablehttp ${server.url}`);
    const bridge = runLine(line);
    stops.push(bridge.stop);
    await waitForBridge('http://127.0.0.1:8101/mcp', bridge);
    await page.getByTestId('mcp-url').fill('http://127.0.0.1:8101/mcp');
    await page.getByTestId('mcp-add').click();
    await page.getByTestId('mcp-picks').waitFor({ timeout: 60_000 });
    await page.getByTestId('mcp-save').click();
    await page.getByTestId('mcp-server').filter({ hasText: 'local' }).waitFor();
    await bridge.stop();
    await context.close();
  });
});

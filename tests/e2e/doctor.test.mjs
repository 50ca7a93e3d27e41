// The connectivity doctor against real servers misconfigured on purpose
// (the Python SDK's server with no CORS, another site's origin, too few
// allowed headers, no preflight, hidden response headers), addresses where
// nothing answers (a closed port, a name that does not resolve, TLS to a
// plain-HTTP port), an https page meeting an http server, and a public page
// meeting a local one (Chromium's Local Network Access): adding the
// server fails, and the page says exactly why and what to change.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, ROOT, configure, freePort, openApp, scriptedHarness, startPyMcp } from './support.mjs';
import { startScriptedModel } from '../support/scripted-model.mjs';
import { startStaticServer } from '../support/static-server.mjs';

describe('Connectivity doctor (misconfigured real servers)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  const servers = [];
  after(async () => { for (const s of servers) await s.stop(); });

  /** Tries to add `url`; returns the doctor's finding and its snippets. */
  async function diagnose(url, result = /Could not add it/) {
    const { context, page } = await h.freshPage();
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-name').fill('broken');
    await page.getByTestId('mcp-url').fill(url);
    await page.getByTestId('mcp-add').click();
    const finding = page.getByTestId('doctor-finding');
    await finding.waitFor({ timeout: 30_000 });
    const text = (await finding.textContent()).trim();
    const snippets = await page.getByTestId('doctor-snippet').allTextContents();
    if (result) assert.match(await page.getByTestId('mcp-add-result').textContent(), result);
    else assert.equal(await page.getByTestId('mcp-sign-in-needed').isVisible(), true, 'a sign-in is offered too');
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

  test('a server that allows another origin: the Origin is refused', async () => {
    const server = await startPyMcp('stateless-json', 'other-origin');
    servers.push(server);
    const { text, snippets } = await diagnose(server.url);
    assert.equal(text, 'The server answers, but not to this page: its CORS settings do not allow this origin.');
    assert.match(snippets[0], new RegExp(`allow_origins=\\["${h.app.url.replace(/\/$/, '')}"\\]`));
  });

  test('a server that refuses the preflight: said so, though simple requests pass', async () => {
    const server = await startPyMcp('stateless-json', 'no-preflight');
    servers.push(server);
    const { text, snippets } = await diagnose(server.url);
    assert.match(text, /refuses the browser's preflight \(OPTIONS\)/);
    assert.equal(snippets.length, 3);
  });

  test('a session server that hides Mcp-Session-Id: the header is named', async () => {
    const server = await startPyMcp('stateful', 'no-expose');
    servers.push(server);
    const { text, snippets } = await diagnose(server.url);
    assert.equal(text, 'The server sends Mcp-Session-Id, but its CORS settings hide it from the page (Access-Control-Expose-Headers).');
    assert.match(snippets[0], /expose_headers=\["Mcp-Session-Id", "MCP-Protocol-Version", "WWW-Authenticate"\]/);
  });

  test('a server behind sign-in that hides WWW-Authenticate: the header is named', async () => {
    const server = await startPyMcp('stateless-json', 'hidden-auth');
    servers.push(server);
    const { text } = await diagnose(server.url, null);
    assert.equal(text, 'The server sends WWW-Authenticate, but its CORS settings hide it from the page (Access-Control-Expose-Headers).');
  });

  test('a name that does not resolve, and TLS to a plain-HTTP port: nothing answers', async () => {
    const dns = await diagnose('http://no-such-host.invalid/mcp');
    assert.match(dns.text, /Nothing answers at this address/);
    const server = await startPyMcp('stateless-json');
    servers.push(server);
    const tls = await diagnose(server.url.replace('http://', 'https://'));
    assert.match(tls.text, /Nothing answers at this address/);
    assert.deepEqual(tls.snippets, []);
  });

  test('a model provider without CORS: diagnosed from Settings → Test', async () => {
    // An OpenAI-compatible endpoint that answers, but sends no CORS headers.
    const provider = createServer((req, res) => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end('{"object":"list","data":[{"id":"m"}]}'); });
    await new Promise((ok) => provider.listen(0, '127.0.0.1', ok));
    try {
      const { context, page } = await h.freshPage();
      await page.getByTestId('open-settings').click();
      await page.getByTestId('settings-base-url').fill(`http://127.0.0.1:${provider.address().port}/v1`);
      await page.getByTestId('settings-test').click();
      const finding = page.getByTestId('doctor-finding');
      await finding.waitFor({ timeout: 30_000 });
      assert.equal((await finding.textContent()).trim(), 'The server answers, but not to this page: its CORS settings do not allow this origin.');
      const snippets = await page.getByTestId('doctor-snippet').allTextContents();
      assert.match(snippets[0], /expose_headers=\["Retry-After"\]/);
      assert.doesNotMatch(snippets.join(' '), /Mcp-Session-Id/);
      await context.close();
    } finally {
      await new Promise((ok) => provider.close(ok));
    }
  });

  test('nothing listening: said so, with nothing for a server owner to paste', async () => {
    const { text, snippets } = await diagnose(`http://127.0.0.1:${await freePort()}/mcp`);
    assert.match(text, /Nothing answers at this address/);
    assert.deepEqual(snippets, []);
  });
});

describe('Connectivity doctor (an https page)', () => {
  let app;
  let model;
  let browser;
  const servers = [];
  before(async () => {
    const tls = { key: readFileSync(join(ROOT, 'tests/fixtures/tls/key.pem')), cert: readFileSync(join(ROOT, 'tests/fixtures/tls/cert.pem')) };
    app = await startStaticServer(join(ROOT, 'dist'), 0, { tls, host: 'app.test' });
    model = await startScriptedModel();
    // app.test and mcp.test are this machine; the test certificate is accepted.
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP app.test 127.0.0.1, MAP mcp.test 127.0.0.1', '--ignore-certificate-errors'],
    });
  });
  after(async () => {
    await browser?.close();
    await model?.stop();
    app?.server.close();
    for (const s of servers) await s.stop();
  });

  test('a local server from a public page: private-network protection', async () => {
    const server = await startPyMcp('stateless-json');
    servers.push(server);
    // This page's address counts as public; the server's (loopback) does not.
    const port = new URL(app.url).port;
    const b = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP app.test 127.0.0.1', '--ignore-certificate-errors', `--ip-address-space-overrides=127.0.0.1:${port}=public`],
    });
    try {
      const page = await (await b.newContext()).newPage();
      await openApp(page, app.url);
      await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
      await page.getByTestId('open-settings').click();
      await page.getByTestId('mcp-name').fill('local');
      await page.getByTestId('mcp-url').fill(server.url);
      await page.getByTestId('mcp-add').click();
      const finding = page.getByTestId('doctor-finding');
      await finding.waitFor({ timeout: 30_000 });
      assert.equal((await finding.textContent()).trim(), "The server is on a private network and this page is not: the browser's private-network protection blocked the request.");
      assert.match((await page.getByTestId('doctor-snippet').allTextContents()).join(' '), /Local Network Access/);
    } finally {
      await b.close();
    }
  });

  test('an http server from an https page: mixed content', async () => {
    const server = await startPyMcp('stateless-json');
    servers.push(server);
    const context = await browser.newContext();
    const page = await context.newPage();
    await openApp(page, app.url);
    await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-name').fill('plain');
    // The same server by a name that is not loopback (loopback is exempt).
    await page.getByTestId('mcp-url').fill(server.url.replace('127.0.0.1', 'mcp.test'));
    await page.getByTestId('mcp-add').click();
    const finding = page.getByTestId('doctor-finding');
    await finding.waitFor({ timeout: 30_000 });
    assert.equal((await finding.textContent()).trim(), 'This page is served over https and the server over http: browsers block such requests (mixed content).');
    assert.deepEqual(await page.getByTestId('doctor-snippet').allTextContents(), []);
    await context.close();
  });
});

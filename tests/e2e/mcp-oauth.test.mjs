// An MCP server that asks for OAuth (PyPI `fastmcp` with its in-memory
// authorization server, started by the test on 127.0.0.1): the page reads
// the 401, finds the authorization server, registers itself, and signs in
// through a popup that comes back to the app's callback page (or, with
// popups blocked, through the whole page); the token goes to that server
// only, survives a reload, is refreshed when it runs out, and leaves with
// the server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configure, openApp, scriptedHarness, send, startOAuthMcp } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

describe('MCP server behind OAuth (fastmcp, scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  let server;
  before(async () => { server = await startOAuthMcp(); });
  after(async () => { await server?.stop(); });

  test('the user signs in through a popup, and the server’s tool is called with its token', async () => {
    const { context, page, errors } = await h.freshPage();
    const toServer = [];
    const toOthers = [];
    context.on('request', (r) => {
      const auth = r.headers().authorization;
      if (r.url().startsWith(server.origin)) toServer.push({ url: r.url(), method: r.method(), auth });
      else if (auth) toOthers.push({ url: r.url(), auth });
    });
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-name').fill('notes');
    await page.getByTestId('mcp-url').fill(server.url);
    await page.getByTestId('mcp-add').click();
    // Refused without a token: the page says it needs a sign-in.
    const signIn = page.getByTestId('mcp-sign-in');
    await signIn.waitFor({ timeout: 20_000 });
    assert.match(await page.getByTestId('mcp-sign-in-needed').textContent(), /asks you to sign in/);

    const popup = context.waitForEvent('page');
    await signIn.click();
    const win = await popup;
    // The popup goes to the authorization page, which sends it back to the
    // app's callback page; that hands the answer over and closes.
    await win.waitForEvent('close', { timeout: 20_000 });
    await page.getByTestId('mcp-picks').waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('mcp-pick').count(), 1);
    await page.getByTestId('mcp-save').click();
    await page.getByTestId('mcp-server-status').filter({ hasText: /Connected/ }).waitFor({ timeout: 20_000 });
    await page.getByTestId('settings-save').click();

    // What happened on the wire: discovery, registration, the authorization
    // page, the token, then the MCP requests with the token.
    const paths = toServer.map((r) => `${r.method} ${new URL(r.url).pathname}`);
    for (const step of ['GET /.well-known/oauth-protected-resource/mcp', 'POST /register', 'GET /authorize', 'POST /token']) {
      assert.ok(paths.includes(step), `${step} in ${paths.join(', ')}`);
    }
    const authorize = new URL(toServer.find((r) => new URL(r.url).pathname === '/authorize').url);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('resource'), server.url);
    assert.equal(authorize.searchParams.get('redirect_uri'), new URL('oauth-callback.html', h.app.url).href);
    const vault = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-oauth')));
    const grant = vault.grants[server.url];
    assert.ok(grant.tokens.access_token, 'the token is kept for this server');
    assert.ok(vault.clients[grant.discovery.server.issuer].client_id, 'the client is kept by issuer');

    h.model.enqueue(reply.calls([{ id: 's1', name: 'mcp_notes_secret_note', arguments: '{}' }]), reply.text('Read it.'));
    await send(page, 'Read the secret note');
    await page.getByTestId('approve-once').click();
    await page.getByText('Read it.').waitFor({ timeout: 20_000 });
    assert.equal(h.model.requests.at(-1).body.messages.at(-1).content, 'the owl flies at midnight');
    const bearer = `Bearer ${grant.tokens.access_token}`;
    assert.ok(toServer.some((r) => r.method === 'POST' && new URL(r.url).pathname === '/mcp' && r.auth === bearer), 'the MCP requests carry the token');
    assert.deepEqual(toOthers, [], 'no other origin got an Authorization header');

    // Removing the server forgets its token.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-server-remove').click();
    await page.waitForFunction(() => !Object.keys(JSON.parse(localStorage.getItem('air-agent-mcp-oauth')).grants).length, null, { timeout: 10_000 });
    assert.deepEqual(errors.filter((e) => !/status of 401|status of 400|Failed to load resource/.test(e)), []);
    await context.close();
  });

  test('with popups blocked the whole page signs in; the token survives a reload and is refreshed when it runs out', async () => {
    const short = await startOAuthMcp('short-tokens');
    try {
      const context = await h.browser.newContext();
      // A popup blocker: window.open gives nothing.
      await context.addInitScript(() => { window.open = () => null; });
      const page = await context.newPage();
      const errors = await openApp(page, h.app.url);
      await configure(page, { baseUrl: h.model.baseUrl, model: 'scripted-model' });
      const tokenRequests = [];
      context.on('request', (r) => {
        if (r.url() === `${short.origin}/token`) tokenRequests.push(new URLSearchParams(r.postData() ?? '').get('grant_type'));
      });
      const add = async () => {
        await page.getByTestId('open-settings').click();
        await page.getByTestId('mcp-name').fill('brief');
        await page.getByTestId('mcp-url').fill(short.url);
        await page.getByTestId('mcp-add').click();
      };
      await add();
      await page.getByTestId('mcp-sign-in').waitFor({ timeout: 20_000 });
      // The page itself goes to the authorization server and comes back.
      const visited = [];
      page.on('framenavigated', (f) => { if (f === page.mainFrame()) visited.push(new URL(f.url()).pathname); });
      await page.getByTestId('mcp-sign-in').click();
      let granted = false;
      for (let i = 0; i < 100 && !granted; i++) {
        await new Promise((r) => setTimeout(r, 200));
        granted = await page.evaluate((url) => !!JSON.parse(localStorage.getItem('air-agent-mcp-oauth') ?? '{}').grants?.[url], short.url).catch(() => false);
      }
      assert.ok(granted, 'signed in through the whole page');
      assert.ok(visited.includes('/oauth-callback.html'), `back through the callback page: ${visited.join(', ')}`);
      assert.equal(new URL(page.url()).pathname, '/', 'back in the app');
      await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
      assert.deepEqual(tokenRequests, ['authorization_code']);
      // Signed in: adding it again lists its tools at once.
      await add();
      await page.getByTestId('mcp-picks').waitFor({ timeout: 20_000 });
      await page.getByTestId('mcp-save').click();
      await page.getByTestId('settings-save').click();

      // A reload keeps the token: connected, with no question.
      await page.reload();
      await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
      await page.getByTestId('open-settings').click();
      await page.getByTestId('mcp-server-status').filter({ hasText: /Connected/ }).waitFor({ timeout: 20_000 });
      assert.equal(await page.getByTestId('mcp-sign-in').count(), 0);
      await page.getByTestId('settings-save').click();

      // The 3-second token has run out: refreshed without the user noticing.
      await new Promise((r) => setTimeout(r, 3500));
      h.model.enqueue(reply.calls([{ id: 'b1', name: 'mcp_brief_secret_note', arguments: '{}' }]), reply.text('Read it again.'));
      await send(page, 'Read the note once more');
      await page.getByTestId('approve-once').click();
      await page.getByText('Read it again.').waitFor({ timeout: 20_000 });
      assert.equal(h.model.requests.at(-1).body.messages.at(-1).content, 'the owl flies at midnight');
      assert.ok(tokenRequests.includes('refresh_token'), `a refresh: ${tokenRequests.join(', ')}`);
      assert.equal(await page.getByTestId('mcp-sign-in-needed').count(), 0, 'no sign-in asked');
      assert.deepEqual(errors.filter((e) => !/status of 401|status of 400|Failed to load resource/.test(e)), []);
      await context.close();
    } finally {
      await short.stop();
    }
  });

  test('a token endpoint that refuses this page is named', async () => {
    const closed = await startOAuthMcp('no-cors-token');
    try {
      const { context, page } = await h.freshPage();
      await page.getByTestId('open-settings').click();
      await page.getByTestId('mcp-name').fill('closed');
      await page.getByTestId('mcp-url').fill(closed.url);
      await page.getByTestId('mcp-add').click();
      await page.getByTestId('mcp-sign-in').waitFor({ timeout: 20_000 });
      const popup = context.waitForEvent('page');
      await page.getByTestId('mcp-sign-in').click();
      await (await popup).waitForEvent('close', { timeout: 20_000 });
      const error = page.getByTestId('mcp-sign-in-error');
      await error.waitFor({ timeout: 20_000 });
      assert.equal(
        (await error.textContent()).trim(),
        `Could not sign in: ${closed.origin}/token answers, but not to this page: the authorization server must allow this page's origin by CORS on its metadata, registration and token endpoints`,
      );
      assert.equal(await page.getByTestId('mcp-sign-in').isEnabled(), true, 'the user can try again');
      const vault = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-oauth') ?? '{}'));
      assert.deepEqual(vault.grants ?? {}, {}, 'no token kept');
      await context.close();
    } finally {
      await closed.stop();
    }
  });
});

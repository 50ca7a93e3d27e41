// An MCP server that asks for OAuth (PyPI `fastmcp` with its in-memory
// authorization server, started by the test on 127.0.0.1): the page reads
// the 401, finds the authorization server, registers itself, and signs in
// through a popup that comes back to the app's callback page (or, with
// popups blocked, through the whole page); the token goes to that server
// only, survives a reload, is refreshed when it runs out, and leaves with
// the server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, configure, openApp, scriptedHarness, send, startOAuthMcp } from './support.mjs';
import { startStaticServer } from '../support/static-server.mjs';
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

    // The grant is gone (revoked elsewhere, say): the call fails, and its
    // card offers the sign-in.
    await page.evaluate((url) => {
      const v = JSON.parse(localStorage.getItem('air-agent-mcp-oauth'));
      delete v.grants[url];
      localStorage.setItem('air-agent-mcp-oauth', JSON.stringify(v));
    }, server.url);
    h.model.enqueue(reply.calls([{ id: 's2', name: 'mcp_notes_secret_note', arguments: '{}' }]), reply.text('It refused.'));
    await send(page, 'Read it again');
    await page.getByTestId('approve-once').click();
    await page.getByText('It refused.').waitFor({ timeout: 20_000 });
    const card = page.getByTestId('tool-card').last();
    await card.locator('summary').click();
    const again = context.waitForEvent('page');
    await card.getByTestId('tool-sign-in-button').click();
    await (await again).waitForEvent('close', { timeout: 20_000 });
    await card.getByTestId('tool-sign-in-outcome').waitFor({ timeout: 20_000 });
    assert.equal((await card.getByTestId('tool-sign-in-outcome').textContent()).trim(), 'Signed in. Ask again to run it.');
    assert.equal(await card.getByTestId('tool-sign-in').count(), 0, 'no longer asked');

    // Signing out forgets the token and keeps the server; removing it
    // forgets its token too.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-server-sign-out').click();
    await page.getByTestId('mcp-server-sign-in').waitFor({ timeout: 10_000 });
    assert.equal(await page.evaluate((url) => url in JSON.parse(localStorage.getItem('air-agent-mcp-oauth')).grants, server.url), false);
    await page.getByTestId('mcp-server-sign-in').click();
    await page.getByTestId('mcp-server-sign-out').waitFor({ timeout: 20_000 });
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
      let tokenInFlight = 0;
      context.on('request', (r) => {
        if (r.url() !== `${short.origin}/token`) return;
        tokenRequests.push(new URLSearchParams(r.postData() ?? '').get('grant_type'));
        tokenInFlight++;
      });
      const tokenAnswers = [];
      context.on('response', async (r) => { if (r.url() === `${short.origin}/token`) tokenAnswers.push(`${r.status()} ${await r.text().catch(() => '')}`); });
      const settled = (r) => { if (r.url() === `${short.origin}/token`) tokenInFlight--; };
      context.on('requestfinished', settled);
      context.on('requestfailed', settled);
      const waitUntilQuiet = async () => {
        for (let i = 0; i < 100 && tokenInFlight > 0; i++) await new Promise((r) => setTimeout(r, 100));
        await new Promise((r) => setTimeout(r, 300));
      };
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
      // Back where the user was: the add form, now listing the tools.
      await page.getByTestId('mcp-picks').waitFor({ timeout: 20_000 });
      assert.equal(await page.getByTestId('mcp-name').inputValue(), 'brief');
      await page.getByTestId('mcp-save').click();
      await page.getByTestId('settings-save').click();

      // A reload keeps the token: connected, with no question. (Reloading
      // while a refresh is on its way would lose the refresh token it
      // replaces; a person reloads when nothing is going on.)
      await waitUntilQuiet();
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
      assert.equal(h.model.requests.at(-1).body.messages.at(-1).content, 'the owl flies at midnight', `token requests: ${tokenRequests.join(', ')}; answers: ${tokenAnswers.join(' | ')}; server: ${short.output()}`);
      assert.ok(tokenRequests.includes('refresh_token'), `a refresh: ${tokenRequests.join(', ')}`);
      assert.equal(await page.getByTestId('mcp-sign-in-needed').count(), 0, 'no sign-in asked');
      assert.deepEqual(errors.filter((e) => !/status of 401|status of 400|Failed to load resource/.test(e)), []);
      await context.close();
    } finally {
      await short.stop();
    }
  });

  test('a server that registers no clients: signed in with the client id the user enters', async () => {
    const pre = await startOAuthMcp('preregistered', [new URL('oauth-callback.html', h.app.url).href]);
    try {
      const { context, page } = await h.freshPage();
      await page.getByTestId('open-settings').click();
      await page.getByTestId('mcp-name').fill('given');
      await page.getByTestId('mcp-url').fill(pre.url);
      await page.getByTestId('mcp-add').click();
      await page.getByTestId('mcp-sign-in').waitFor({ timeout: 20_000 });
      // Without an id: it says one is needed (the popup closes by itself).
      await page.getByTestId('mcp-sign-in').click();
      const error = page.getByTestId('mcp-sign-in-error');
      await error.waitFor({ timeout: 20_000 });
      assert.match(await error.textContent(), /registers no clients by itself: enter a client id for this server/);
      // With the id it was given.
      await page.getByTestId('mcp-client-id').fill('air-agent-test');
      const popup = context.waitForEvent('page');
      await page.getByTestId('mcp-sign-in').click();
      await (await popup).waitForEvent('close', { timeout: 20_000 });
      await page.getByTestId('mcp-picks').waitFor({ timeout: 20_000 });
      const vault = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-oauth')));
      assert.deepEqual(Object.values(vault.clients).map((c) => c.client_id), ['air-agent-test']);
      await context.close();
    } finally {
      await pre.stop();
    }
  });

  test('a deployment that serves its Client ID Metadata Document is known by it', async () => {
    // This deployment serves the document `./dev build` writes for its public URL.
    const extra = {};
    const app = await startStaticServer(join(ROOT, 'dist'), 0, { extra });
    const documentUrl = `${app.url}/oauth-client-metadata.json`;
    extra['/oauth-client-metadata.json'] = JSON.stringify({
      client_id: documentUrl,
      client_name: 'Air Agent',
      redirect_uris: [`${app.url}/oauth-callback.html`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'web',
    });
    const cimd = await startOAuthMcp('cimd');
    const context = await h.browser.newContext();
    try {
      const page = await context.newPage();
      await openApp(page, app.url);
      await configure(page, { baseUrl: h.model.baseUrl, model: 'scripted-model' });
      const registrations = [];
      context.on('request', (r) => { if (r.url().endsWith('/register')) registrations.push(r.url()); });
      await page.getByTestId('open-settings').click();
      await page.getByTestId('mcp-name').fill('documented');
      await page.getByTestId('mcp-url').fill(cimd.url);
      await page.getByTestId('mcp-add').click();
      await page.getByTestId('mcp-sign-in').waitFor({ timeout: 20_000 });
      const popup = context.waitForEvent('page');
      await page.getByTestId('mcp-sign-in').click();
      const win = await popup;
      await win.waitForEvent('close', { timeout: 20_000 });
      await page.getByTestId('mcp-picks').waitFor({ timeout: 20_000 });
      const vault = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-mcp-oauth')));
      assert.deepEqual(Object.values(vault.clients).map((c) => c.client_id), [documentUrl], 'the document URL is the client id');
      assert.deepEqual(registrations, [], 'nothing registered');
      assert.match(cimd.output(), new RegExp(`fetched client metadata document ${documentUrl}`), 'the authorization server read the document');
    } finally {
      await context.close();
      await cimd.stop();
      app.server.close();
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

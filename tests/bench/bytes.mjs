// What a newcomer downloads: the bytes the server sends, on the wire
// (compressed as it sends them), from a cold cache until the app is ready
// (the first visit) and until the first streamed token of a first answer
// is on screen. The provider is set before the page opens (as a deployment
// with an embedded provider or a returning user's settings would be), so
// the settings drawer is not in the path.
import { join } from 'node:path';
import { ROOT, configure, openApp } from '../e2e/support.mjs';
import { startStaticServer } from '../support/static-server.mjs';

/** The settings a configured profile stores (read once from a real one). */
async function storedSettings(browser, app, model) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openApp(page, app.url);
  await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
  const settings = await page.evaluate(() => localStorage.getItem('air-agent-settings'));
  await context.close();
  return settings;
}

/**
 * Serves dist/ with `compressed` (true: brotli, 'gzip', false: none) and
 * counts what it sends; resolves to { visit, answer, files } in bytes
 * (`files`: each file sent until the first token, with its size).
 */
export async function firstAnswer(browser, model, compressed) {
  const sent = [];
  const app = await startStaticServer(join(ROOT, 'dist'), 0, { compressed, onSent: (s) => sent.push(s) });
  try {
    const settings = await storedSettings(browser, app, model);
    sent.length = 0;
    const context = await browser.newContext();
    await context.addInitScript((s) => { if (!localStorage.getItem('air-agent-settings')) localStorage.setItem('air-agent-settings', s); }, settings);
    const page = await context.newPage();
    await page.goto(app.url);
    await page.waitForFunction(() => performance.getEntriesByName('air-ready').length > 0, null, { timeout: 60_000 });
    const total = () => sent.reduce((n, s) => n + s.bytes, 0);
    const visit = total();
    model.enqueue({ status: 200, events: [
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'First' } }] })}\n\n`,
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: ' answer.' }, finish_reason: 'stop' }] })}\n\n`,
      'data: [DONE]\n\n',
    ], delayMs: 0 });
    await page.getByTestId('composer-input').fill('Hello');
    await page.getByTestId('composer-input').press('Enter');
    await page.getByTestId('message-assistant').getByText('First').waitFor({ timeout: 60_000 });
    const answer = total();
    // Sent as asked (a browser that stopped accepting brotli would make
    // the brotli row gzip's).
    const want = compressed === true ? 'br' : compressed || null;
    const got = [...new Set(sent.filter((s) => s.path.endsWith('.wasm')).map((s) => s.encoding))];
    if (got.length !== 1 || got[0] !== want) throw new Error(`the wasm was sent as ${got.join(', ')}, not ${want}`);
    const files = new Map();
    for (const s of sent) files.set(s.path, (files.get(s.path) ?? 0) + s.bytes);
    await context.close();
    return { visit, answer, files: [...files].sort((a, b) => b[1] - a[1]) };
  } finally {
    app.server.closeAllConnections();
    app.server.close();
  }
}

// Settings: presets, the connection test (OK, CORS, network, 401, 404),
// request parameters and the system prompt template, theme.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { configure, launchBrowser, openApp, send, serveApp } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

describe('settings', () => {
  let browser, app, model, noCors;

  before(async () => {
    app = await serveApp();
    model = await startScriptedModel();
    // A server that answers but sends no CORS headers.
    noCors = createServer((req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data":[]}'));
    await new Promise((ok) => noCors.listen(0, '127.0.0.1', ok));
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await model?.stop();
    noCors?.close();
    app?.server.close();
  });

  async function testConnection(page, { baseUrl, key = '' }) {
    await page.getByTestId('settings-base-url').fill(baseUrl);
    await page.getByTestId('settings-api-key').fill(key);
    await page.getByTestId('settings-test').click();
    const result = page.getByTestId('settings-test-result');
    await page.waitForFunction(() => {
      const t = document.querySelector('[data-testid=settings-test-result]')?.textContent ?? '';
      return t && t !== 'Testing…';
    }, null, { timeout: 15_000 });
    return result.textContent();
  }

  test('the Test button tells success, CORS, network, 401 and 404 apart', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await openApp(page, app.url);
    await page.getByTestId('open-settings').click();

    assert.match(await testConnection(page, { baseUrl: model.baseUrl }), /Connected: 2 model\(s\) available/);
    await page.getByTestId('model-list').getByText('scripted-large').click();
    assert.equal(await page.getByTestId('settings-model').inputValue(), 'scripted-large');

    const cors = await testConnection(page, { baseUrl: `http://127.0.0.1:${noCors.address().port}/v1` });
    assert.match(cors, /does not allow requests from this page \(CORS\).*Access-Control-Allow-Origin/);
    assert.match(await testConnection(page, { baseUrl: 'http://127.0.0.1:9/v1' }), /Could not reach http:\/\/127\.0\.0\.1:9\/v1\/models/);
    assert.match(await testConnection(page, { baseUrl: model.baseUrl, key: 'bad-key' }), /API key was refused.*Invalid API Key/);
    assert.match(await testConnection(page, { baseUrl: `${app.url}/nope/v1` }), /Not found.*HTTP 404/);
    await context.close();
  });

  test('presets fill URL and model; parameters and the prompt template reach the request', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await openApp(page, app.url);
    await page.getByTestId('open-settings').click();
    await page.getByTestId('settings-preset').selectOption('deepseek');
    assert.equal(await page.getByTestId('settings-base-url').inputValue(), 'https://api.deepseek.com/v1');
    assert.equal(await page.getByTestId('settings-model').inputValue(), 'deepseek-chat');
    await page.getByTestId('settings-preset').selectOption('local');
    assert.equal(await page.getByTestId('settings-base-url').inputValue(), 'http://127.0.0.1:8081/v1');
    await page.getByTestId('settings-base-url').fill(model.baseUrl);
    await page.getByTestId('settings-model').fill('scripted-model');
    await page.getByTestId('settings-temperature').fill('0.3');
    await page.getByTestId('settings-max-tokens').fill('256');
    await page.getByTestId('settings-system-prompt').fill('You are {{model}}. Today is {{date}}. Locale {{locale}}.');
    await page.getByTestId('settings-theme').selectOption('dark');
    await page.getByTestId('settings-save').click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    // The page really is dark (the colours follow the chosen scheme).
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(23, 24, 28)');

    model.enqueue(reply.text('Parameters received.'));
    const before = model.requests.length;
    await send(page, 'Hello');
    await page.getByText('Parameters received.').waitFor({ timeout: 20_000 });
    const body = model.requests[before].body;
    assert.equal(body.model, 'scripted-model');
    assert.equal(body.temperature, 0.3);
    assert.equal(body.max_tokens, 256);
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.match(body.messages[0].content, /^You are scripted-model\. Today is \d{4}-\d{2}-\d{2}\. Locale [a-z]{2}/);
    assert.equal(body.messages[0].role, 'system');
    assert.equal(model.requests[before].headers.authorization, undefined, 'no key, no Authorization header');

    // Everything persists.
    await page.reload();
    await page.getByTestId('composer-input').waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await page.getByTestId('open-settings').click();
    assert.equal(await page.getByTestId('settings-temperature').inputValue(), '0.3');
    assert.equal(await page.getByTestId('settings-max-tokens').inputValue(), '256');
    assert.equal(await page.getByTestId('settings-theme').inputValue(), 'dark');
    await context.close();
  });
});

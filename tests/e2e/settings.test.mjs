// Settings: presets, the connection test (OK, CORS, network, 401, 404),
// request parameters and the system prompt template, theme, and what each
// model can do (Settings → Models).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { configure, launchBrowser, openApp, send, serveApp } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

// A real 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

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

  test('Settings → Models: images and tools set by hand for a model are what the composer and the turn go by, and are kept', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = await openApp(page, app.url);
    await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
    const row = page.locator(`[data-testid=known-model][data-key="${model.baseUrl} scripted-model"]`);
    const set = async (what, value) => {
      await page.getByTestId('open-settings').click();
      await row.getByTestId(`known-model-${what}`).selectOption(value);
      await page.getByTestId('settings-save').click();
      await page.getByTestId('settings').waitFor({ state: 'detached' });
    };
    const attachImage = async () => {
      await page.getByTestId('attach-input').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: Buffer.from(PNG, 'base64') });
      await page.getByTestId('file-chip').waitFor();
    };

    // The model in use is listed, nothing known of it yet.
    await page.getByTestId('open-settings').click();
    assert.equal(await row.getByTestId('known-model-tools').inputValue(), 'auto');
    assert.equal(await row.getByTestId('known-model-images').inputValue(), 'unknown');
    await page.getByTestId('settings-save').click();

    // Images refused by hand: an image attached is warned about; accepted: not.
    await attachImage();
    assert.equal(await page.getByTestId('attach-no-vision').count(), 0);
    await set('images', 'refused');
    await page.getByTestId('attach-no-vision').waitFor();
    await set('images', 'accepted');
    await page.getByTestId('attach-no-vision').waitFor({ state: 'detached' });
    await page.getByTestId('file-remove').click();

    // Tools in the prompt by hand: the model is not asked how it calls tools,
    // and the tools are described in the system prompt.
    await set('tools', 'prompt');
    const probes = model.probes.length;
    const before = model.requests.length;
    model.enqueue(reply.text('Tools in the prompt.'));
    await send(page, 'Hello');
    await page.getByText('Tools in the prompt.').waitFor({ timeout: 20_000 });
    assert.equal(model.probes.length, probes, 'not asked: it was set');
    const body = model.requests[before].body;
    assert.equal(body.tools, undefined);
    assert.match(body.messages[0].content, /<tool_call>/);

    // Kept across a reload; refused again, the warning is back after one.
    await page.reload();
    await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
    await page.getByTestId('open-settings').click();
    assert.equal(await row.getByTestId('known-model-images').inputValue(), 'accepted');
    assert.equal(await row.getByTestId('known-model-tools').inputValue(), 'prompt');
    await row.getByTestId('known-model-images').selectOption('refused');
    await page.getByTestId('settings-save').click();
    await page.getByTestId('settings').waitFor({ state: 'detached' });
    await page.reload();
    await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
    await attachImage();
    await page.getByTestId('attach-no-vision').waitFor();

    // Forget: nothing is known of it again.
    await page.getByTestId('open-settings').click();
    await row.getByTestId('known-model-forget').click();
    assert.equal(await row.getByTestId('known-model-images').inputValue(), 'unknown');
    assert.equal(await row.getByTestId('known-model-tools').inputValue(), 'auto');
    await page.getByTestId('settings-save').click();
    await page.getByTestId('attach-no-vision').waitFor({ state: 'detached' });
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-settings')));
    assert.deepEqual([saved.vision, saved.probedToolCalling], [{}, {}]);
    assert.deepEqual(errors, []);
    await context.close();
  });
});

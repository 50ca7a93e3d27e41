// The first chat, end to end: Chromium, the release build, the real local model.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configure, launchBrowser, openApp, send, serveApp, startModel } from './support.mjs';

describe('chat with the local model', () => {
  let browser, app, model;

  before(async () => {
    app = await serveApp();
    model = await startModel({ nPredict: 160 });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await model?.stop();
    app?.server.close();
  });

  test('a reply streams in from the model and survives a reload', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = await openApp(page, app.url);
    await configure(page, { baseUrl: model.baseUrl });
    // First run: the session creator with suggestions, and the model shown.
    await page.getByTestId('session-creator').waitFor();
    assert.equal(await page.getByTestId('model-picker').inputValue(), 'SmolLM2-135M-Instruct');

    // Watch the answer grow while it streams, from inside the page at every frame (a
    // round trip per look, on a machine the model keeps busy, may see only two): several
    // different lengths.
    await page.evaluate(() => {
      window.__lengths = new Set();
      const look = () => {
        const text = document.querySelector('[data-testid="message-streaming"] [data-testid="message-text"]');
        if (text) window.__lengths.add(text.textContent.length);
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    await send(page, 'Tell me about the moon.');
    await page.waitForFunction(() => window.__lengths.size > 0
      && !document.querySelector('[data-testid="message-streaming"]'), null, { timeout: 60_000 });
    const lengths = new Set(await page.evaluate(() => [...window.__lengths].filter((n) => n > 0)));
    assert.ok(lengths.size >= 3, `the answer should appear in pieces, saw lengths ${[...lengths]}`);

    const answer = page.getByTestId('message-assistant').last();
    const text = (await answer.getByTestId('message-text').textContent()).trim();
    assert.ok(text.length > 10, `a real answer arrived: ${JSON.stringify(text)}`);
    assert.match(await answer.getByTestId('message-meta').textContent(), /SmolLM2-135M-Instruct/);
    assert.match(await answer.getByTestId('message-meta').textContent(), /tokens/);
    assert.equal(await page.getByTestId('session-item').count(), 1);
    assert.match(await page.getByTestId('session-item').first().textContent(), /Tell me about the moon\./);

    await page.reload();
    await page.getByTestId('message-assistant').first().waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('message-user').getByTestId('message-text').textContent(), 'Tell me about the moon.');
    assert.equal((await page.getByTestId('message-assistant').getByTestId('message-text').textContent()).trim(), text);
    assert.equal(await page.getByTestId('session-item').count(), 1);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('tools reach the tiny model through the prompt, and whatever it writes is shown', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const bodies = [];
    page.on('request', (r) => { if (r.url().endsWith('/chat/completions')) bodies.push(JSON.parse(r.postData())); });
    const errors = await openApp(page, app.url);
    await configure(page, { baseUrl: model.baseUrl });
    await send(page, 'What is 23 * 17? Use the calculator.');
    // The turn is over when Send is back.
    await page.getByTestId('message-assistant').last().waitFor({ timeout: 60_000 });
    await page.getByTestId('send').waitFor({ timeout: 90_000 });

    // Auto asked once whether it calls tools natively; it does not.
    assert.equal(bodies[0].stream, false);
    assert.equal(bodies[0].tools[0].function.name, 'probe');
    const learnt = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-settings')).probedToolCalling);
    assert.deepEqual(Object.values(learnt), ['prompt']);
    // So the tools went into the system prompt, not the `tools` field.
    const chat = bodies[1];
    assert.equal(chat.tools, undefined);
    assert.match(chat.messages[0].content, /## calculator[\s\S]*- expression \(string, required\)/);
    assert.match(chat.messages[0].content, /<tool_call>/);

    // Whatever it wrote went through the parser: no call markup is shown in
    // the answers' text (a card may quote the format back to the model when
    // a call could not be read), and either a card or a text answer is there.
    const shown = (await page.getByTestId('message-assistant').getByTestId('message-text').allTextContents()).join('\n');
    assert.doesNotMatch(shown, /<tool_call>/);
    const cards = await page.getByTestId('tool-card').count();
    const answer = await page.getByTestId('message-assistant').last().getByTestId('message-text').textContent().catch(() => '');
    assert.ok(cards > 0 || answer.trim().length > 0, 'a card or an answer');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('Stop ends the answer and keeps what arrived, also after a reload', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await openApp(page, app.url);
    await configure(page, { baseUrl: model.baseUrl });
    await send(page, 'Write a long story about a dragon who learns to cook.');
    const streamingText = page.getByTestId('message-streaming').getByTestId('message-text');
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="message-streaming"] [data-testid="message-text"]');
      return el && el.textContent.length > 20;
    }, null, { timeout: 30_000 });
    await page.getByTestId('stop').click();
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByTestId('message-stopped').waitFor();
    assert.equal(await streamingText.count(), 0);
    const partial = (await answer.getByTestId('message-text').textContent()).trim();
    assert.ok(partial.length > 20, `partial text kept: ${JSON.stringify(partial)}`);
    // The composer is usable again.
    await page.getByTestId('send').waitFor();

    await page.reload();
    const reloaded = page.getByTestId('message-assistant').last();
    await reloaded.waitFor({ timeout: 30_000 });
    assert.equal((await reloaded.getByTestId('message-text').textContent()).trim(), partial);
    await reloaded.getByTestId('message-stopped').waitFor();
    await context.close();
  });

  test('an unreachable base URL shows a clear error and loses nothing', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await openApp(page, app.url);
    await configure(page, { baseUrl: 'http://127.0.0.1:9/v1' });
    await send(page, 'Is anybody there?');
    const error = page.getByTestId('message-error');
    await error.waitFor({ timeout: 30_000 });
    assert.match(await error.textContent(), /Could not reach http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions/);
    assert.equal(await page.getByTestId('message-user').getByTestId('message-text').textContent(), 'Is anybody there?');

    await page.reload();
    await page.getByTestId('message-error').waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('message-user').getByTestId('message-text').textContent(), 'Is anybody there?');
    await context.close();
  });

  test('an HTTP 404 from a wrong path is explained', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await openApp(page, app.url);
    // The static server answers 404 to the POST.
    await configure(page, { baseUrl: `${app.url}/no-such-api/v1` });
    await send(page, 'Hello?');
    const error = page.getByTestId('message-error');
    await error.waitFor({ timeout: 30_000 });
    assert.match(await error.textContent(), /Not found: check the base URL and the model name in Settings\. \(HTTP 404/);
    await context.close();
  });
});

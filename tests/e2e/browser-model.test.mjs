// "In this browser": a GGUF model downloaded into the page (interrupted
// once, then resumed), answering through llama.cpp compiled to WebAssembly
// with no model server running, stopped, reloaded mid-answer and
// continued, offline after a reload, and deleted; a built-in tool called
// in prompt mode. The model is SmolLM2-135M (./dev test fetches it), served by the
// test beside the app as `./dev serve` does.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join, basename } from 'node:path';
import { stat } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, ROOT, checkpointed, launchBrowser, openApp, send, wrapEngine } from './support.mjs';
import { startStaticServer } from '../support/static-server.mjs';

const MODEL = process.env.AIR_MODEL;

describe('a model in this browser', () => {
  let browser, app, models, size;

  before(async () => {
    if (!MODEL) throw new Error('AIR_MODEL must be set (./dev test sets it)');
    size = (await stat(MODEL)).size;
    // The first download is cut at 40 MB, as a lost network would.
    models = { dir: dirname(MODEL), cutOnceAt: 40_000_000 };
    app = await startStaticServer(join(ROOT, 'dist'), 0, { models });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    app?.server.close();
  });

  const row = (page) => page.locator(`[data-testid="browser-model"][data-name="${basename(MODEL)}"]`);
  const usedMb = async (page) => Number((await page.getByTestId('browser-storage').textContent()).match(/(\d+) MB of/)?.[1] ?? NaN);

  test('downloads with progress, resumes after a cut, answers, stops, answers offline, and is deleted', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = await openApp(page, app.url);

    await page.getByTestId('open-settings').click();
    await page.getByTestId('settings-preset').selectOption('browser');
    await page.getByTestId('browser-models').waitFor();
    // The site's own model comes first, with its size.
    await row(page).waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('browser-model').first().getAttribute('data-name'), basename(MODEL));
    assert.match(await row(page).getByTestId('browser-model-download').textContent(), new RegExp(`${Math.ceil(size / 1e6)} MB`));
    const before = await usedMb(page);

    // The download shows its progress, and is cut at 40 MB.
    await row(page).getByTestId('browser-model-download').click();
    await row(page).getByTestId('browser-model-progress').waitFor();
    await page.getByTestId('browser-model-error').filter({ hasText: /\S/ }).waitFor({ timeout: 60_000 });
    // What was stored is kept: the row offers the rest.
    // (The row reads what was stored once the error is shown.)
    const resume = row(page).getByTestId('browser-model-download').filter({ hasText: /MB left/ });
    await resume.waitFor({ timeout: 20_000 });
    const left = Number((await resume.textContent()).match(/(\d+) MB left/)?.[1]);
    assert.ok(left > 50 && left < 70, `about 66 MB should be left after a cut at 40 MB of 98, not ${left}`);
    // The stored pieces count in the storage meter.
    await page.waitForFunction((least) => Number(document.querySelector('[data-testid="browser-storage"]')?.textContent.match(/(\d+) MB of/)?.[1]) >= least, before + 30, { timeout: 20_000 });

    // Resumed, it ends checked (size and sha256) and can be used.
    await resume.click();
    await row(page).getByTestId('browser-model-use').waitFor({ timeout: 360_000 });
    assert.equal(await page.getByTestId('browser-model-error').textContent(), '');
    // No model was named: the first one stored is used.
    await page.waitForFunction(() => document.querySelector('[data-testid="settings-model"]')?.value !== '');
    assert.equal(await page.getByTestId('settings-model').inputValue(), basename(MODEL));
    assert.equal(await row(page).getByTestId('browser-model-use').textContent(), 'In use');
    await page.getByTestId('settings-save').click();
    await page.getByTestId('settings').waitFor({ state: 'detached' });

    // An answer, streamed from the page: no model server runs in this test.
    await send(page, 'Say hello.');
    const answer = page.getByTestId('message-assistant').last().getByTestId('message-text');
    await answer.filter({ hasText: /\w/ }).waitFor({ timeout: 360_000 });
    await page.getByTestId('regenerate').waitFor({ timeout: 360_000 });
    assert.ok((await answer.textContent()).trim().length > 0);

    // Stop, while it answers.
    await send(page, 'Write a long story about a lighthouse keeper and the sea.');
    await page.getByTestId('message-streaming').getByTestId('message-text').filter({ hasText: /\w/ }).waitFor({ timeout: 360_000 });
    await page.getByTestId('composer-input').press('Escape');
    await page.getByTestId('regenerate').waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId('message-assistant').last().textContent(), /Stopped/);

    // A reload in the middle of an answer: what arrived is kept, marked
    // incomplete, and Continue finishes it (the new page loads the model again).
    await send(page, 'Write a long story about a lighthouse keeper and the sea.');
    await page.waitForFunction(() => (document.querySelector('[data-testid="message-streaming"] [data-testid="message-text"]')?.textContent.length ?? 0) > 60, null, { timeout: 360_000 });
    // A checkpoint (every ~500 ms) lands before the page goes.
    await checkpointed(page, 20);
    await page.reload();
    const restored = page.getByTestId('message-assistant').last();
    await restored.getByTestId('message-incomplete').waitFor({ timeout: 30_000 });
    const partial = (await restored.getByTestId('message-text').textContent()).trim();
    assert.ok(partial.length > 20, `the partial answer is kept: ${JSON.stringify(partial)}`);
    await restored.getByTestId('continue').click();
    const continued = page.getByTestId('message-assistant').last();
    await continued.getByTestId('regenerate').waitFor({ timeout: 360_000 });
    assert.equal(await continued.getByTestId('message-incomplete').count(), 0, 'finished');
    assert.ok((await continued.getByTestId('message-text').textContent()).trim().startsWith(partial.slice(0, 20)));

    // Offline after a reload: the app, the engine and the model are here.
    await context.setOffline(true);
    await page.reload();
    await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
    // In a new chat, so the model reads no long story first: what is
    // tried here is that it answers with no network at all.
    await page.getByTestId('new-session').click();
    await page.getByTestId('session-creator').waitFor();
    await send(page, 'Say hello again.');
    await page.getByTestId('message-assistant').getByTestId('message-text').filter({ hasText: /\w/ }).waitFor({ timeout: 360_000 });
    assert.equal(await page.getByTestId('message-user').count(), 1);
    await context.setOffline(false);

    // Deleted: the storage meter falls by the model's size.
    await page.getByTestId('open-settings').click();
    await row(page).getByTestId('browser-model-delete').waitFor({ timeout: 20_000 });
    const full = await usedMb(page);
    await row(page).getByTestId('browser-model-delete').click();
    await row(page).getByTestId('browser-model-download').waitFor();
    await page.waitForFunction(() => /\d+ MB of/.test(document.querySelector('[data-testid="browser-storage"]')?.textContent ?? ''));
    const emptied = await usedMb(page);
    assert.ok(full - emptied >= 90, `deleting should free about 98 MB: ${full} → ${emptied} MB`);
    assert.deepEqual(errors.filter((e) => !/Failed to load resource|ERR_INTERNET_DISCONNECTED|network error/i.test(e)), []);
    await context.close();
  });

  test('a small model in the page calls a built-in tool in prompt mode, and answers with its result', async () => {
    // SmolLM2-135M cannot write the call format reliably: the engine's
    // first answer to a request describing the tools is scripted (a call
    // of the calculator). Everything else, the probe of how the model
    // calls tools, the read-ahead and the answer after the result, is the
    // real engine's.
    const context = await browser.newContext();
    await wrapEngine(context, (engine) => {
      const seen = (globalThis.__engineRequests ??= []);
      const sse = (content) => [
        { choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }] },
        { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      ].map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
      const respond = async (request) => {
        if (request.method !== 'POST') return engine.respond(request);
        const body = await request.clone().json();
        seen.push(body);
        const system = body.messages[0]?.role === 'system' ? body.messages[0].content : '';
        if (!globalThis.__scripted && body.max_tokens !== 0 && !body.tools && system.includes('## calculator')) {
          globalThis.__scripted = true;
          const call = '<tool_call>{"name": "calculator", "arguments": {"expression": "6*7"}}</tool_call>';
          return new Response(sse(call), { headers: { 'content-type': 'text/event-stream' } });
        }
        return engine.respond(request);
      };
      return { ...engine, respond };
    });
    const page = await context.newPage();
    const errors = await openApp(page, app.url);
    await page.getByTestId('open-settings').click();
    await page.getByTestId('settings-preset').selectOption('browser');
    await row(page).waitFor({ timeout: 20_000 });
    await row(page).getByTestId('browser-model-download').click();
    await row(page).getByTestId('browser-model-use').waitFor({ timeout: 360_000 });
    await page.getByTestId('settings-save').click();
    await page.getByTestId('settings').waitFor({ state: 'detached' });

    await send(page, 'What is 6 times 7? Use the calculator.');
    const card = page.getByTestId('tool-card').first();
    await card.waitFor({ timeout: 360_000 });
    assert.equal(await card.getByTestId('tool-name').textContent(), 'calculator');
    await page.waitForFunction(() => document.querySelector('[data-testid="tool-card"]')?.dataset.status === 'done', null, { timeout: 30_000 });
    assert.match(await card.getByTestId('tool-output').textContent(), /42/);
    // The model answers after the result, in the page.
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByTestId('regenerate').waitFor({ timeout: 360_000 });
    assert.ok((await answer.getByTestId('message-text').textContent()).trim().length > 0);
    const sent = await page.evaluate(() => globalThis.__engineRequests);
    // The probe learnt that this model takes tools in the prompt; the
    // request after the call carried the result back.
    assert.ok(sent.some((b) => b.tools?.length), 'the probe offered tools natively once');
    const last = sent.at(-1);
    assert.ok(!last.tools && last.messages[0].content.includes('## calculator'), 'prompt mode');
    assert.ok(last.messages.some((m) => m.role === 'user' && m.content.includes('42')), JSON.stringify(last.messages.slice(1)));
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a first visit of the deployed site chats in one click', async () => {
    // The app at a name of its own (not this machine's address, where the
    // default provider is `./dev serve`'s model server), treated as secure
    // as an https site would be.
    const port = new URL(app.url).port;
    const site = `http://air.test:${port}`;
    const deployed = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP air.test 127.0.0.1', `--unsafely-treat-insecure-origin-as-secure=${site}`],
      headless: true,
    });
    try {
      const page = await (await deployed.newContext()).newPage();
      const errors = await openApp(page, `${site}/`);
      const offer = page.getByTestId('chat-here');
      await offer.waitFor({ timeout: 20_000 });
      // Its size, once the site's list is read.
      await page.waitForFunction(() => /MB once/.test(document.querySelector('[data-testid="chat-here"]')?.textContent ?? ''), null, { timeout: 20_000 });
      assert.equal(await offer.textContent(), `Chat in this browser (download ${Math.ceil(size / 1e6)} MB once)`);
      assert.equal(await page.getByTestId('use-api-key').count(), 1);
      await offer.click();
      await page.getByTestId('first-run-progress').waitFor();
      await page.getByTestId('first-run').waitFor({ state: 'detached', timeout: 360_000 });
      assert.match(await page.getByTestId('session-creator').textContent(), new RegExp(basename(MODEL).replace(/\./g, '\\.')));
      await send(page, 'Say hello.');
      await page.getByTestId('message-assistant').last().getByTestId('message-text').filter({ hasText: /\w/ }).waitFor({ timeout: 360_000 });
      assert.deepEqual(errors.filter((e) => !/Failed to load resource/i.test(e)), []);
    } finally {
      await deployed.close();
    }
  });
});

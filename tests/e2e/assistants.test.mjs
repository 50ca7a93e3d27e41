// Assistants: a named preset (system prompt, model, temperature, MCP
// dynamic loading for it) picked per chat, remembered across a reload, and
// what it sets is what the request carries. Scripted model.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addMcpServer, scriptedHarness, send, startEverything } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

/** Settings → Other providers: adds one and saves. */
async function addProfile(page, { name, baseUrl, key, model }) {
  await page.getByTestId('open-settings').click();
  await page.getByTestId('profile-new').click();
  const row = page.getByTestId('profile');
  await row.getByTestId('profile-name').fill(name);
  await row.getByTestId('profile-base-url').fill(baseUrl);
  await row.getByTestId('profile-api-key').fill(key);
  await row.getByTestId('profile-model').fill(model);
  await page.getByTestId('settings-save').click();
  await page.getByTestId('settings').waitFor({ state: 'detached' });
}

describe('Assistants (scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  let server;
  before(async () => { server = await startEverything(); });
  after(async () => { await server?.stop(); });

  test('an assistant is made, picked for a chat, remembered, and sets the request', async () => {
    const { context, page, errors } = await h.freshPage();
    assert.equal(await page.getByTestId('assistant-picker').count(), 0, 'no picker before there are assistants');
    await addMcpServer(page, 'everything', server.url);
    await page.getByTestId('assistant-new').click();
    // Dynamic loading is off in Settings: an assistant has no switch for
    // it, and picks its servers.
    await page.getByTestId('assistant-servers').waitFor();
    assert.equal(await page.getByTestId('assistant-dynamic').count(), 0, 'no switch of its own while the global one is off');
    await page.getByTestId('settings-dynamic-mcp').check();
    await page.getByTestId('assistant-name-input').fill('Translator');
    await page.getByTestId('assistant-prompt').fill('Translate everything into French.');
    await page.getByTestId('assistant-model').fill('scripted-fr');
    await page.getByTestId('assistant-temperature').fill('0.2');
    // Dynamic loading is on in Settings: the assistant may turn it off for
    // itself, and then says which servers it uses.
    assert.equal(await page.getByTestId('assistant-dynamic').isChecked(), true);
    assert.equal(await page.getByTestId('assistant-servers').count(), 0, 'dynamic loading offers every server');
    await page.getByTestId('assistant-preloads').waitFor();
    await page.getByTestId('assistant-dynamic').uncheck();
    // Off for itself: it says which servers it uses, and preloads nothing.
    await page.getByTestId('assistant-servers').waitFor();
    assert.equal(await page.getByTestId('assistant-preloads').count(), 0);
    await page.getByTestId('assistant-save').click();
    assert.equal(await page.getByTestId('assistant-name').textContent(), 'Translator');
    await page.getByTestId('settings-save').click();

    // Picked for the new chat: the badge shows its model.
    await page.getByTestId('assistant-picker').selectOption({ label: 'Translator' });
    assert.equal(await page.getByTestId('model-picker').inputValue(), 'scripted-fr');
    h.model.enqueue(reply.text('Bonjour.'));
    await send(page, 'Hello');
    await page.getByText('Bonjour.').waitFor({ timeout: 20_000 });
    let body = h.model.requests.at(-1).body;
    assert.equal(body.model, 'scripted-fr');
    assert.equal(body.temperature, 0.2);
    assert.equal(body.messages[0].role, 'system');
    assert.match(body.messages[0].content, /^Translate everything into French\./);
    const tools = (b) => (b.tools ?? []).map((t) => t.function.name);
    assert.ok(!tools(body).includes('load_mcp_tool'), 'dynamic loading is off for this assistant');

    // The chat remembers it.
    await page.reload();
    await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('assistant-picker').locator('option:checked').textContent(), 'Translator');
    h.model.enqueue(reply.text('Au revoir.'));
    await send(page, 'Goodbye');
    await page.getByText('Au revoir.').waitFor({ timeout: 20_000 });
    assert.equal(h.model.requests.at(-1).body.model, 'scripted-fr');

    // A new chat uses no assistant: the settings, and dynamic loading.
    await page.getByTestId('new-session').click();
    assert.equal(await page.getByTestId('assistant-picker').locator('option:checked').textContent(), 'No assistant');
    h.model.enqueue(reply.text('Hi.'));
    await send(page, 'Hi');
    await page.getByText('Hi.', { exact: true }).waitFor({ timeout: 20_000 });
    body = h.model.requests.at(-1).body;
    assert.equal(body.model, 'scripted-model');
    assert.ok(tools(body).includes('load_mcp_tool'));
    assert.ok(!tools(body).includes('mcp_everything_echo'), 'nothing loaded yet');

    // An assistant that preloads a tool: offered from its chats' first
    // message, without a loader call, and said so.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('assistant-new').click();
    await page.getByTestId('assistant-name-input').fill('Echoer');
    await page.getByTestId('assistant-preloads').locator('summary').click();
    await page.locator('[data-testid=assistant-preload][data-tool="everything/echo"]').check();
    await page.getByTestId('assistant-save').click();
    await page.getByTestId('settings-save').click();
    await page.getByTestId('new-session').click();
    await page.getByTestId('assistant-picker').selectOption({ label: 'Echoer' });
    h.model.enqueue(reply.text('Ready to echo.'));
    await send(page, 'Can you echo?');
    await page.getByText('Ready to echo.').waitFor({ timeout: 20_000 });
    assert.ok(tools(h.model.requests.at(-1).body).includes('mcp_everything_echo'), 'preloaded');
    const chip = page.locator('[data-testid=loaded-tool][data-status=valid]').filter({ hasText: 'echo' });
    await chip.waitFor({ timeout: 10_000 });
    assert.equal(await chip.getAttribute('title'), 'everything · preloaded by the assistant');
    await page.getByTestId('open-settings').click();
    await page.getByTestId('assistant').filter({ hasText: 'Echoer' }).getByTestId('assistant-delete').click();
    await page.getByTestId('settings-save').click();

    // Deleted: its chats go back to the settings.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('assistant-delete').click();
    assert.equal(await page.getByTestId('assistant').count(), 0);
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-assistants')));
    assert.deepEqual(saved.list, []);
    // (The reference server answers 400 to the stream a session opens.)
    assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
    await context.close();
  });

  test('a model picked in the top bar is the chat\'s alone, remembered, and sent', async () => {
    const { context, page, errors } = await h.freshPage();
    const picker = page.getByTestId('model-picker');
    assert.equal(await picker.inputValue(), 'scripted-model');
    h.model.enqueue(reply.text('From the usual model.'));
    await send(page, 'first question');
    await page.getByText('From the usual model.').waitFor({ timeout: 20_000 });
    assert.equal(h.model.requests.at(-1).body.model, 'scripted-model');
    // The provider's models are offered; another is picked mid-chat.
    await picker.focus();
    await page.waitForFunction(() => document.querySelectorAll('#model-options option').length === 2, null, { timeout: 10_000 });
    await picker.fill('scripted-large');
    await picker.press('Enter');
    await page.getByTestId('composer-input').focus();
    h.model.enqueue(reply.text('From the large model.'));
    await send(page, 'second question');
    await page.getByText('From the large model.').waitFor({ timeout: 20_000 });
    const body = h.model.requests.at(-1).body;
    assert.equal(body.model, 'scripted-large');
    assert.equal(body.messages.filter((m) => m.role === 'user').length, 2, 'the same conversation goes on');
    // Another chat keeps the usual model; the first keeps its pick after a reload.
    await page.getByTestId('new-session').click();
    assert.equal(await picker.inputValue(), 'scripted-model');
    await page.reload();
    await page.getByTestId('session-item').first().locator('.session-title').click();
    await page.getByText('From the large model.').waitFor({ timeout: 20_000 });
    assert.equal(await picker.inputValue(), 'scripted-large');
    // Emptied while focused (every model offered); left blank, nothing changes.
    await picker.focus();
    assert.equal(await picker.inputValue(), '');
    await page.getByTestId('composer-input').focus();
    assert.equal(await picker.inputValue(), 'scripted-large');
    // The usual model again: the pick goes.
    await picker.fill('scripted-model');
    await picker.press('Enter');
    await page.getByTestId('composer-input').focus();
    assert.equal(await picker.inputValue(), 'scripted-model');
    h.model.enqueue(reply.text('Usual again.'));
    await page.getByTestId('composer-input').focus();
    await send(page, 'third question');
    await page.getByText('Usual again.').waitFor({ timeout: 20_000 });
    assert.equal(h.model.requests.at(-1).body.model, 'scripted-model');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('another provider, picked for a chat or named by an assistant, gets its own key and model; the rest keep theirs', async () => {
    const second = await startScriptedModel();
    try {
      const { context, page, errors } = await h.freshPage();
      assert.equal(await page.getByTestId('profile-picker').count(), 0, 'no picker before there are other providers');
      await addProfile(page, { name: 'Second', baseUrl: second.baseUrl, key: 'sk-second', model: 'scripted-large' });

      await page.getByTestId('profile-picker').selectOption({ label: 'Second' });
      assert.equal(await page.getByTestId('model-picker').inputValue(), 'scripted-large');
      second.enqueue(reply.text('From the second provider.'));
      const before = h.model.requests.length;
      await send(page, 'Which provider?');
      await page.getByText('From the second provider.').waitFor({ timeout: 20_000 });
      const got = second.requests.at(-1);
      assert.equal(got.headers.authorization, 'Bearer sk-second');
      assert.equal(got.body.model, 'scripted-large');
      assert.equal(h.model.requests.length, before, 'the usual provider was not asked');

      // A new chat uses the usual provider, without the other key.
      await page.getByTestId('new-session').click();
      assert.equal(await page.getByTestId('profile-picker').inputValue(), '');
      h.model.enqueue(reply.text('From the usual provider.'));
      await send(page, 'And here?');
      await page.getByText('From the usual provider.').waitFor({ timeout: 20_000 });
      assert.equal(h.model.requests.at(-1).headers.authorization, undefined);
      assert.equal(h.model.requests.at(-1).body.model, 'scripted-model');

      // The first chat still has its provider after a reload.
      await page.reload();
      await page.getByTestId('session-item').filter({ hasText: 'Which provider?' }).click();
      await page.getByText('From the second provider.').waitFor({ timeout: 20_000 });
      assert.equal(await page.getByTestId('profile-picker').locator('option:checked').textContent(), 'Second');

      // An assistant naming the provider.
      await page.getByTestId('open-settings').click();
      await page.getByTestId('assistant-new').click();
      await page.getByTestId('assistant-name-input').fill('Outsourcer');
      await page.getByTestId('assistant-profile').selectOption({ label: 'Second' });
      await page.getByTestId('assistant-save').click();
      await page.getByTestId('settings-save').click();
      await page.getByTestId('new-session').click();
      await page.getByTestId('assistant-picker').selectOption({ label: 'Outsourcer' });
      second.enqueue(reply.text('Outsourced.'));
      await send(page, 'Who answers?');
      await page.getByText('Outsourced.').waitFor({ timeout: 20_000 });
      assert.equal(second.requests.at(-1).headers.authorization, 'Bearer sk-second');
      assert.deepEqual(errors, []);
      await context.close();
    } finally {
      await second.stop();
    }
  });

  test('the model picker offers the models of the open chat\'s provider, each provider asked once', async () => {
    const second = await startScriptedModel({ models: ['second-small', 'second-medium', 'second-large'] });
    try {
      const { context, page, errors } = await h.freshPage();
      await addProfile(page, { name: 'Second', baseUrl: second.baseUrl, key: 'sk-second', model: 'second-small' });
      const picker = page.getByTestId('model-picker');
      // The app offers them sorted by name.
      const offered = (models) => page.waitForFunction(
        (want) => JSON.stringify([...document.querySelectorAll('#model-options option')].map((o) => o.value)) === JSON.stringify(want),
        models,
        { timeout: 10_000 },
      );

      // A chat on the usual provider is offered its models.
      h.model.enqueue(reply.text('From the usual one.'));
      await send(page, 'On the usual provider');
      await page.getByText('From the usual one.').waitFor({ timeout: 20_000 });
      const usualAsked = h.model.listed.length;
      await picker.focus();
      await offered(['scripted-large', 'scripted-model']);
      assert.equal(h.model.listed.length, usualAsked + 1);
      await page.getByTestId('composer-input').focus();

      // A chat on the second provider: its own models, asked with its own key.
      await page.getByTestId('new-session').click();
      await page.getByTestId('profile-picker').selectOption({ label: 'Second' });
      second.enqueue(reply.text('From the second one.'));
      await send(page, 'On the second provider');
      await page.getByText('From the second one.').waitFor({ timeout: 20_000 });
      assert.equal(await picker.inputValue(), 'second-small');
      await picker.focus();
      await offered(['second-large', 'second-medium', 'second-small']);
      assert.equal(second.listed.length, 1);
      assert.equal(second.listed[0].headers.authorization, 'Bearer sk-second');
      await page.getByTestId('composer-input').focus();

      // Back and forth: each list as it was, neither provider asked again.
      await page.getByTestId('session-item').filter({ hasText: 'On the usual provider' }).click();
      await page.getByText('From the usual one.').waitFor({ timeout: 20_000 });
      await picker.focus();
      await offered(['scripted-large', 'scripted-model']);
      await page.getByTestId('composer-input').focus();
      await page.getByTestId('session-item').filter({ hasText: 'On the second provider' }).click();
      await page.getByText('From the second one.').waitFor({ timeout: 20_000 });
      await picker.focus();
      await offered(['second-large', 'second-medium', 'second-small']);
      await page.getByTestId('composer-input').focus();
      assert.equal(h.model.listed.length, usualAsked + 1);
      assert.equal(second.listed.length, 1);
      assert.deepEqual(errors, []);
      await context.close();
    } finally {
      await second.stop();
    }
  });
});

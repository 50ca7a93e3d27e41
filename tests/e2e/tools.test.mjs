// Tools end to end against a scripted model: a call becomes a card and a
// `tool` message, parallel calls, approvals, and an invalid call that the
// model corrects. The built-in tools run for real in the page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

describe('tools (scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);

  /** The messages of the request the model got `back` requests ago. */
  const sent = (back = 1) => h.model.requests[h.model.requests.length - back].body.messages;

  test('calculator: call → card → final answer, and the card survives a reload', async () => {
    const { context, page, errors } = await h.freshPage();
    h.model.enqueue(
      reply.calls([{ id: 'call_1', name: 'calculator', arguments: '{"expression":"23*17"}' }]),
      reply.text('23 × 17 is 391.'),
    );
    const before = h.model.requests.length;
    await send(page, 'What is 23*17?');
    await page.getByText('23 × 17 is 391.').waitFor({ timeout: 20_000 });
    assert.equal(h.model.requests.length - before, 2, 'asked twice: the call, then the answer');

    // The first request offered the built-in tools.
    const offered = h.model.requests[before].body.tools.map((t) => t.function.name).sort();
    assert.deepEqual(offered, ['calculator', 'get_current_time', 'run_javascript', 'run_python']);
    // The second one carried the call and its result.
    const messages = sent();
    assert.deepEqual(messages.at(-2).tool_calls.map((c) => [c.id, c.function.name]), [['call_1', 'calculator']]);
    assert.deepEqual(messages.at(-1), { role: 'tool', content: '23*17 = 391', tool_call_id: 'call_1' });

    const card = page.getByTestId('tool-card');
    assert.equal(await card.count(), 1);
    assert.equal(await card.getAttribute('data-status'), 'done');
    assert.equal(await card.getByTestId('tool-name').textContent(), 'calculator');
    await card.locator('summary').click();
    assert.match(await card.getByTestId('tool-args').textContent(), /"expression": "23\*17"/);
    assert.equal((await card.getByTestId('tool-output').textContent()).trim(), '23*17 = 391');

    await page.reload();
    await page.getByText('23 × 17 is 391.').waitFor({ timeout: 20_000 });
    const again = page.getByTestId('tool-card');
    assert.equal(await again.getAttribute('data-status'), 'done');
    await again.locator('summary').click();
    assert.equal((await again.getByTestId('tool-output').textContent()).trim(), '23*17 = 391');

    // The next request after the reload carries the same history.
    h.model.enqueue(reply.text('You are welcome.'));
    const beforeReload = JSON.stringify(messages);
    await send(page, 'Thanks');
    await page.getByText('You are welcome.').waitFor({ timeout: 20_000 });
    const next = sent();
    assert.equal(JSON.stringify(next.slice(0, -1)), JSON.stringify([...JSON.parse(beforeReload), { role: 'assistant', content: '23 × 17 is 391.' }]));
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('run_javascript: the code runs in the page, what it printed comes back; Stop ends a runaway run, a heap without end meets its limit, and the next one runs', async () => {
    const { context, page, errors } = await h.freshPage();
    const code = 'console.log("sum", [1, 2, 3].reduce((a, b) => a + b)); 6 * 7';
    h.model.enqueue(reply.calls([{ id: 'js1', name: 'run_javascript', arguments: JSON.stringify({ code }) }]), reply.text('It is 42.'));
    await send(page, 'Compute it');
    await page.getByText('It is 42.').waitFor({ timeout: 20_000 });
    const result = sent().find((m) => m.role === 'tool' && m.tool_call_id === 'js1');
    assert.match(result.content, /^JavaScript ran to its end in \d+ ms\.\nstdout:\nsum 6\nvalue: 42$/);
    const card = page.getByTestId('tool-card');
    assert.equal(await card.getAttribute('data-status'), 'done');
    const sandbox = await page.locator('iframe[data-testid=code-runner]').evaluate((f) => [...f.contentDocument.querySelectorAll('iframe')].map((s) => [s.getAttribute('sandbox'), s.contentDocument === null]));
    assert.deepEqual(sandbox, [['allow-scripts', true]], 'the code ran in a sandbox the app cannot reach into (another origin)');
    await card.locator('summary').click();
    assert.equal(await card.getByTestId('tool-code').textContent(), code, 'the code as code, not as JSON');
    assert.ok(await card.getByTestId('tool-code').locator('.tok-string').count() > 0, 'highlighted');

    h.model.enqueue(reply.calls([{ id: 'js2', name: 'run_javascript', arguments: JSON.stringify({ code: 'for (;;) {}' }) }]));
    await send(page, 'Loop');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=tool-card]')[1]?.dataset.status === 'running', null, { timeout: 20_000 });
    await page.getByTestId('stop').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=tool-card]')[1]?.dataset.status === 'stopped', null, { timeout: 10_000 });

    h.model.enqueue(reply.calls([{ id: 'js3', name: 'run_javascript', arguments: JSON.stringify({ code: '"again"' }) }]), reply.text('Ran again.'));
    await send(page, 'Once more');
    await page.getByText('Ran again.').waitFor({ timeout: 20_000 });
    assert.match(sent().find((m) => m.role === 'tool' && m.tool_call_id === 'js3').content, /value: again$/, 'the runner took the next run');

    // A heap grown without end ends in its limit, said on the card; the page lives on.
    h.model.enqueue(reply.calls([{ id: 'js4', name: 'run_javascript', arguments: JSON.stringify({ code: 'const kept = []; for (;;) kept.push(new Array(1e6).fill(1))' }) }]), reply.text('Too big.'));
    await send(page, 'Fill it');
    await page.getByText('Too big.').waitFor({ timeout: 30_000 });
    assert.equal(sent().find((m) => m.role === 'tool' && m.tool_call_id === 'js4').content, 'The code raised InternalError: out of memory: the run may use at most 1024 MB');
    const full = page.getByTestId('tool-card').nth(3);
    assert.equal(await full.getAttribute('data-status'), 'error');
    await full.locator('summary').click();
    assert.match(await full.textContent(), /out of memory: the run may use at most 1024 MB/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('two parallel calls give two cards and two results', async () => {
    const { context, page, errors } = await h.freshPage();
    h.model.enqueue(
      reply.calls([
        { id: 'a', name: 'calculator', arguments: '{"expression":"2^10"}' },
        { id: 'b', name: 'get_current_time', arguments: '{"timezone":"Asia/Tokyo"}' },
      ]),
      reply.text('1024, and it is evening in Tokyo.'),
    );
    await send(page, 'Two things');
    await page.getByText('1024, and it is evening in Tokyo.').waitFor({ timeout: 20_000 });
    const cards = page.getByTestId('tool-card');
    assert.equal(await cards.count(), 2);
    assert.deepEqual(await cards.getByTestId('tool-name').allTextContents(), ['calculator', 'get_current_time']);
    const results = sent().filter((m) => m.role === 'tool');
    assert.deepEqual(results.map((m) => m.tool_call_id), ['a', 'b']);
    assert.equal(results[0].content, '2^10 = 1024');
    assert.match(results[1].content, /in Asia\/Tokyo \(UTC\+09:00\); \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ UTC$/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('an invalid call goes back as a precise error and the model corrects it', async () => {
    const { context, page, errors } = await h.freshPage();
    h.model.enqueue(
      reply.calls([{ id: 'bad', name: 'calculator', arguments: '{"expr": "1+1"}' }]),
      reply.calls([{ id: 'good', name: 'calculator', arguments: '{"expression": "1+1"}' }]),
      reply.text('Two.'),
    );
    await send(page, 'One plus one');
    await page.getByText('Two.').waitFor({ timeout: 20_000 });
    const cards = page.getByTestId('tool-card');
    assert.deepEqual(await cards.evaluateAll((els) => els.map((e) => e.dataset.status)), ['error', 'done']);
    const error = sent(2).at(-1);
    assert.equal(error.tool_call_id, 'bad');
    assert.match(error.content, /missing required property "expression"/);
    assert.match(error.content, /unexpected property "expr"/);
    assert.equal(sent().at(-1).content, '1+1 = 2');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('ask, deny, then always allow (remembered in Settings)', async () => {
    const { context, page, errors } = await h.freshPage();
    // Ask before the calculator runs.
    await page.evaluate(() => {
      const s = JSON.parse(localStorage.getItem('air-agent-settings'));
      s.toolPolicies = { tools: { calculator: 'ask' }, servers: {} };
      localStorage.setItem('air-agent-settings', JSON.stringify(s));
    });
    await page.reload();
    await page.getByTestId('composer-input').waitFor();

    h.model.enqueue(reply.calls([{ id: 'c1', name: 'calculator', arguments: '{"expression":"6*7"}' }]), reply.text('You said no.'));
    await send(page, 'Six times seven?');
    const card = page.getByTestId('tool-card');
    await card.getByTestId('tool-approval').waitFor({ timeout: 20_000 });
    assert.equal(await card.getAttribute('data-status'), 'awaiting');
    await card.getByTestId('deny').click();
    await page.getByText('You said no.').waitFor({ timeout: 20_000 });
    assert.equal(await card.getAttribute('data-status'), 'denied');
    assert.match(sent().at(-1).content, /denied/);

    h.model.enqueue(reply.calls([{ id: 'c2', name: 'calculator', arguments: '{"expression":"6*7"}' }]), reply.text('42 it is.'));
    await send(page, 'Please, run it');
    const second = page.getByTestId('tool-card').nth(1);
    await second.getByTestId('approve-always').click();
    await page.getByText('42 it is.').waitFor({ timeout: 20_000 });
    assert.equal(await second.getAttribute('data-status'), 'done');
    assert.equal(sent().at(-1).content, '6*7 = 42');
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('air-agent-settings')).toolPolicies.tools.calculator);
    assert.equal(saved, 'allow');
    await page.getByTestId('open-settings').click();
    assert.equal(await page.getByTestId('policy-calculator').inputValue(), 'allow', 'Settings shows the remembered choice');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a reload keeps the cards and asks a pending approval again', async () => {
    const { context, page, errors } = await h.freshPage();
    // "Ask me" for the calculator, chosen in Settings.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('policy-calculator').selectOption('ask');
    await page.getByTestId('settings-save').click();
    await page.getByTestId('settings').waitFor({ state: 'detached' });
    h.model.enqueue(
      reply.calls([
        { id: 'p1', name: 'get_current_time', arguments: '{}' },
        { id: 'p2', name: 'calculator', arguments: '{"expression":"99+1"}' },
      ]),
    );
    await send(page, 'Time, and 99+1?');
    await page.getByTestId('tool-approval').waitFor({ timeout: 20_000 });
    const asked = h.model.requests.length;

    await page.reload();
    // The question is asked again; the finished card is still there.
    await page.getByTestId('tool-approval').waitFor({ timeout: 20_000 });
    const cards = page.getByTestId('tool-card');
    assert.deepEqual(await cards.evaluateAll((els) => els.map((e) => e.dataset.status)), ['done', 'awaiting']);
    assert.equal(h.model.requests.length, asked, 'nothing is sent before the answer');
    h.model.enqueue(reply.text('It is late, and 100.'));
    await page.getByTestId('approve-once').click();
    await page.getByText('It is late, and 100.').waitFor({ timeout: 20_000 });
    const results = sent().filter((m) => m.role === 'tool');
    assert.deepEqual(results.map((m) => m.tool_call_id), ['p1', 'p2']);
    assert.equal(results[1].content, '99+1 = 100');
    assert.deepEqual(errors, []);
    await context.close();
  });
});

// The event log end to end against a scripted model: a turn with tool
// calls shows in Settings → Event log (newest first, filtered by level),
// and its export (JSON Lines) carries the turn and the calls but never the
// API key typed in Settings, even where the model wrote it into a call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

const KEY = 'sk-e2e-0123456789abcdefXYZ';

describe('event log (scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);

  test('a turn and its calls are logged, filtered by level, and exported without the key', async () => {
    const { context, page, errors } = await h.freshPage();
    // The API key, typed in Settings and saved.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('settings-api-key').fill(KEY);
    await page.getByTestId('settings-save').click();
    await page.getByTestId('settings').waitFor({ state: 'detached' });
    await page.waitForFunction((key) => (localStorage.getItem('air-agent-settings') || '').includes(key), KEY, { timeout: 10_000 });

    // One call that works, and one where the model echoes the key (it fails).
    h.model.enqueue(
      reply.calls([
        { id: 'ok', name: 'calculator', arguments: '{"expression":"6*7"}' },
        { id: 'leak', name: 'calculator', arguments: JSON.stringify({ expression: KEY }) },
      ]),
      reply.text('It is 42.'),
    );
    await send(page, 'What is 6*7?');
    await page.getByText('It is 42.').waitFor({ timeout: 20_000 });
    // The request carried the key (so it was in use during the turn).
    assert.ok(h.model.requests.length >= 2);

    await page.getByTestId('open-settings').click();
    const log = page.getByTestId('event-log');
    await log.locator('summary').click();
    const entries = log.getByTestId('event-log-entry');
    await entries.filter({ hasText: 'Turn ended' }).first().waitFor({ timeout: 10_000 });
    // Newest first: the turn's end, above its calls, above its start.
    assert.equal(await entries.first().getAttribute('data-kind'), 'turn_ended');
    const kinds = await entries.evaluateAll((els) => els.map((e) => e.dataset.kind));
    for (const kind of ['turn_started', 'tools_offered', 'tool_called', 'tool_done', 'tool_failed', 'turn_ended']) {
      assert.ok(kinds.includes(kind), `${kind} in ${kinds}`);
    }
    assert.ok(kinds.indexOf('turn_ended') < kinds.indexOf('tool_done') && kinds.indexOf('tool_done') < kinds.lastIndexOf('turn_started'), String(kinds));
    const texts = await entries.allTextContents();
    assert.ok(texts.some((t) => /calculator called with \{"expression":"6\*7"\}/.test(t)), texts.join('\n'));
    assert.ok(texts.some((t) => /tools offered \(\w+\): calculator, get_current_time/.test(t)), texts.join('\n'));
    assert.ok(!texts.some((t) => t.includes(KEY) || t.includes('0123456789abcdef')), 'no key on screen');

    // Warnings and errors only: the failed call stays, the rest goes.
    await log.getByTestId('event-log-level').selectOption('warn');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=event-log-entry]')].every((e) => ['warn', 'error'].includes(e.dataset.level)), null, { timeout: 5_000 });
    const shown = await entries.evaluateAll((els) => els.map((e) => e.dataset.kind));
    assert.ok(shown.length >= 1 && shown.includes('tool_failed') && !shown.includes('turn_started'), String(shown));

    // The export: JSON Lines, the turn and the calls, and no key anywhere.
    const [download] = await Promise.all([page.waitForEvent('download'), log.getByTestId('event-log-export').click()]);
    assert.match(download.suggestedFilename(), /^air-agent-log-\d{4}-\d\d-\d\d\.jsonl$/);
    const text = readFileSync(await download.path(), 'utf8');
    assert.ok(!text.includes(KEY) && !text.includes('0123456789abcdef'), 'the key is not in the export');
    const lines = text.trim().split('\n').map((l) => JSON.parse(l));
    const exported = lines.map((l) => l.kind);
    for (const kind of ['turn_started', 'tool_called', 'tool_done', 'tool_failed', 'turn_ended']) {
      assert.ok(exported.includes(kind), `${kind} exported: ${exported}`);
    }
    for (const l of lines) {
      assert.equal(typeof l.at, 'number');
      assert.ok(['error', 'warn', 'info', 'debug'].includes(l.level), l.level);
    }
    // Oldest first in the file.
    assert.ok(exported.indexOf('turn_started') < exported.lastIndexOf('turn_ended'));
    assert.ok(lines.some((l) => l.kind === 'tool_failed' && l.text.includes('sk-***')), 'the echoed key shows redacted');

    // Kept across a reload (written when the turn ended).
    await page.reload();
    await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
    await page.getByTestId('open-settings').click();
    await page.getByTestId('event-log').locator('summary').click();
    await page.getByTestId('event-log').getByTestId('event-log-entry').filter({ hasText: 'Turn ended' }).first().waitFor({ timeout: 10_000 });
    assert.deepEqual(errors, []);
    await context.close();
  });
});

// The main screens under axe-core (the engine behind Lighthouse's
// accessibility audit): no serious or critical violation on the first
// screen, a conversation (Markdown, math, a tool card), Settings, search
// results and the shortcut sheet, in the light and the dark theme.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical violations on the page as it is now. */
async function violations(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ') + (n.any?.[0]?.message ? ': ' + n.any[0].message : '')) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe('accessibility (axe-core, scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);

  for (const theme of ['light', 'dark']) {
    test(`the main screens have no serious or critical violation (${theme} theme)`, async () => {
      const { context, page, errors } = await h.freshPage({ colorScheme: theme });
      const screens = {};
      await page.getByTestId('session-creator').waitFor();
      screens.first = await violations(page);

      h.model.enqueue(
        reply.calls([{ id: 'call_1', name: 'calculator', arguments: '{"expression":"6*7"}' }]),
        reply.text([
          '## The answer', '', 'It is **42**, and $e^{i\\pi} + 1 = 0$ still holds.', '',
          '| input | result |', '|---|--:|', '| 6*7 | 42 |', '',
          '- [x] computed', '- [ ] checked twice', '',
          '```python', 'print(6 * 7)', '```', '', 'See [the docs](https://example.com/docs).',
        ].join('\n')),
      );
      await send(page, 'What is 6*7?');
      await page.getByTestId('regenerate').waitFor({ timeout: 20_000 });
      await page.waitForFunction(() => document.querySelector('[data-typeset=mathml]'), null, { timeout: 20_000 });
      screens.conversation = await violations(page);

      await page.getByTestId('open-settings').click();
      await page.getByTestId('settings').waitFor();
      screens.settings = await violations(page);
      await page.keyboard.press('Escape');
      await page.getByTestId('settings').waitFor({ state: 'detached' });

      await page.getByTestId('session-search').fill('answer');
      await page.getByTestId('search-result').first().waitFor({ timeout: 20_000 });
      screens.search = await violations(page);
      await page.getByTestId('session-search').fill('');

      await page.locator('body').click({ position: { x: 5, y: 700 } });
      await page.keyboard.press('?');
      await page.getByTestId('shortcuts').waitFor();
      screens.shortcuts = await violations(page);

      assert.deepEqual(screens, { first: [], conversation: [], settings: [], search: [], shortcuts: [] }, JSON.stringify(screens, null, 1));
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
});

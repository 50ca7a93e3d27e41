// Keyboard shortcuts: the sheet (?), search, the composer, new chat, the
// previous and next conversation, and Esc to stop an answer. Scripted model.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

describe('keyboard shortcuts (scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  const focused = (page) => page.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName);

  test('every shortcut does what the sheet says', async () => {
    const { context, page, errors } = await h.freshPage();
    h.model.enqueue(reply.text('First.'), reply.text('Second.'));
    await send(page, 'one');
    await page.getByText('First.').waitFor({ timeout: 20_000 });
    await page.getByTestId('new-session').click();
    await send(page, 'two');
    await page.getByText('Second.').waitFor({ timeout: 20_000 });

    // The sheet, from anywhere but a text field; Esc closes it.
    await page.locator('body').click({ position: { x: 5, y: 700 } });
    await page.keyboard.press('?');
    await page.getByTestId('shortcuts').waitFor();
    assert.equal(await page.getByTestId('shortcut').count(), 6);
    await page.keyboard.press('Escape');
    await page.getByTestId('shortcuts').waitFor({ state: 'detached' });
    // Typed into the composer, ? is just text.
    await page.getByTestId('composer-input').focus();
    await page.keyboard.type('?');
    assert.equal(await page.getByTestId('composer-input').inputValue(), '?');
    assert.equal(await page.getByTestId('shortcuts').count(), 0);
    await page.getByTestId('composer-input').fill('');

    // Search, then back to the composer.
    await page.keyboard.press('Control+k');
    assert.equal(await focused(page), 'session-search');
    await page.keyboard.press('Shift+Escape');
    assert.equal(await focused(page), 'composer-input');

    // Previous and next conversation (newest first: "two", then "one").
    const title = () => page.locator('.topbar-title').textContent();
    assert.equal(await title(), 'two');
    await page.keyboard.press('Alt+ArrowDown');
    await page.getByText('First.').waitFor({ timeout: 10_000 });
    assert.equal(await title(), 'one');
    await page.keyboard.press('Alt+ArrowUp');
    await page.getByText('Second.').waitFor({ timeout: 10_000 });

    // New chat, ready to type.
    await page.keyboard.press('Control+Shift+O');
    await page.getByTestId('session-creator').waitFor();
    assert.equal(await focused(page), 'composer-input');

    // Esc stops an answer that is streaming.
    h.model.enqueue(reply.hanging('Going on and on'));
    await send(page, 'Talk forever');
    await page.getByTestId('stop').waitFor({ timeout: 20_000 });
    await page.locator('body').click({ position: { x: 5, y: 700 } });
    await page.keyboard.press('Escape');
    await page.getByTestId('send').waitFor({ timeout: 10_000 });
    assert.deepEqual(errors, []);
    await context.close();
  });
});

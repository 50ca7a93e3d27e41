// Branches: Regenerate keeps the earlier answers as alternatives (‹ 2 / 3 ›),
// editing a question starts a branch, the request always follows the branch
// on screen, and branches survive a reload, a second tab, and an export and
// import.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

/** The texts of the messages on screen. */
async function onScreen(page) {
  return (await page.getByTestId('message-text').allTextContents()).map((t) => t.trim());
}

async function waitFor(page, texts) {
  const deadline = Date.now() + 15_000;
  let now;
  while (Date.now() < deadline) {
    now = await onScreen(page);
    if (JSON.stringify(now) === JSON.stringify(texts)) return;
    await page.waitForTimeout(50);
  }
  assert.deepEqual(now, texts);
}

describe('branches', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);

  test('regenerated answers and edited questions are alternatives to move between, and the request follows the one shown', async () => {
    const { context, page, errors } = await h.freshPage({ acceptDownloads: true });
    h.model.enqueue(reply.text('One.'));
    await send(page, 'Pick a number');
    await waitFor(page, ['Pick a number', 'One.']);
    assert.equal(await page.getByTestId('branch-nav').count(), 0, 'one answer: nothing to move between');

    for (const [text, pos] of [['Two.', '2 / 2'], ['Three.', '3 / 3']]) {
      h.model.enqueue(reply.text(text));
      await page.getByTestId('regenerate').click();
      await waitFor(page, ['Pick a number', text]);
      assert.equal(await page.getByTestId('message-assistant').getByTestId('branch-pos').textContent(), pos);
    }
    assert.ok(await page.getByTestId('branch-next').isDisabled(), 'the last alternative has no next');

    // Back to the first answer, and on from there.
    await page.getByTestId('branch-prev').click();
    await waitFor(page, ['Pick a number', 'Two.']);
    await page.getByTestId('branch-prev').click();
    await waitFor(page, ['Pick a number', 'One.']);
    assert.equal(await page.getByTestId('branch-pos').textContent(), '1 / 3');
    assert.ok(await page.getByTestId('branch-prev').isDisabled());
    h.model.enqueue(reply.text('Two, doubled.'));
    await send(page, 'And double it?');
    await waitFor(page, ['Pick a number', 'One.', 'And double it?', 'Two, doubled.']);
    const sent = h.model.requests.at(-1).body.messages.map((m) => [m.role, m.content]);
    assert.deepEqual(sent, [['user', 'Pick a number'], ['assistant', 'One.'], ['user', 'And double it?']]);

    // A reload shows the same branch.
    await page.reload();
    await waitFor(page, ['Pick a number', 'One.', 'And double it?', 'Two, doubled.']);
    assert.equal(await page.getByTestId('branch-pos').textContent(), '1 / 3');

    // A second tab follows a switch made in the first.
    const other = await context.newPage();
    await other.goto(h.app.url);
    await waitFor(other, ['Pick a number', 'One.', 'And double it?', 'Two, doubled.']);
    await page.getByTestId('branch-next').click();
    await waitFor(page, ['Pick a number', 'Two.']);
    await waitFor(other, ['Pick a number', 'Two.']);
    assert.equal(await other.getByTestId('branch-pos').textContent(), '2 / 3');
    await other.close();

    // Editing the question starts a branch at the start of the chat.
    h.model.enqueue(reply.text('A.'));
    await page.getByTestId('message-user').hover();
    await page.getByTestId('edit-message').click();
    await page.getByTestId('edit-input').fill('Pick a letter');
    await page.getByTestId('edit-save').click();
    await waitFor(page, ['Pick a letter', 'A.']);
    assert.deepEqual(h.model.requests.at(-1).body.messages, [{ role: 'user', content: 'Pick a letter' }]);
    assert.equal(await page.getByTestId('message-user').getByTestId('branch-pos').textContent(), '2 / 2');
    await page.getByTestId('message-user').getByTestId('branch-prev').click();
    await waitFor(page, ['Pick a number', 'Two.']);
    // Regenerating here asks with this branch's question.
    h.model.enqueue(reply.text('Four.'));
    await page.getByTestId('regenerate').click();
    await waitFor(page, ['Pick a number', 'Four.']);
    assert.deepEqual(h.model.requests.at(-1).body.messages, [{ role: 'user', content: 'Pick a number' }]);
    assert.equal(await page.getByTestId('message-assistant').getByTestId('branch-pos').textContent(), '4 / 4');

    // A search hit on an answer of another branch shows that branch.
    await page.getByTestId('session-search').fill('Three');
    await page.getByTestId('search-result').first().waitFor({ timeout: 10_000 });
    await page.getByTestId('search-result').first().click();
    await waitFor(page, ['Pick a number', 'Three.']);
    await page.locator('.message.found').waitFor({ timeout: 10_000 });
    assert.equal(await page.getByTestId('message-assistant').getByTestId('branch-pos').textContent(), '3 / 4');
    await page.getByTestId('session-search').fill('');

    // Export, then import into an empty profile: the same alternatives.
    await page.getByTestId('open-settings').click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-all').click()]);
    const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
    assert.equal(exported.sessions[0].messages.length, 9, 'every alternative is exported');
    assert.deepEqual(errors, []);
    await context.close();

    const fresh = await h.importedPage(exported);
    await waitFor(fresh.page, ['Pick a number', 'Three.']);
    await fresh.page.getByTestId('message-user').getByTestId('branch-next').click();
    await waitFor(fresh.page, ['Pick a letter', 'A.']);
    await fresh.context.close();
  });
});

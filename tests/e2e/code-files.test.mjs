// The chat's files in and out of code run in the page, against a scripted
// model: a CSV attached to a message is read by run_python (from
// /mnt/data) and by run_javascript (`files`), the model told of it; what
// the code writes is kept with the result (a PNG shown in the card, a CSV
// saved from it, both there after a reload, the code found by search);
// and a 50 MB CSV is summed in the worker while the page's main thread
// never blocks for 50 ms.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';
import { DRAW_PNG } from '../support/png-python.mjs';

const SALES = 'month,sales\nJan,3\nFeb,5\nMar,4\n';

// What a model writes for "what is the average of column B, and plot it"
// (matplotlib is not on this site: the PNG is drawn with the standard library).
const AVERAGE_AND_PLOT = `${DRAW_PNG}
import csv
rows = list(csv.reader(open("/mnt/data/sales.csv")))
vals = [int(r[1]) for r in rows[1:]]
mean = sum(vals) / len(vals)
draw(vals, "plot.png")
with open("summary.csv", "w") as f:
    f.write(f"mean,{mean}\\n")
print("mean", mean)
`;

/** Records the page's long tasks and when each tool card's status changed (before any script of the page). */
function watch() {
  window.__long = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__long.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
  window.__status = [];
  new MutationObserver(() => {
    const cards = [...document.querySelectorAll('[data-testid=tool-card]')];
    const now = cards.map((c) => c.dataset.status).join(',');
    if (window.__status.at(-1)?.[1] !== now) window.__status.push([performance.now(), now]);
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
}

describe('the chat\'s files in and out of code (scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  let dir;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'air-code-files-')); });
  after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  /** What the model was told of call `id`. */
  const result = (id) => h.model.requests.at(-1).body.messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;
  /** The description of `tool` in the request `back` requests ago. */
  const about = (tool, back = 1) => h.model.requests.at(-back).body.tools.find((t) => t.function.name === tool)?.function.description;

  test('a CSV attached is averaged and plotted by Python and summed by JavaScript; what the code wrote is shown, saved and kept', async () => {
    const { context, page, errors } = await h.freshPage();
    await page.getByTestId('attach-input').setInputFiles([{ name: 'sales.csv', mimeType: 'text/csv', buffer: Buffer.from(SALES) }]);
    await page.getByTestId('file-chip').waitFor();
    h.model.enqueue(reply.calls([{ id: 'avg', name: 'run_python', arguments: JSON.stringify({ code: AVERAGE_AND_PLOT }) }]), reply.text('The average of column B is 4.0; the plot is above.'));
    await send(page, 'What is the average of column B, and plot it');
    await page.getByText('The average of column B is 4.0').waitFor({ timeout: 120_000 });

    // The model was told of the file, and got its text.
    assert.match(about('run_python', 2), /The chat's files: \/mnt\/data\/sales\.csv \(text\/csv, 30 B\)\./);
    assert.match(about('run_javascript', 2), /The chat's files: sales\.csv \(text\/csv, 30 B\)\./);
    const question = h.model.requests.at(-2).body.messages.at(-1).content;
    assert.equal(question, `What is the average of column B, and plot it\n\nFile \`sales.csv\`:\n\`\`\`csv\n${SALES}\`\`\``);
    assert.match(result('avg'), /^Python ran to its end in \d+ ms\.\nstdout:\nmean 4\.0\nFiles given back to the user: plot\.png \(image\/png, [\d.]+ (B|KB)\), summary\.csv \(text\/csv, 9 B\)\.$/);

    // The card shows the plot and offers the CSV.
    const card = page.getByTestId('tool-card');
    await card.locator('summary').click();
    const files = card.getByTestId('tool-files');
    const size = await files.locator('img').evaluate(async (img) => { await img.decode(); return [img.naturalWidth, img.naturalHeight]; });
    assert.deepEqual(size, [60, 40], 'the PNG the code drew');
    const chip = files.getByTestId('message-file');
    assert.equal(await chip.textContent(), 'summary.csv · 9 B');
    const [download] = await Promise.all([page.waitForEvent('download'), chip.click()]);
    assert.equal(download.suggestedFilename(), 'summary.csv');
    assert.equal(readFileSync(await download.path(), 'utf8'), 'mean,4.0\n');

    // JavaScript reads the same file; it also sees what Python wrote.
    const js = 'const t = await files.text("sales.csv");\nconst b = t.trim().split("\\n").slice(1).map((l) => +l.split(",")[1]);\nreturn [b.reduce((x, y) => x + y, 0), files.names()];';
    h.model.enqueue(reply.calls([{ id: 'sum', name: 'run_javascript', arguments: JSON.stringify({ code: js }) }]), reply.text('The sum is 12.'));
    await send(page, 'And the sum?');
    await page.getByText('The sum is 12.').waitFor({ timeout: 30_000 });
    assert.match(result('sum'), /\nvalue: \[12,\["sales\.csv","plot\.png","summary\.csv"\]\]$/);

    // Kept in the conversation: after a reload the card still has them.
    await page.reload();
    await page.getByText('The sum is 12.').waitFor({ timeout: 30_000 });
    const again = page.getByTestId('tool-card').first();
    await again.locator('summary').click();
    assert.equal(await again.getByTestId('tool-files').getByTestId('message-file').textContent(), 'summary.csv · 9 B');
    assert.deepEqual(await again.getByTestId('tool-files').locator('img').evaluate(async (img) => { await img.decode(); return img.naturalWidth; }), 60);
    // Search finds the code a model ran (a word only in it) and what it printed.
    await page.getByTestId('session-search').fill('enumerate');
    const hit = page.getByTestId('search-result');
    await hit.first().waitFor({ timeout: 10_000 });
    assert.deepEqual(await hit.locator('mark').allTextContents(), ['enumerate']);
    // A hit found again by a changed query marks the new words.
    await page.getByTestId('session-search').fill('stdout');
    await page.getByTestId('search-result').locator('mark', { hasText: 'stdout' }).first().waitFor({ timeout: 10_000 });
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a 50 MB CSV is summed in the worker without blocking the page', async () => {
    const rows = [];
    let total = 0;
    let size = 0;
    let n = 0;
    rows.push('id,value\n');
    while (size < 50 * 1024 * 1024) {
      const line = `${n},${n % 100}\n`;
      rows.push(line);
      size += line.length;
      total += n % 100;
      n += 1;
    }
    const path = join(dir, 'big.csv');
    writeFileSync(path, rows.join(''));
    const { context, page, errors } = await h.freshPage();
    await page.addInitScript(watch);
    await page.reload();
    await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
    // A first run loads the runner (its part, its frame), as any first run does.
    h.model.enqueue(reply.calls([{ id: 'warm', name: 'run_javascript', arguments: JSON.stringify({ code: '1 + 1' }) }]), reply.text('Warm.'));
    await send(page, 'Warm up');
    await page.getByText('Warm.').waitFor({ timeout: 30_000 });

    await page.getByTestId('attach-input').setInputFiles(path);
    await page.getByTestId('file-chip').waitFor({ timeout: 60_000 });
    const code = 'const t = await files.text("big.csv");\nlet s = 0, n = 0, i = t.indexOf("\\n") + 1;\nwhile (i < t.length) { const c = t.indexOf(",", i); let e = t.indexOf("\\n", c); if (e < 0) e = t.length; s += +t.slice(c + 1, e); n++; i = e + 1; }\nreturn [n, s];';
    h.model.enqueue(reply.calls([{ id: 'big', name: 'run_javascript', arguments: JSON.stringify({ code }) }]), reply.text('Summed the big one.'));
    await send(page, 'Sum column B');
    await page.getByText('Summed the big one.').waitFor({ timeout: 120_000 });
    assert.match(result('big'), new RegExp(`\\nvalue: \\[${n},${total}\\]$`));
    assert.match(about('run_javascript', 2), /big\.csv \(text\/csv, 50\.0 MB\)/);
    // Only the file's first part went to the model.
    const question = h.model.requests.at(-2).body.messages.at(-1).content;
    assert.match(question, /^Sum column B\n\nFile `big\.csv` \(cut: the first 50000 characters of 52\.4 MB\):\n```csv\nid,value\n0,0\n/);
    assert.ok(question.length < 60_000, `${question.length} characters`);

    // While the worker ran (the second card running, until it was done), no long task.
    const { long, status } = await page.evaluate(() => ({ long: window.__long, status: window.__status }));
    const ran = status.find(([, s]) => s === 'done,running')?.[0];
    const done = status.find(([, s]) => s === 'done,done')?.[0];
    assert.ok(ran !== undefined && done !== undefined && done > ran, JSON.stringify(status));
    const blocked = long.filter(([start, took]) => start >= ran && start + took <= done);
    console.log(`50 MB CSV: the run took ${Math.round(done - ran)} ms; long tasks in the page before and after it: ${long.length - blocked.length}, during it: ${blocked.length}`);
    assert.deepEqual(blocked, [], `the main thread was blocked while the run took ${Math.round(done - ran)} ms`);
    assert.deepEqual(errors, []);
    await context.close();
  });
});

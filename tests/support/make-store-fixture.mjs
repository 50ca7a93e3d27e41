// Writes what the built app (dist/) keeps after everyday use, as a fixture
// the host tests open: crates/air-workspace/fixtures/stored-<name>.json.
// A version that changes how things are kept must still open the fixtures
// earlier versions wrote; this makes the fixture of the version built now.
//
//   (cd tests && node support/make-store-fixture.mjs 2026-11)
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configure, launchBrowser, openApp, send, serveApp } from '../e2e/support.mjs';
import { reply, startScriptedModel } from './scripted-model.mjs';

const name = process.argv[2];
if (!name) throw new Error('usage: node support/make-store-fixture.mjs NAME');
const out = join(dirname(fileURLToPath(import.meta.url)), '../../crates/air-workspace/fixtures', `stored-${name}.json`);

const app = await serveApp();
const model = await startScriptedModel();
const browser = await launchBrowser();
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = await openApp(page, app.url);
  await configure(page, { baseUrl: model.baseUrl, model: 'scripted-model' });
  // A conversation with a tool call, an answer in Markdown and a second turn.
  model.enqueue(
    reply.calls([{ id: 'call_1', name: 'calculator', arguments: '{"expression":"23*17"}' }]),
    reply.text('23 × 17 is **391**.'),
  );
  await send(page, 'What is 23*17?');
  await page.getByText('23 × 17 is').waitFor({ timeout: 20_000 });
  model.enqueue(reply.text('You are welcome.'));
  await send(page, 'Thanks');
  await page.getByText('You are welcome.').waitFor({ timeout: 20_000 });
  // A second conversation.
  await page.getByTestId('new-session').click();
  model.enqueue(reply.text('Paris.'));
  await send(page, 'Capital of France?');
  await page.getByText('Paris.').waitFor({ timeout: 20_000 });
  // Everything written.
  await page.waitForTimeout(1000);
  const stored = await page.evaluate(async () => {
    const local = Object.fromEntries(Object.keys(localStorage).filter((k) => k.startsWith('air-agent')).sort().map((k) => [k, localStorage.getItem(k)]));
    const db = await new Promise((ok, fail) => {
      const r = indexedDB.open('air-agent-db');
      r.onsuccess = () => ok(r.result);
      r.onerror = () => fail(r.error);
    });
    const stores = {};
    for (const store of ['sessions', 'messages', 'meta', 'journal']) {
      if (!db.objectStoreNames.contains(store)) continue;
      stores[store] = await new Promise((ok, fail) => {
        const os = db.transaction(store).objectStore(store);
        const keys = os.getAllKeys();
        const values = os.getAll();
        values.onsuccess = () => ok(keys.result.map((k, i) => [k, values.result[i]]));
        values.onerror = () => fail(values.error);
      });
    }
    return { version: db.version, local, stores };
  });
  if (errors.length) throw new Error(`the page said: ${errors.join('\n')}`);
  writeFileSync(out, `${JSON.stringify(stored, null, 1)}\n`);
  console.log(`wrote ${out}`);
  await context.close();
} finally {
  await browser.close();
  await model.stop();
  app.server.close();
}

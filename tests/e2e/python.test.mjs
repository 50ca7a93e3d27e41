// run_python end to end against a scripted model: Pyodide, served by the
// site itself and fetched only when Python first runs, runs in the code
// runner's sandbox; the page hands it the site's files it asks for (only
// those the site's lockfile lists). A package placed beside the site is
// loaded by name with its integrity checked; one the site does not have
// is refused with what it has; memory is bounded; Stop ends a run; and
// once used, Python works offline.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ROOT, scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';
import { DRAW_PNG } from '../support/png-python.mjs';

/** A pure-Python wheel whose module `name` has `hello()`. */
function wheel(name) {
  const py = `
import base64, io, sys, zipfile
name = sys.argv[1]
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as z:
    z.writestr(f"{name}/__init__.py", "def hello():\\n    return 'hello from ' + __name__\\n")
    z.writestr(f"{name}-1.0.dist-info/METADATA", f"Metadata-Version: 2.1\\nName: {name}\\nVersion: 1.0\\n")
    z.writestr(f"{name}-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
    z.writestr(f"{name}-1.0.dist-info/RECORD", "")
sys.stdout.write(base64.b64encode(buf.getvalue()).decode())
`;
  const out = spawnSync('python3', ['-c', py, name], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  return Buffer.from(out.stdout, 'base64');
}

/** The build's lockfile with `packages` added, and their wheels, as a deployer would place them. */
function deployed() {
  const lock = JSON.parse(readFileSync(join(ROOT, 'dist/pyodide/pyodide-lock.json'), 'utf8'));
  assert.deepEqual(Object.keys(lock.packages), [], 'the build offers the standard library only');
  const extra = {};
  for (const [name, tamper] of [['airdemo', false], ['airbad', true]]) {
    const file = `${name}-1.0-py3-none-any.whl`;
    const bytes = wheel(name);
    const sha256 = createHash('sha256').update(tamper ? Buffer.from('something else') : bytes).digest('hex');
    lock.packages[name] = { name, version: '1.0', file_name: file, install_dir: 'site', sha256, package_type: 'package', imports: [name], depends: [] };
    extra[`/pyodide/${file}`] = bytes;
  }
  extra['/pyodide/pyodide-lock.json'] = JSON.stringify(lock);
  return extra;
}

const PLOT = `${DRAW_PNG}
import csv, io
rows = list(csv.DictReader(io.StringIO("month,sales\\nJan,3\\nFeb,5\\nMar,4\\n")))
vals = [int(r["sales"]) for r in rows]
draw(vals, "plot.png")
print("mean", sum(vals) / len(vals))
sum(vals)
`;

describe('run_python (scripted model)', () => {
  // The site with the packages a deployer placed beside it.
  const h = scriptedHarness({ before, after }, startScriptedModel, () => ({ extra: deployed() }));
  const fresh = () => h.freshPage();
  /** What the model was told of call `id`. */
  const result = (id) => h.model.requests.at(-1).body.messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;
  /** The model calls run_python with `args` as `id`, then says `after`; resolves once it did. */
  const ask = async (page, id, args, after) => {
    h.model.enqueue(reply.calls([{ id, name: 'run_python', arguments: JSON.stringify(args) }]), reply.text(after));
    await send(page, `Run ${id}`);
    await page.getByText(after).waitFor({ timeout: 120_000 });
    return result(id);
  };

  test('Python runs in the page: what it printed, its value, and the PNG it drew in the card', async () => {
    const { context, page, errors } = await fresh();
    const fetched = [];
    page.on('request', (r) => { if (r.url().includes('/pyodide/')) fetched.push(r.url().split('/pyodide/')[1]); });
    const told = await ask(page, 'py1', { code: PLOT }, 'The mean is 4.');
    assert.match(told, /^Python ran to its end in \d+ ms\.\nstdout:\nmean 4\.0\nvalue: 12\nFiles given back to the user: plot\.png \(image\/png, [\d.]+ (B|KB)\)\.$/);
    assert.deepEqual([...new Set(fetched)].sort(), ['pyodide-lock.json', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'pyodide.mjs', 'python_stdlib.zip'], 'the runtime, fetched by the page only now');
    const card = page.getByTestId('tool-card');
    assert.equal(await card.getAttribute('data-status'), 'done');
    await card.locator('summary').click();
    const size = await card.getByTestId('tool-files').locator('img').evaluate(async (img) => { await img.decode(); return [img.naturalWidth, img.naturalHeight]; });
    assert.deepEqual(size, [60, 40], 'the PNG the code drew');
    assert.match(await card.getByTestId('tool-code').textContent(), /draw\(vals, "plot\.png"\)/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('packages: one placed beside the site loads by name, a tampered one does not, a missing one is named with what there is', async () => {
    const { context, page, errors } = await fresh();
    const demo = await ask(page, 'py2', { code: 'import airdemo\nairdemo.hello()', packages: ['airdemo'] }, 'It said hello.');
    assert.match(demo, /value: hello from airdemo$/);
    const bad = await ask(page, 'py3', { code: 'import airbad' }, 'That one failed.');
    assert.match(bad, /^The code raised ModuleNotFoundError: /);
    assert.match(bad, /Packages this site offers: airbad, airdemo\./);
    assert.match(bad, /integrity/i, 'the tampered wheel is refused, and said why');
    const none = await ask(page, 'py4', { code: 'import numpy', packages: ['numpy'] }, 'No numpy.');
    assert.equal(none, 'Not run: this site does not offer numpy. Packages it offers: airbad, airdemo.');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('memory is bounded, Stop ends a runaway run, and the next run works', async () => {
    const { context, page, errors } = await fresh();
    const big = await ask(page, 'py5', { code: 'x = bytearray(1800 * 1024 ** 2)' }, 'Too big.');
    assert.match(big, /^The code raised MemoryError/);
    h.model.enqueue(reply.calls([{ id: 'py6', name: 'run_python', arguments: JSON.stringify({ code: 'while True:\n    pass' }) }]));
    await send(page, 'Loop');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=tool-card]')].at(-1)?.dataset.status === 'running', null, { timeout: 60_000 });
    await page.getByTestId('stop').click();
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=tool-card]')].at(-1)?.dataset.status === 'stopped', null, { timeout: 10_000 });
    const again = await ask(page, 'py7', { code: '6 * 7 / 2' }, 'Twenty-one.');
    assert.match(again, /value: 21\.0$/, 'the value as Python shows it');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('once used, Python runs offline', async () => {
    const { context, page, errors } = await fresh();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
    assert.match(await ask(page, 'py8', { code: '"online"' }, 'Ran online.'), /value: online$/);
    // The site goes away (the model, on another port, stays): the page
    // and Python come from the service worker's cache.
    h.app.server.closeAllConnections();
    await new Promise((ok) => h.app.server.close(ok));
    h.app = null;
    await page.reload();
    await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
    const failed = [];
    page.on('requestfailed', (r) => failed.push(r.url()));
    assert.match(await ask(page, 'py9', { code: 'import json\njson.dumps({"offline": True})' }, 'Ran offline.'), /value: \{"offline": true\}$/);
    assert.deepEqual(failed, [], 'nothing was fetched from the site');
    assert.deepEqual(errors, []);
    await context.close();
  });
});

// The app's replicator (`air-sync`, run as the `air-sync` command) against
// real CouchDB-protocol peers: PouchDB Server on 127.0.0.1, with PouchDB
// itself writing the source and reading the result. What PouchDB wrote
// (edits, conflicts, deletions, attachments) arrives the same, revision
// trees included; what PouchDB's own replication makes of the same source
// is what ours makes; an interrupted pass resumes without sending again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import PouchDB from 'pouchdb';
import { startCouch } from '../support/couch.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = process.env.AIR_SYNC_BIN ?? join(process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target'), 'debug', 'air-sync');

/** Runs `air-sync` with `args`; resolves { code, out, err, child } once it exits. */
function airSync(args, env = {}) {
  const child = spawn(BIN, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const done = new Promise((ok) => child.on('exit', (code, signal) => ok({ code, signal, out, err })));
  return { child, done };
}

async function replicate(source, target, ...flags) {
  const r = await airSync([...flags, 'replicate', source, target]).done;
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}

/** Every document of `db` with its whole revision tree, conflicts and attachments. */
async function everything(db) {
  const all = await db.allDocs({ include_docs: false });
  const changes = await db.changes({ style: 'all_docs', since: 0 });
  const out = {};
  for (const c of changes.results) {
    const leaves = await db.get(c.id, { open_revs: 'all', revs: true, attachments: true });
    out[c.id] = leaves.map((l) => l.ok ?? l).sort((a, b) => (a._rev < b._rev ? -1 : 1));
  }
  assert.ok(all.total_rows <= Object.keys(out).length);
  return out;
}

describe('the replicator against PouchDB Server and PouchDB', () => {
  let a;
  let b;
  before(async () => { [a, b] = await Promise.all([startCouch(), startCouch()]); });
  after(async () => { await a?.stop(); await b?.stop(); });

  test('what PouchDB wrote arrives whole: edits, conflicts, deletions, attachments; the next pass sends nothing', async () => {
    const src = new PouchDB(`${a.url}/notes`);
    for (let i = 0; i < 30; i++) await src.put({ _id: `note-${i}`, text: `note ${i}`, n: i });
    const first = await src.get('note-1');
    await src.put({ ...first, text: 'note 1, edited' });
    await src.remove(await src.get('note-2'));
    // Two devices wrote note-3 apart: two leaves, one the winner.
    const n3 = await src.get('note-3');
    await src.bulkDocs([
      { _id: 'note-3', _rev: '2-aaaa', _revisions: { start: 2, ids: ['aaaa', n3._rev.split('-')[1]] }, text: 'from the laptop' },
      { _id: 'note-3', _rev: '2-bbbb', _revisions: { start: 2, ids: ['bbbb', n3._rev.split('-')[1]] }, text: 'from the phone' },
    ], { new_edits: false });
    await src.put({ _id: 'with-file', _attachments: { 'a.txt': { content_type: 'text/plain', data: Buffer.from('attached bytes é').toString('base64') } } });
    await src.put({ _id: '_local/not-replicated', x: 1 });

    const report = await replicate(`${a.url}/notes`, `${b.url}/notes`, '--create', '--batch', '7');
    assert.equal(report.batches >= 5, true, JSON.stringify(report));
    const dst = new PouchDB(`${b.url}/notes`);
    assert.deepEqual(await everything(dst), await everything(src));
    const conflicted = await dst.get('note-3', { conflicts: true });
    assert.equal(conflicted._conflicts.length, 1);
    assert.equal(String(await dst.getAttachment('with-file', 'a.txt')), 'attached bytes é');
    await assert.rejects(dst.get('_local/not-replicated'), (e) => e.status === 404);
    // Checkpointed on both sides: nothing is read again.
    const again = await replicate(`${a.url}/notes`, `${b.url}/notes`);
    assert.deepEqual([again.docsRead, again.docsWritten], [0, 0]);
    // A change since goes alone.
    await src.put({ ...(await src.get('note-4')), text: 'later' });
    const later = await replicate(`${a.url}/notes`, `${b.url}/notes`);
    assert.deepEqual([later.docsRead, later.docsWritten], [1, 1]);
    assert.equal((await dst.get('note-4')).text, 'later');
  });

  test('PouchDB\'s own replication of the same source makes the same database', async () => {
    const src = new PouchDB(`${a.url}/notes`);
    const theirs = new PouchDB(`${b.url}/by-pouchdb`);
    await PouchDB.replicate(src, theirs);
    await replicate(`${a.url}/notes`, `${b.url}/by-air`, '--create');
    assert.deepEqual(await everything(new PouchDB(`${b.url}/by-air`)), await everything(theirs));
    // And back: what ours wrote, PouchDB replicates on as it is.
    const round = new PouchDB(`${a.url}/round-trip`);
    await PouchDB.replicate(new PouchDB(`${b.url}/by-air`), round);
    assert.deepEqual(await everything(round), await everything(src));
  });

  test('a pass killed in the middle resumes where it stopped, and a stopped server is waited for', async () => {
    const big = new PouchDB(`${a.url}/big`);
    const docs = Array.from({ length: 2000 }, (_, i) => ({ _id: `d-${String(i).padStart(5, '0')}`, text: 'x'.repeat(200), i }));
    for (let i = 0; i < docs.length; i += 500) await big.bulkDocs(docs.slice(i, i + 500));
    const trace = join(mkdtempSync(join(tmpdir(), 'air-sync-trace-')), 'trace.jsonl');
    const run = airSync(['--create', '--batch', '100', 'replicate', `${a.url}/big`, `${b.url}/big`], { AIR_SYNC_TRACE: trace });
    // Killed once a few batches are in.
    const bulk = () => { try { return readFileSync(trace, 'utf8').split('\n').filter((l) => l.includes('_bulk_docs')).length; } catch { return 0; } };
    for (let i = 0; i < 300 && bulk() < 4; i++) await new Promise((r) => setTimeout(r, 20));
    run.child.kill('SIGKILL');
    const killed = await run.done;
    assert.equal(killed.signal, 'SIGKILL', 'it was still running');
    const written = (await new PouchDB(`${b.url}/big`).info()).doc_count;
    assert.ok(written >= 300 && written < 2000, `written before the kill: ${written}`);
    // Again: only what was not checkpointed is read.
    const resumed = await replicate(`${a.url}/big`, `${b.url}/big`, '--batch', '100');
    assert.ok(resumed.docsRead <= 2000 - 300 && resumed.docsRead >= 2000 - written, JSON.stringify({ resumed, written }));
    assert.equal((await new PouchDB(`${b.url}/big`).info()).doc_count, 2000);

    // The target stopped: the pass fails with a clear error, and goes on
    // from its checkpoint once the server is back on the same data.
    await big.bulkDocs(Array.from({ length: 50 }, (_, i) => ({ _id: `e-${i}`, i })));
    await b.stop();
    const failed = await airSync(['replicate', `${a.url}/big`, `${b.url}/big`]).done;
    assert.equal(failed.code, 1);
    assert.match(failed.err, /^error: .*(reach|connect|network)/i);
    b = await startCouch({ dir: b.dir, port: b.port });
    const back = await replicate(`${a.url}/big`, `${b.url}/big`);
    assert.deepEqual([back.docsRead, back.docsWritten], [50, 50]);
    assert.equal((await new PouchDB(`${b.url}/big`).info()).doc_count, 2050);
  });
});

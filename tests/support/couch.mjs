// PouchDB Server (npm `pouchdb-server`, in tests/sync/): a real CouchDB
// HTTP API on 127.0.0.1 for the sync tests. Each server gets its own data
// directory and config file (admins are kept there), and is stopped by PID.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'tests/sync/node_modules/pouchdb-server/bin/pouchdb-server');

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/**
 * Starts PouchDB Server on `port` (a free one by default) over `dir` (a
 * new temporary directory by default: pass the same one to start it again
 * on the same data). Returns { url, port, dir, stop, output }.
 */
export async function startCouch({ dir, port } = {}) {
  dir ??= mkdtempSync(join(tmpdir(), 'air-couch-'));
  mkdirSync(dir, { recursive: true });
  port ??= await freePort();
  const child = spawn(process.execPath, [BIN, '-p', String(port), '-o', '127.0.0.1', '-d', dir, '-c', join(dir, 'config.json'), '-n'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((ok) => child.once('exit', ok));
    process.kill(child.pid, 'SIGTERM');
    const timer = setTimeout(() => { try { process.kill(child.pid, 'SIGKILL'); } catch {} }, 3000);
    await gone;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`PouchDB Server exited:\n${log}`);
    try {
      const r = await fetch(url);
      if (r.ok && (await r.json())['express-pouchdb']) return { url, port, dir, stop, output: () => log, child };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`PouchDB Server did not start:\n${log}`);
}

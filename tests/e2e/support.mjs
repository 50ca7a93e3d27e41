// Shared set-up for the end-to-end tests: the built app on a local static
// server, the real local model, and Debian's Chromium driven by Playwright.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../support/static-server.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(HERE, '..', '..');

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export function launchBrowser() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
}

/** The built app on a free port (`options` as `startStaticServer` takes them: files `extra` beside it). */
export async function serveApp(options) {
  return startStaticServer(join(ROOT, 'dist'), 0, options);
}

export function freePort() {
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
 * Spawns a server process, collecting its output; `stop` ends it by PID
 * (SIGTERM, then SIGKILL after 3 s), with `group`, its whole process group
 * (a shell line and everything it started).
 */
export function spawnServer(command, args, env = {}, { cwd, group = false } = {}) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, detached: group, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = group ? -child.pid : child.pid;
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((ok) => child.once('exit', ok));
    process.kill(pid, 'SIGTERM');
    const timer = setTimeout(() => { try { process.kill(pid, 'SIGKILL'); } catch {} }, 3000);
    await gone;
    clearTimeout(timer);
  };
  return { child, output: () => log, stop };
}

/**
 * Starts llama.cpp's server with the SmolLM2 model on a free port and waits
 * until /health answers. Returns { baseUrl, stop }.
 */
export async function startModel({ nPredict = 160 } = {}) {
  const python = process.env.AIR_PYTHON;
  const model = process.env.AIR_MODEL;
  if (!python || !model) throw new Error('AIR_PYTHON and AIR_MODEL must be set (./dev test sets them)');
  const port = await freePort();
  const { child, output, stop } = spawnServer(python, [join(ROOT, 'tests/support/llama_server.py'), model, String(port), '--threads', '2', '--n-predict', String(nPredict)]);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the model server exited:\n${output()}`);
    try {
      const r = await fetch(`${base}/health`);
      if (r.ok) return { baseUrl: `${base}/v1`, stop };
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`the model server did not become ready:\n${output()}`);
}

/**
 * Starts the MCP reference server (npm `@modelcontextprotocol/server-everything`,
 * Streamable HTTP) on a free port of 127.0.0.1. Returns { url, stop }.
 */
export async function startEverything({ port: wanted, transport = 'streamableHttp' } = {}) {
  const port = wanted ?? await freePort();
  const entry = join(ROOT, 'tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const { child, output, stop } = spawnServer(process.execPath, ['-r', join(ROOT, 'tests/support/loopback.cjs'), entry, transport], { PORT: String(port) });
  const path = transport === 'sse' ? '/sse' : '/mcp';
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the MCP server exited:\n${output()}`);
    if (/listening on port|running on port/i.test(output())) return { url: `http://127.0.0.1:${port}${path}`, port, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`the MCP server did not start:\n${output()}`);
}

/**
 * Starts the MCP Apps example server (npm
 * `@modelcontextprotocol/server-basic-vanillajs`: a `get-time` tool with a
 * View, stateless Streamable HTTP) on a free port of 127.0.0.1.
 * Returns { url, stop }.
 */
export async function startBasicApp() {
  const port = await freePort();
  const entry = join(ROOT, 'tests/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
  const { child, output, stop } = spawnServer(process.execPath, ['-r', join(ROOT, 'tests/support/loopback.cjs'), entry], { PORT: String(port) });
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the MCP Apps server exited:\n${output()}`);
    if (/MCP server listening/.test(output())) return { url: `http://127.0.0.1:${port}/mcp`, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`the MCP Apps server did not start:\n${output()}`);
}

/**
 * Starts the MCP App server of the tests (`support/py_mcp_app_server.py`):
 * a View with app-only and model-only tools, one declared origin (itself)
 * and `undeclared` to try. Returns { url, origin, stop }.
 */
export async function startPyMcpApp(undeclared) {
  const python = process.env.AIR_MCP_PYTHON;
  if (!python) throw new Error('AIR_MCP_PYTHON is not set (./dev test sets it)');
  const port = await freePort();
  const { child, output, stop } = spawnServer(python, [join(ROOT, 'tests/support/py_mcp_app_server.py'), String(port), undeclared]);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the MCP App server exited:\n${output()}`);
    if (/^ready$/m.test(output())) return { url: `http://127.0.0.1:${port}/mcp`, origin: `http://127.0.0.1:${port}`, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`the MCP App server did not start:\n${output()}`);
}

/**
 * Starts the Python SDK's MCP server (`support/py_mcp_server.py`, PyPI
 * `mcp` from AIR_MCP_PYTHON's venv) in `mode`: stateful, stateless-json or
 * stateless. Returns { url, stop }.
 */
export async function startPyMcp(mode, cors = 'full') {
  const python = process.env.AIR_MCP_PYTHON;
  if (!python) throw new Error('AIR_MCP_PYTHON is not set (./dev test sets it)');
  const port = await freePort();
  const { child, output, stop } = spawnServer(python, [join(ROOT, 'tests/support/py_mcp_server.py'), String(port), mode, cors]);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the Python MCP server exited:\n${output()}`);
    if (/^ready$/m.test(output())) return { url: `http://127.0.0.1:${port}/mcp`, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`the Python MCP server did not start:\n${output()}`);
}

/**
 * Starts the MCP server that asks for OAuth (`support/py_oauth_mcp_server.py`,
 * PyPI `fastmcp` from AIR_MCP_PYTHON's venv, with its in-memory
 * authorization server on the same origin). Returns { url, origin, stop }.
 */
export async function startOAuthMcp(variant = null, args = []) {
  const python = process.env.AIR_MCP_PYTHON;
  if (!python) throw new Error('AIR_MCP_PYTHON is not set (./dev test sets it)');
  const port = await freePort();
  const { child, output, stop } = spawnServer(python, [join(ROOT, 'tests/support/py_oauth_mcp_server.py'), String(port), ...(variant ? [variant] : []), ...args]);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the OAuth MCP server exited:\n${output()}`);
    if (/^ready$/m.test(output())) return { url: `http://127.0.0.1:${port}/mcp`, origin: `http://127.0.0.1:${port}`, output, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`the OAuth MCP server did not start:\n${output()}`);
}

/** Opens the app and waits until the store is open. */
export async function openApp(page, url) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
  return errors;
}

/** Sets base URL (and optionally model) through the settings drawer. */
export async function configure(page, { baseUrl, model }) {
  await page.getByTestId('open-settings').click();
  await page.getByTestId('settings-base-url').fill(baseUrl);
  if (model) await page.getByTestId('settings-model').fill(model);
  await page.getByTestId('settings-save').click();
  await page.getByTestId('settings').waitFor({ state: 'detached' });
  // Written once the part that writes preferences is here.
  await page.waitForFunction((url) => (localStorage.getItem('air-agent-settings') || '').includes(url), baseUrl, { timeout: 10_000 });
}

/**
 * Settings → MCP servers: adds `url` as `name` with every tool it offers,
 * letting its read-only hints decide (unless `trustHints` is false).
 * Leaves the settings drawer open.
 */
export async function addMcpServer(page, name, url, { trustHints = true } = {}) {
  await page.getByTestId('open-settings').click();
  await page.getByTestId('mcp-name').fill(name);
  await page.getByTestId('mcp-url').fill(url);
  await page.getByTestId('mcp-add').click();
  await page.getByTestId('mcp-picks').waitFor({ timeout: 20_000 });
  if (trustHints) await page.getByTestId('mcp-add-trust-hints').check();
  await page.getByTestId('mcp-save').click();
}

/**
 * Waits until the store holds the answer streaming now, checkpointed with
 * more than `least` characters (a page closed from then on keeps them).
 */
export async function checkpointed(page, least, timeout = 60_000) {
  const stored = () => page.evaluate((least) => new Promise((ok) => {
    const open = indexedDB.open('air-agent-db');
    open.onerror = () => ok(false);
    open.onsuccess = () => {
      const r = open.result.transaction(['messages']).objectStore('messages').getAll();
      r.onerror = () => { open.result.close(); ok(false); };
      r.onsuccess = () => {
        open.result.close();
        const last = r.result.filter((m) => m.role === 'assistant').sort((a, b) => b.seq - a.seq)[0];
        ok(Boolean(last?.incomplete && (last.content ?? '').trim().length > least));
      };
    };
  }), least);
  for (const until = Date.now() + timeout; !(await stored());) {
    if (Date.now() > until) throw new Error(`no checkpoint of more than ${least} characters within ${timeout} ms`);
    await page.waitForTimeout(100);
  }
}

/**
 * Waits until no CSS transition runs in the page (a drawer or the sidebar
 * has finished sliding). Polled, not by frame: a headless page resized by
 * a test has been seen to stop painting frames.
 */
export async function settled(page) {
  await page.waitForFunction(() => document.getAnimations().every((a) => !(a instanceof CSSTransition)), null, { polling: 50, timeout: 10_000 });
}

export async function send(page, text) {
  await page.getByTestId('composer-input').fill(text);
  await page.getByTestId('composer-input').press('Enter');
}

/**
 * Registers before/after hooks that start the built app (served with
 * `serve`'s options, see `serveApp`), a scripted model and Chromium for the
 * enclosing `describe`, and stop them afterwards. Returns a handle whose
 * fields are set once the hooks ran.
 */
export function scriptedHarness({ before, after }, startScriptedModel, serve) {
  const h = { app: null, model: null, browser: null };
  before(async () => {
    h.app = await serveApp(typeof serve === 'function' ? serve() : serve);
    h.model = await startScriptedModel();
    h.browser = await launchBrowser();
  });
  after(async () => {
    await h.browser?.close();
    await h.model?.stop();
    h.app?.server.close();
  });
  /** A fresh browser profile with the app open and pointed at the scripted model. */
  h.freshPage = async (contextOptions = {}) => {
    const context = await h.browser.newContext(contextOptions);
    const page = await context.newPage();
    const errors = await openApp(page, h.app.url);
    await configure(page, { baseUrl: h.model.baseUrl, model: 'scripted-model' });
    return { context, page, errors };
  };
  /** A fresh profile with the export `doc` imported and its first conversation open. */
  h.importedPage = async (doc) => {
    const fresh = await h.freshPage();
    await fresh.page.getByTestId('open-settings').click();
    await fresh.page.getByTestId('import-file').setInputFiles({ name: 'export.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
    await fresh.page.getByTestId('import-result').getByText(/Imported \d+ conversation/).waitFor({ timeout: 10_000 });
    await fresh.page.getByTestId('settings-save').click();
    await fresh.page.getByTestId('session-item').first().click();
    return fresh;
  };
  return h;
}

/**
 * Before any of the page's scripts (on a page or a context): the
 * in-browser engine module the app imports (`engine/inpage.js`, through
 * `boot.js`'s `__airImport`) goes through `wrap`, run in the page, and the
 * app uses what it returns. `wrap` must stand alone (it is sent as its
 * source); what it keeps between calls goes on `globalThis`.
 */
export async function wrapEngine(target, wrap) {
  const hook = (wrap) => {
    let real;
    Object.defineProperty(globalThis, '__airImport', {
      configurable: true,
      set(f) { real = f; },
      get() {
        return async (url) => {
          const module = await real(url);
          return url.endsWith('engine/inpage.js') ? wrap(module) : module;
        };
      },
    });
  };
  await target.addInitScript({ content: `(${hook})(${wrap});` });
}

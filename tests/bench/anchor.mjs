// Streaming side by side with the llama.cpp web UI: runs the shared
// bench-anchor (compare.mjs) on a copy with three changes, all needed for
// this app and neither changing what is measured:
// - wasm memory is read from the memories the page instantiated, not by
//   Runtime.queryObjects: Chromium 156 closes a page holding a funcref
//   WebAssembly.Table when that walks its heap, and code-split wasm shares
//   its table with JavaScript;
// - Settings also say the model calls tools natively, so the answer is one
//   request (unset, the app asks the model once whether it calls tools,
//   remembered per provider and model);
// - the answer is done when the last message text holds the marker, not
//   only when there are two message texts: the conversation is a virtual
//   list, and a question scrolled 1,000 px out of view is not in the page
//   (the question cannot hold the marker, so nothing else changes).
//
//   node bench/anchor.mjs ANCHOR_DIR [compare.mjs arguments...]
// Run from tests/ (or set AIR_REPO); see the anchor's README for the model
// server it forwards to.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { MEMORY_HOOK, MEMORY_READ } from '../support/wasm-memory.mjs';

const [anchor, ...args] = process.argv.slice(2);
if (!anchor) { console.error('usage: node bench/anchor.mjs ANCHOR_DIR [compare.mjs arguments...]'); process.exit(2); }
const dir = mkdtempSync(join(tmpdir(), 'air-anchor-'));
cpSync(anchor, dir, { recursive: true });
const file = join(dir, 'compare.mjs');
let src = readFileSync(file, 'utf8');
const replace = (from, to) => {
  if (!src.includes(from)) throw new Error(`bench-anchor changed: ${from.slice(0, 60)}… not found`);
  src = src.replace(from, to);
};
const start = src.indexOf('async function wasmMemory(cdp) {');
const end = src.indexOf('\n}\n', start) + 3;
if (start < 0 || end < 3) throw new Error('bench-anchor changed: wasmMemory not found');
src = src.slice(0, start) + `const MEMORY_HOOK = ${JSON.stringify(MEMORY_HOOK)};
async function wasmMemory(cdp) {
  const r = await cdp.send('Runtime.evaluate', { expression: ${JSON.stringify(MEMORY_READ)}, returnByValue: true });
  return r.result.value;
}
` + src.slice(end);
replace('const page = await context.newPage();', 'await context.addInitScript(MEMORY_HOOK);\n  const page = await context.newPage();');
replace("await page.getByTestId('settings-model').fill('bench-model');",
  "await page.getByTestId('settings-model').fill('bench-model');\n      await page.getByTestId('settings-tool-calling').selectOption('native');");
replace('return t.length > 1 && t[t.length - 1].textContent.includes(marker);',
  'return t.length > 0 && t[t.length - 1].textContent.includes(marker);');
writeFileSync(file, src);
const repo = process.env.AIR_REPO ?? resolve(process.cwd(), '..');
const r = spawnSync(process.execPath, [file, ...args], { stdio: 'inherit', env: { ...process.env, AIR_REPO: repo }, cwd: process.cwd() });
process.exit(r.status ?? 1);

// Measures the release bundle in dist/ and writes the tables into
// docs/BENCHMARKS.md between the bundle markers, leaving the rest of the
// file as it is:
// - what a first visit downloads: every file the service worker precaches
//   (sw.js's CORE list: the page, its wasm, JS and CSS, icons, and the
//   pages opened later), raw, gzip -9 and brotli 11;
// - each part loaded on first use (a `#[split]` function of the app): its
//   own module and the shared modules it needs that the first load lacks.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { execSync } from 'node:child_process';

const [dist = 'dist', out = 'docs/BENCHMARKS.md'] = process.argv.slice(2);
const sw = readFileSync(join(dist, 'sw.js'), 'utf8');
const list = (name) => JSON.parse(sw.match(new RegExp(`const ${name} = (\\[.*\\]);`))[1]);
const core = list('CORE');
const lazy = list('LAZY');

const sizes = new Map();
const measure = (file) => {
  if (!sizes.has(file)) {
    const data = readFileSync(join(dist, file));
    sizes.set(file, {
      raw: data.length,
      gzip: gzipSync(data, { level: 9 }).length,
      br: brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    });
  }
  return sizes.get(file);
};
const sum = (files) => files.map(measure).reduce((a, s) => ({ raw: a.raw + s.raw, gzip: a.gzip + s.gzip, br: a.br + s.br }), { raw: 0, gzip: 0, br: 0 });
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
const generic = (f) => f.replace(/-[0-9a-f]{16}(?=[_.])/, '-<hash>').replace(/_\d{8,}(?=-)/, '');

// The split loader (written by app/bundle.py): the modules, and for each
// part its own module (if it has one) and the modules it waits for.
const loaderFile = core.find((f) => /^split-[0-9a-f]+\.js$/.test(f));
const loader = loaderFile ? readFileSync(join(dist, loaderFile), 'utf8') : '';
const moduleFile = new Map([...loader.matchAll(/const (__module_\w+) = makeLoad\(module\("([^"]+)"\), \[\]\);/g)].map((m) => [m[1], m[2]]));
const parts = [...loader.matchAll(/export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\((?:module\("([^"]+)"\)|none), \[([^\]]*)\]\)\);/g)]
  .map((m) => ({ name: m[1], files: [...(m[2] ? [m[2]] : []), ...m[3].split(',').map((c) => c.trim()).filter(Boolean).map((c) => moduleFile.get(c))] }))
  .sort((a, b) => sum(b.files).gzip - sum(a.files).gzip);
if (loader && (parts.length === 0 || parts.some((p) => p.files.some((f) => !f)))) {
  throw new Error(`the split loader ${loaderFile} is not as app/bundle.py writes it`);
}

const rev = (() => { try { return execSync('git rev-parse --short HEAD').toString().trim(); } catch { return 'unknown'; } })();
const first = sum(core);
const row = (name, s, note = '') => `| ${name} | ${kb(s.raw)} | ${kb(s.gzip)} | ${kb(s.br)} |${note}`;
const table = [
  '<!-- bundle:start -->',
  `Measured by \`./dev bench\` on ${new Date().toISOString().slice(0, 10)} at commit \`${rev}\` (release profile, opt-level "z", LTO, wasm-opt -Oz from binaryen 132, split by wasm-split-cli and grouped by app/bundle.py).`,
  '',
  'What a first visit downloads (the service worker precaches exactly these):',
  '',
  '| file | raw | gzip -9 | brotli 11 |',
  '|---|---:|---:|---:|',
  ...core.map((f) => row(`\`${generic(f)}\``, measure(f))),
  row(`**first visit** (budget 400 KB gzip: ${(first.gzip / 1000).toFixed(1)} KB)`, first),
  '',
  `Loaded on first use (${lazy.length} files; a part's size counts the modules it waits for, so parts overlap):`,
  '',
  '| part | raw | gzip -9 | brotli 11 |',
  '|---|---:|---:|---:|',
  ...parts.map((p) => row(`\`${p.name}\` (${p.files.length} files)`, sum(p.files))),
  row('**every part**', sum(lazy)),
  '<!-- bundle:end -->',
].join('\n');

let doc = existsSync(out) ? readFileSync(out, 'utf8') : '# Benchmarks\n\n## Bundle size\n\n<!-- bundle:start -->\n<!-- bundle:end -->\n';
doc = doc.replace(/<!-- bundle:start -->[\s\S]*<!-- bundle:end -->/, table);
writeFileSync(out, doc);
console.log(table);

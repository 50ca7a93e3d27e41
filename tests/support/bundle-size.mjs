// Measures the release bundle in dist/ (raw, gzip -9 and brotli sizes of the
// wasm, JS and CSS) and writes the table into docs/BENCHMARKS.md between the
// bundle markers, leaving the rest of the file as it is.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, extname } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { execSync } from 'node:child_process';

const [dist = 'dist', out = 'docs/BENCHMARKS.md'] = process.argv.slice(2);
const kinds = { '.wasm': 'wasm', '.js': 'JS', '.css': 'CSS', '.html': 'HTML' };
const rows = [];
const totals = { raw: 0, gzip: 0, br: 0 };
for (const name of readdirSync(dist).sort()) {
  const kind = kinds[extname(name)];
  if (!kind) continue;
  const data = readFileSync(join(dist, name));
  const gzip = gzipSync(data, { level: 9 }).length;
  const br = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  rows.push({ kind, name: name.replace(/-[0-9a-f]{8,16}(?=[_.])/, '-<hash>'), raw: data.length, gzip, br });
  totals.raw += data.length; totals.gzip += gzip; totals.br += br;
}
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
const rev = (() => { try { return execSync('git rev-parse --short HEAD').toString().trim(); } catch { return 'unknown'; } })();
const table = [
  '<!-- bundle:start -->',
  `Measured by \`./dev bench\` on ${new Date().toISOString().slice(0, 10)} at commit \`${rev}\` (release profile, opt-level "z", LTO, wasm-opt -Oz from binaryen 132).`,
  '',
  '| file | kind | raw | gzip -9 | brotli 11 |',
  '|---|---|---:|---:|---:|',
  ...rows.map((r) => `| \`${r.name}\` | ${r.kind} | ${kb(r.raw)} | ${kb(r.gzip)} | ${kb(r.br)} |`),
  `| **total** | | **${kb(totals.raw)}** | **${kb(totals.gzip)}** | **${kb(totals.br)}** |`,
  '<!-- bundle:end -->',
].join('\n');

let doc = existsSync(out) ? readFileSync(out, 'utf8') : '# Benchmarks\n\n## Bundle size\n\n<!-- bundle:start -->\n<!-- bundle:end -->\n';
doc = doc.replace(/<!-- bundle:start -->[\s\S]*<!-- bundle:end -->/, table);
writeFileSync(out, doc);
console.log(table);

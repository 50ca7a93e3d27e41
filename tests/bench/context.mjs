// Tool context, dynamic loading off versus on (a benchmark, not a test):
// the texts a first request carries for 10 MCP servers of 30 realistic
// tools (`cargo run --release -p air-dynamic --example context`), counted
// with the local model's own BPE tokenizer (SmolLM2, llama.cpp's
// `/tokenize`). Writes the section between the context markers of
// docs/BENCHMARKS.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, startModel } from '../e2e/support.mjs';

const out = process.argv[2] ?? join(ROOT, 'docs/BENCHMARKS.md');
const texts = JSON.parse(execFileSync('cargo', ['run', '-q', '--release', '--locked', '-p', 'air-dynamic', '--example', 'context'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 }));
const model = await startModel();
let off, on;
try {
  const base = model.baseUrl.replace(/\/v1$/, '');
  const count = async (content) => {
    const r = await fetch(`${base}/tokenize`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ content }) });
    return (await r.json()).tokens.length;
  };
  off = await count(texts.off);
  on = await count(texts.on);
} finally {
  await model.stop();
}
const kb = (s) => `${(Buffer.byteLength(s) / 1024).toFixed(1)} KiB`;
const table = [
  '| first request, 10 servers × 30 tools (' + texts.tools + ' definitions) | bytes | SmolLM2 tokens |',
  '|---|---:|---:|',
  `| dynamic loading off: every definition in \`tools\` | ${kb(texts.off)} | ${off.toLocaleString('en')} |`,
  `| dynamic loading on: the two loaders and the one-line catalog | ${kb(texts.on)} | ${on.toLocaleString('en')} |`,
  `| on as a share of off | | ${((on / off) * 100).toFixed(1)} % |`,
].join('\n');
const doc = readFileSync(out, 'utf8').replace(/(<!-- context:start -->)[\s\S]*?(<!-- context:end -->)/, (_, a, b) => `${a}\n${table}\n${b}`);
writeFileSync(out, doc);
console.log(table);

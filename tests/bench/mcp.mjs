// MCP client overhead (a benchmark, not a test): the median time of a
// `tools/call` made through the app's MCP client core (the `air-mcp`
// command, release build) against the very same HTTP request replayed raw,
// on loopback, for the reference server (sessions, SSE answers) and the
// Python SDK's server (2026-07-28, JSON answers). Writes the section
// between the mcp markers of docs/BENCHMARKS.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync, execSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, startEverything, startPyMcp } from '../e2e/support.mjs';

const out = process.argv[2] ?? join(ROOT, 'docs/BENCHMARKS.md');
const bin = join(ROOT, 'target/release/air-mcp');
const CALLS = 300;

function bench(tool, args, url) {
  return JSON.parse(execFileSync(bin, ['bench', tool, JSON.stringify(args), String(CALLS), url], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
}

const rows = [];
const everything = await startEverything();
try {
  rows.push(['reference server (npm `server-everything`, 2025-11-25 session, SSE answers)', 'echo', bench('echo', { message: 'hi' }, everything.url)]);
} finally {
  await everything.stop();
}
const py = await startPyMcp('stateless-json');
try {
  rows.push(['Python SDK server (PyPI `mcp` 2.3.0, 2026-07-28, JSON answers)', 'add', bench('add', { a: 1, b: 2 }, py.url)]);
} finally {
  await py.stop();
}

const commit = execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim();
const fmt = (ms) => `${ms.toFixed(2)} ms`;
const section = [
  '<!-- mcp:start -->',
  `Measured by \`./dev bench\` on ${new Date().toISOString().slice(0, 10)} at commit \`${commit}\`: ${CALLS} calls each, medians, 127.0.0.1.`,
  '',
  '| server | tool | through the client | the same request raw | ratio |',
  '|---|---|---:|---:|---:|',
  ...rows.map(([server, tool, r]) => `| ${server} | \`${tool}\` | ${fmt(r.clientMs)} | ${fmt(r.rawMs)} | ${r.ratio.toFixed(2)}× |`),
  '<!-- mcp:end -->',
].join('\n');
let doc = readFileSync(out, 'utf8');
if (!doc.includes('<!-- mcp:start -->')) doc += '\n## MCP client overhead\n\n<!-- mcp:start -->\n<!-- mcp:end -->\n';
doc = doc.replace(/<!-- mcp:start -->[\s\S]*<!-- mcp:end -->/, section);
writeFileSync(out, doc);
console.log(section);

// Run by app/split.sh as the build's last step: writes a brotli (`.br`,
// quality 11) and a gzip (`.gz`, level 9) copy beside every text and wasm
// file of the build, for hosts that send a file's precompressed copy with
// `Content-Encoding` (`./dev serve` does). A copy is not written when it
// would not be smaller than the file.
//
// Brotli at quality 11 takes seconds for the wasm, so each copy is kept
// in CACHE_DIR under a hash of the file's bytes and reused while those are
// unchanged; copies no build used for a week are removed.
//
// Usage: node compress.mjs DIR CACHE_DIR
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const [dir, cacheDir] = process.argv.slice(2);
if (!dir || !cacheDir) {
  console.error('usage: node compress.mjs DIR CACHE_DIR');
  process.exit(2);
}
const COMPRESSIBLE = /\.(html|js|mjs|css|wasm|json|webmanifest|svg)$/;
const WEEK_MS = 7 * 24 * 3600 * 1000;

const ENCODINGS = {
  br: (data) => brotliCompressSync(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    },
  }),
  gz: (data) => gzipSync(data, { level: 9 }),
};

function files(root) {
  const out = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) out.push(...files(path));
    else if (entry.isFile() && COMPRESSIBLE.test(entry.name)) out.push(path);
  }
  return out;
}

/** The compressed bytes of `data`, from the cache when they are there. */
function compressed(data, ext) {
  const key = createHash('sha256').update(data).digest('hex');
  const cached = join(cacheDir, `${key}.${ext}`);
  if (existsSync(cached)) {
    const now = new Date();
    utimesSync(cached, now, now);
    return readFileSync(cached);
  }
  const out = ENCODINGS[ext](data);
  // Written whole under another name, then renamed: an interrupted build
  // leaves no cut copy to be reused.
  const part = `${cached}.${process.pid}.part`;
  writeFileSync(part, out);
  renameSync(part, cached);
  return out;
}

mkdirSync(cacheDir, { recursive: true });
let raw = 0;
const written = { br: 0, gz: 0 };
for (const file of files(dir)) {
  const data = readFileSync(file);
  raw += data.length;
  for (const ext of Object.keys(ENCODINGS)) {
    const out = compressed(data, ext);
    if (out.length >= data.length) continue;
    writeFileSync(`${file}.${ext}`, out);
    written[ext] += out.length;
  }
}
for (const name of readdirSync(cacheDir)) {
  const path = join(cacheDir, name);
  // Another build may be removing it too.
  const info = statSync(path, { throwIfNoEntry: false });
  if (info && Date.now() - info.mtimeMs > WEEK_MS) rmSync(path, { force: true });
}
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.error(`compress: ${relative(process.cwd(), dir) || dir}: ${kib(raw)} raw, ${kib(written.br)} brotli, ${kib(written.gz)} gzip`);

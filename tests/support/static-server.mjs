// A small static file server for the built app (dist/). Used by `./dev serve`
// and by the end-to-end tests. Serves only 127.0.0.1.
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { readFile, readdir, stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

// The files the build writes a `.br` and a `.gz` of (app/compress.mjs).
const COMPRESSIBLE = /\.(html|js|mjs|css|wasm|json|webmanifest|svg)$/;
const ENCODINGS = [{ name: 'br', ext: 'br' }, { name: 'gzip', ext: 'gz' }];

/** The encodings an Accept-Encoding header allows (a `q=0` refuses one). */
function accepted(header = '') {
  const ok = new Set();
  for (const item of header.split(',')) {
    const [name, ...params] = item.trim().toLowerCase().split(';').map((p) => p.trim());
    const q = params.find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) ok.add(name);
  }
  return ok;
}

/** The best precompressed copy of `file` the browser accepts, if the build wrote one. */
async function precompressed(file, header, only = null) {
  if (!COMPRESSIBLE.test(file)) return null;
  const ok = accepted(header);
  for (const encoding of ENCODINGS.filter((e) => !only || e.name === only)) {
    if (ok.has(encoding.name) && (await stat(`${file}.${encoding.ext}`).catch(() => null))?.isFile()) return encoding;
  }
  return null;
}

/**
 * Starts serving `root` on 127.0.0.1:`port` (0 = any free port), over https
 * when `tls` ({ key, cert }) is given, as `host` in the URL it reports;
 * `extra` maps more paths to texts (read at each request); `prefix`
 * (`/agent`) serves everything under that sub-path only; `types` maps
 * extensions to other media types (a host that does not know `.wasm`);
 * `frameAncestors: false` leaves out the `frame-ancestors 'self'` header
 * that pages get otherwise (as the README asks of hosts), for a test of
 * what the pages themselves do when another site frames them;
 * `compressed: false` sends every file as it is, as a host that does not
 * compress does (otherwise a file's `.br` or `.gz` beside it, written by
 * the build, is sent with its `Content-Encoding` when the browser accepts
 * it; `compressed: 'gzip'` sends only the `.gz`, as a host without
 * brotli); `onSent({ path, bytes, encoding })` is told of every file
 * sent (`bytes`: its body as sent). Resolves to { server, url }.
 */
export function startStaticServer(root, port = 0, { tls = null, host = '127.0.0.1', extra = {}, prefix = '', types = {}, frameAncestors = true, compressed = true, onSent = null, models = null } = {}) {
  const base = resolve(root);
  const handler = async (req, res) => {
    try {
      let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      // Served under a sub-path: nothing outside it exists.
      if (prefix) {
        if (!path.startsWith(`${prefix}/`)) {
          res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
          return;
        }
        path = path.slice(prefix.length);
      }
      if (models && path.startsWith('/models/')) {
        await serveModel(models, path.slice('/models/'.length), req, res);
        return;
      }
      // Files a test adds as if deployed with the build (`extra`: path → text or bytes).
      if (typeof extra[path] === 'string' || Buffer.isBuffer(extra[path])) {
        res.writeHead(200, { 'Content-Type': TYPES[extname(path)] ?? 'text/plain', 'Cache-Control': 'no-cache' });
        res.end(extra[path]);
        return;
      }
      let file = normalize(join(base, path));
      if (!file.startsWith(base)) {
        res.writeHead(403).end('forbidden');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      let info = await stat(file).catch(() => null);
      if (info?.isDirectory()) {
        file = join(file, 'index.html');
        info = await stat(file).catch(() => null);
      }
      if (!info) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      const encoding = compressed ? await precompressed(file, req.headers['accept-encoding'], typeof compressed === 'string' ? compressed : null) : null;
      const body = await readFile(encoding ? `${file}.${encoding.ext}` : file);
      const hashed = /-[0-9a-f]{8,16}(_bg)?\.(js|wasm|css)$/.test(file);
      res.writeHead(200, {
        'Content-Type': types[extname(file)] ?? TYPES[extname(file)] ?? 'application/octet-stream',
        'Content-Length': body.length,
        ...(encoding ? { 'Content-Encoding': encoding.name } : {}),
        // Caches keep one copy per encoding the browser accepts.
        ...(compressed && COMPRESSIBLE.test(file) ? { Vary: 'Accept-Encoding' } : {}),
        'Cache-Control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
        'X-Content-Type-Options': 'nosniff',
        // No other site may frame the app or its sandbox page.
        ...(frameAncestors && extname(file) === '.html' ? { 'Content-Security-Policy': "frame-ancestors 'self'" } : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      if (req.method === 'GET') onSent?.({ path, bytes: body.length, encoding: encoding?.name ?? null });
    } catch (e) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(e));
    }
  };
  const server = tls ? createTlsServer(tls, handler) : createServer(handler);
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok({ server, url: `${tls ? 'https' : 'http'}://${host}:${server.address().port}${prefix}` }));
  });
}

/**
 * The in-browser provider's models, beside the app (`models`: `{ dir,
 * cutOnceAt }`): `/models/index.json` lists the GGUF files of `dir` (name,
 * size, sha256), and each file is served with byte ranges (a download
 * resumes). `cutOnceAt`: the first response to pass that many bytes of a
 * file is cut there (a lost network, for tests).
 */
const digests = new Map();
async function serveModel(models, name, req, res) {
  const files = (await readdir(models.dir).catch(() => [])).filter((f) => f.endsWith('.gguf')).sort();
  if (name === 'index.json') {
    const list = [];
    for (const f of files) {
      const file = join(models.dir, f);
      const { size } = await stat(file);
      const key = `${file}:${size}`;
      if (!digests.has(key)) {
        const hash = createHash('sha256');
        for await (const chunk of createReadStream(file)) hash.update(chunk);
        digests.set(key, hash.digest('hex'));
      }
      list.push({ name: f, title: f.replace(/\.gguf$/, ''), url: f, size, sha256: digests.get(key), licence: /smollm2/i.test(f) ? 'Apache-2.0' : '', tools: false, languages: /smollm2/i.test(f) ? 'English' : '' });
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' }).end(JSON.stringify({ models: list }));
    return;
  }
  if (!files.includes(name)) {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    return;
  }
  const file = join(models.dir, name);
  const { size } = await stat(file);
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  const start = range ? Number(range[1]) : 0;
  if (start >= size && size > 0) {
    res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
    return;
  }
  res.writeHead(range ? 206 : 200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': size - start,
    'Accept-Ranges': 'bytes',
    ...(range ? { 'Content-Range': `bytes ${start}-${size - 1}/${size}` } : {}),
    'Cache-Control': 'no-cache',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const cut = models.cutOnceAt;
  if (cut && start < cut && cut < size) {
    models.cutOnceAt = null;
    const stream = createReadStream(file, { start, end: cut - 1 });
    stream.on('end', () => setTimeout(() => res.destroy(), 50));
    stream.pipe(res, { end: false });
    return;
  }
  createReadStream(file, { start }).pipe(res);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [root = 'dist', port = '8080', modelsDir = ''] = process.argv.slice(2);
  const { url } = await startStaticServer(root, Number(port), { models: modelsDir ? { dir: modelsDir } : null });
  console.log(`Air Agent is being served at ${url}/`);
}

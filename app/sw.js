// The service worker: the app works offline and updates only when the user
// says so. app/split.sh fills in VERSION and the two file lists for each
// build (a new build is a new worker).
//
// - Installing precaches the files a first visit loads (CORE), in a cache
//   of this version's own. The parts fetched on first use (LAZY) are cached
//   as they are fetched, and all of them once the page asks (from the
//   second visit on; the in-browser model's engine and Python only once
//   used, Python with the packages a deployer placed beside it), so a
//   first visit downloads no more than it needs. Model files are never
//   cached here: the engine keeps them in the Origin Private File System.
// - Everything of this origin is answered from this version's cache first,
//   then the network; the page itself is this version's index.html, so
//   the files of two builds are never mixed.
// - A new version waits until the page asks it to take over (the user
//   chose to reload). The previous version's cache is kept while pages of
//   it may still run; older ones are deleted.
const VERSION = '__AIR_VERSION__';
const CORE = __AIR_CORE__;
const LAZY = __AIR_LAZY__;
const PREFIX = 'air-agent-';
const CACHE = PREFIX + VERSION;

const url = (path) => new URL(path, self.registration.scope).href;

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(CORE.map(url));
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    // Keep this version and the one before it (pages still running it
    // may fetch its lazy parts); drop the rest.
    const meta = await caches.open(PREFIX + 'meta');
    const stored = await meta.match('order');
    const order = stored ? await stored.json() : [];
    const kept = [...order.filter((v) => v !== VERSION), VERSION].slice(-2);
    await meta.put('order', new Response(JSON.stringify(kept)));
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== PREFIX + 'meta' && !kept.includes(name.slice(PREFIX.length))) {
        await caches.delete(name);
      }
    }
    await self.clients.claim();
  })());
});

self.addEventListener('message', (event) => {
  const type = event.data?.type;
  if (type === 'take-over') {
    self.skipWaiting();
  } else if (type === 'cache-all') {
    // Not the in-browser model's engine (10 MB) nor Python (14 MB): kept
    // once used.
    event.waitUntil(cacheAll(LAZY.filter((p) => !p.startsWith('engine/') && !p.startsWith('pyodide/'))));
  } else if (type === 'keep') {
    // The parts a page fetched before this worker controlled it.
    const scope = self.registration.scope;
    const paths = (event.data.urls ?? []).filter((u) => u.startsWith(scope)).map((u) => u.slice(scope.length));
    event.waitUntil(cacheAll(LAZY.filter((p) => paths.includes(p))));
  } else if (type === 'version') {
    event.source?.postMessage({ type: 'version', version: VERSION });
  }
});

async function cacheAll(paths) {
  const cache = await caches.open(CACHE);
  for (const path of paths) {
    if (!(await cache.match(url(path)))) {
      try {
        await cache.add(url(path));
      } catch {
        // Offline or gone: fetched on use instead.
      }
    }
  }
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const target = new URL(request.url);
  if (target.origin !== self.location.origin) return;
  const scope = new URL(self.registration.scope);
  if (!target.pathname.startsWith(scope.pathname)) return;
  event.respondWith(answer(request, target, scope));
});

async function answer(request, target, scope) {
  const cache = await caches.open(CACHE);
  // The page: this version's own index.html.
  if (request.mode === 'navigate' && (target.pathname === scope.pathname || target.pathname === scope.pathname + 'index.html')) {
    const page = await cache.match(url('index.html'));
    if (page) return page;
  }
  const hit = await cache.match(request, { ignoreSearch: request.mode === 'navigate' });
  if (hit) return hit;
  // A part of the previous version, for a page still running it.
  for (const name of await caches.keys()) {
    if (name.startsWith(PREFIX) && name !== CACHE) {
      const old = await (await caches.open(name)).match(request);
      if (old) return old;
    }
  }
  const response = await fetch(request);
  // A lazy part of this version, or a Python package placed beside the
  // site: kept for next time (and offline).
  const path = target.pathname.slice(scope.pathname.length);
  if (response.ok && (LAZY.includes(path) || path.startsWith('pyodide/'))) {
    // Best effort: a full quota must not fail the page's request.
    cache.put(request, response.clone()).catch(() => {});
  }
  return response;
}

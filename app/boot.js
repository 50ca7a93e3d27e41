// Loads the wasm bundle, then registers the service worker. Kept out of
// index.html so the page needs no inline script (see the
// Content-Security-Policy there).
performance.setResourceTimingBufferSize?.(2000);
// Fetches a module on use (the in-browser model's engine): the wasm calls
// this, as it cannot write `import()` itself.
globalThis.__airImport = (url) => import(url);
const tag = document.querySelector('script[data-air-js]');
const showError = (msg) => {
  const p = document.createElement('p');
  p.className = 'boot-error';
  p.textContent = msg;
  document.body.append(p);
};
// A store that had conversations at the last start opens the newest at
// once: the module of its view (a lazily loaded part, named here by
// app/split.sh) is fetched and compiled now, alongside the main module,
// and the split loader takes it from `__airEarly` when the view is
// needed. The key is the app's (state.rs, HAS_SESSIONS_KEY).
const EARLY = [];
try {
  if (localStorage.getItem('air-agent.has-sessions') && WebAssembly.compileStreaming) {
    globalThis.__airEarly = new Map(EARLY.map((name) => {
      const compiled = WebAssembly.compileStreaming(fetch(name));
      // A failure is the loader's to report: it fetches again.
      compiled.catch(() => {});
      return [name, compiled];
    }));
  }
} catch {
  // No localStorage: the view is fetched when it is needed.
}
try {
  const { default: init } = await import(tag.dataset.airJs);
  await init({ module_or_path: tag.dataset.airWasm });
} catch (e) {
  showError('Air Agent could not start: ' + e);
}

// The service worker (app/sw.js): offline use, and updates the user
// chooses to take. The app hears `air-update-ready` (a new version is
// waiting, or another tab took it) and sends `air-update-apply` when the
// user chose to reload (never while an answer is streaming).
const sw = navigator.serviceWorker;
if (sw && window.isSecureContext) {
  let applying = false;
  const ready = () => window.dispatchEvent(new Event('air-update-ready'));
  sw.register('sw.js').then((reg) => {
    const announce = () => { if (reg.waiting && sw.controller) ready(); };
    announce();
    reg.addEventListener('updatefound', () => {
      const worker = reg.installing;
      worker?.addEventListener('statechange', () => { if (worker.state === 'installed') announce(); });
    });
    // Look for a new version when the tab comes back, and hourly.
    const check = () => reg.update().catch(() => {});
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') check(); });
    setInterval(check, 60 * 60 * 1000);
    window.addEventListener('air-update-apply', () => {
      applying = true;
      if (reg.waiting) reg.waiting.postMessage({ type: 'take-over' });
      else location.reload();
    });
    // From the second visit on, every part is cached for offline use (a
    // first visit loads only what it shows).
    const visited = 'air-agent-visited';
    if (localStorage.getItem(visited)) {
      sw.ready.then((r) => r.active?.postMessage({ type: 'cache-all' }));
    }
    localStorage.setItem(visited, '1');
  }).catch(() => {});
  let controlled = Boolean(sw.controller);
  sw.addEventListener('controllerchange', () => {
    if (applying) location.reload();
    // Another tab took the new version: this one runs the old until reloaded.
    else if (controlled) ready();
    else {
      // The first visit's worker took over: it keeps the parts this page
      // fetched before (offline, the next visit finds them).
      const urls = performance.getEntriesByType('resource').map((e) => e.name);
      sw.controller?.postMessage({ type: 'keep', urls });
    }
    controlled = true;
  });
}

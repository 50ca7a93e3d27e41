// A page's wasm memory, for the benchmarks: read from the memories the
// page instantiated. (Runtime.queryObjects would close the page: Chromium
// 156 crashes walking a heap that holds a funcref WebAssembly.Table, as
// code-split wasm does.)

/** An init script that keeps each instantiated module's memory. */
export const MEMORY_HOOK = `(() => {
  const keep = (r) => { const i = r && (r.instance || r); const m = i && i.exports && i.exports.memory;
    if (m instanceof WebAssembly.Memory) (globalThis.__benchMemories ||= new Set()).add(m); return r; };
  for (const k of ['instantiate', 'instantiateStreaming']) { const f = WebAssembly[k]; WebAssembly[k] = function (...a) { return f.apply(this, a).then(keep); }; }
})();`;

/** An expression for the page: the bytes of those memories. */
export const MEMORY_READ = '[...(globalThis.__benchMemories || [])].reduce((n, m) => n + m.buffer.byteLength, 0)';

// The main thread's long tasks (over 50 ms) in a page, for the benchmarks:
// `watchLongTasks` starts collecting them (run in the page, or given to
// `addInitScript` to watch every load), `longTasks(page)` takes their
// durations so far (ms) and starts again.
export function watchLongTasks() {
  window.__long = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask', buffered: false });
}

export const longTasks = (page) => page.evaluate(() => { const l = window.__long ?? []; window.__long = []; return l; });

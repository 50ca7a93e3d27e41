// Loads the wasm bundle. Kept out of index.html so the page needs no inline
// script (see the Content-Security-Policy there).
const tag = document.querySelector('script[data-air-js]');
const showError = (msg) => {
  const p = document.createElement('p');
  p.className = 'boot-error';
  p.textContent = msg;
  document.body.append(p);
};
try {
  const { default: init } = await import(tag.dataset.airJs);
  await init({ module_or_path: tag.dataset.airWasm });
} catch (e) {
  showError('Air Agent could not start: ' + e);
}

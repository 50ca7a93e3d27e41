// MCP dynamic loading (experimental): with the switch on, the model gets
// the built-ins, the two loaders and a one-line catalog per server instead
// of every tool; it loads what it needs, which is offered from the next
// request, kept with the conversation across a reload, and shown above the
// composer. Against the MCP reference server and a scripted model.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addMcpServer, configure, launchBrowser, openApp, scriptedHarness, send, serveApp, startEverything, startModel } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

describe('MCP dynamic loading (reference server, scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  let server;
  before(async () => { server = await startEverything(); });
  after(async () => { await server?.stop(); });

  const names = (request) => (request.body.tools ?? []).map((t) => t.function.name);

  test('the model loads a tool, calls it, and the conversation keeps it', async () => {
    const { context, page, errors } = await h.freshPage();
    await addMcpServer(page, 'everything', server.url);
    // Off by default; its options show once it is on.
    const toggle = page.getByTestId('settings-dynamic-mcp');
    assert.equal(await toggle.isChecked(), false);
    assert.equal(await page.getByTestId('settings-auto-load').count(), 0);
    assert.equal(await page.getByTestId('settings-summarizer').count(), 0, 'no summarizer while dynamic loading is off');
    // Experimental: named, explained, and its risk said.
    const experimental = page.getByTestId('settings-experimental');
    assert.match(await experimental.textContent(), /MCP dynamic loading.*one line per server.*Risk: small models may not load tools before calling them/s);
    await toggle.check();
    await page.getByTestId('settings-auto-load').waitFor();
    // A summarizer model writes the catalog's summaries in the background:
    // none at first, then a model of the provider, as it listed them.
    h.model.enqueueCompletion('```json\n{"server": "The MCP reference server: echo, sums, images and more", "tools": {"echo": "Repeats a message back", "get-sum": "Adds two numbers"}}\n```');
    const summarizer = page.getByTestId('settings-summarizer');
    assert.equal(await summarizer.inputValue(), '', 'none: the servers\' descriptions');
    await summarizer.selectOption({ label: 'scripted-large' });
    await page.getByTestId('settings-save').click();
    for (let i = 0; i < 100 && h.model.completions.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(h.model.completions.length, 1, 'the summarizer was asked once');
    const asked = h.model.completions[0].body;
    assert.equal(asked.model, 'scripted-large');
    assert.match(asked.messages[0].content, /JSON only/);
    assert.match(asked.messages[1].content, /^Server: everything\nTools:\n- echo: Echoes back the input string/);
    await new Promise((r) => setTimeout(r, 300));
    // The chat shows what it loaded instead of the server switches.
    await page.getByTestId('loaded-tools').filter({ hasText: 'none yet' }).waitFor({ timeout: 10_000 });
    assert.equal(await page.getByTestId('mcp-chip').count(), 0);

    h.model.enqueue(
      reply.calls([{ id: 'l1', name: 'load_mcp_tool', arguments: '{"names": ["echo"]}' }]),
      reply.calls([{ id: 'e1', name: 'mcp_everything_echo', arguments: '{"message": "loaded and called"}' }]),
      reply.text('Echoed after loading.'),
    );
    const first = h.model.requests.length;
    await send(page, 'Echo through a tool you load');
    await page.getByText('Echoed after loading.').waitFor({ timeout: 20_000 });
    const [r1, r2, r3] = h.model.requests.slice(first);
    // First: built-ins and loaders only, and the catalog in the system prompt.
    assert.deepEqual(names(r1), ['calculator', 'get_current_time', 'load_mcp_server', 'load_mcp_tool', 'run_javascript', 'run_python']);
    const system = r1.body.messages[0].content;
    assert.match(system, /call `load_mcp_server` to see what a server offers/);
    assert.match(system, /Servers:\n- everything: The MCP reference server: echo, sums, images and more$/);
    // The loader's answer carries the name to call and the full schema.
    const loaded = JSON.parse(r2.body.messages.at(-1).content);
    assert.equal(loaded.loaded[0].name, 'mcp_everything_echo');
    assert.deepEqual(loaded.loaded[0].parameters.required, ['message']);
    // Then the loaded tool is offered, and its call runs on the server.
    assert.deepEqual(names(r2), ['calculator', 'get_current_time', 'load_mcp_server', 'load_mcp_tool', 'mcp_everything_echo', 'run_javascript', 'run_python']);
    assert.deepEqual(r3.body.messages.at(-1), { role: 'tool', content: 'Echo: loaded and called', tool_call_id: 'e1' });
    const chip = page.getByTestId('loaded-tool');
    assert.equal((await chip.textContent()).trim(), 'echo');
    assert.equal(await chip.getAttribute('data-status'), 'valid');
    // Metrics (estimated tokens): this conversation, and over all of them.
    // The provider's count comes with the stream's last chunk, after the text.
    const metrics = /^3 requests in 1 turn\(s\) · load hit rate 100 % · 0 invalidations \(0\.00 per turn\) · 1 extra rounds to load · tool context ≈\d+ tokens instead of ≈\d+ \(\d+ % less; estimated\) · prompt tokens as the provider counted them \(1 requests\): \d+ instead of ≈\d+$/;
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('[data-testid=loaded-tools]')?.getAttribute('title') ?? ''), metrics.source, { timeout: 10_000 }).catch(() => {});
    assert.match(await page.getByTestId('loaded-tools').getAttribute('title'), metrics);
    await page.getByTestId('open-settings').click();
    await page.getByTestId('dynamic-metrics').filter({ hasText: /^Overall: 3 requests in \d+ turn\(s\) · load hit rate 100 %/ }).waitFor({ timeout: 10_000 });
    await page.getByTestId('settings-save').click();

    // Kept with the conversation: after a reload, still loaded and offered.
    await page.reload();
    await page.getByTestId('composer-input').waitFor({ timeout: 30_000 });
    await page.getByTestId('loaded-tool').filter({ hasText: 'echo' }).waitFor({ timeout: 10_000 });
    h.model.enqueue(reply.text('Still here.'));
    await send(page, 'Anything else?');
    await page.getByText('Still here.').waitFor({ timeout: 20_000 });
    assert.ok(names(h.model.requests.at(-1)).includes('mcp_everything_echo'));

    // The server's tools change under it: echo's parameters are no longer
    // what was loaded (as a re-sync would find), and the panel says why.
    await page.evaluate(() => {
      const list = JSON.parse(localStorage.getItem('air-agent-mcp-servers'));
      list[0].tools.find((t) => t.name === 'echo').inputSchema.properties.message.description = 'changed';
      localStorage.setItem('air-agent-mcp-servers', JSON.stringify(list));
    });
    await page.reload();
    const changed = page.locator('[data-testid=loaded-tool][data-status=invalid_changed]');
    await changed.waitFor({ timeout: 10_000 });
    // The reason is shown, not only on hover.
    assert.equal((await changed.textContent()).trim(), '⚠ echo: its parameters changed: to be loaded again');
    assert.equal(await changed.getAttribute('title'), 'its parameters changed: to be loaded again');
    h.model.enqueue(reply.text('Not offered.'));
    await send(page, 'Is echo there?');
    await page.getByText('Not offered.').waitFor({ timeout: 20_000 });
    assert.ok(!names(h.model.requests.at(-1)).includes('mcp_everything_echo'), 'an invalid tool is dropped from the request');
    // Re-sync brings the server's real definition back: valid again.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-server-resync').click();
    await page.getByTestId('mcp-sync-result').filter({ hasText: /updated/ }).waitFor({ timeout: 20_000 });
    // The server's words differ from those accepted: until the user accepts
    // them, the model is told the accepted ones, so what was loaded is not
    // what it would be told; once accepted, valid again.
    assert.equal(await page.locator('[data-testid=loaded-tool][data-status=valid]').count(), 0);
    await page.getByTestId('mcp-accept-echo').click();
    await page.locator('[data-testid=loaded-tool][data-status=valid]').waitFor({ timeout: 10_000 });
    // Switched off: the panel says the server is off.
    await page.getByTestId('mcp-server-enabled').uncheck();
    const off = page.locator('[data-testid=loaded-tool][data-status=invalid_server_disabled]');
    await off.waitFor({ timeout: 10_000 });
    assert.equal(await off.getAttribute('title'), 'the server everything is switched off');
    await page.getByTestId('mcp-server-enabled').check();
    await page.locator('[data-testid=loaded-tool][data-status=valid]').waitFor({ timeout: 10_000 });
    // One tool switched off (its server stays on): never offered, and the
    // panel says so, in the UI language.
    await page.getByTestId('mcp-tool-switches').locator('summary').click();
    await page.getByTestId('mcp-tool-on-echo').uncheck();
    const disabled = page.locator('[data-testid=loaded-tool][data-status=invalid_disabled]');
    await disabled.waitFor({ timeout: 10_000 });
    assert.equal(await disabled.getByTestId('loaded-reason').textContent(), ': switched off in Settings');
    await page.getByTestId('mcp-server-tools').filter({ hasText: '(1 switched off)' }).waitFor();
    await page.getByTestId('settings-language').selectOption('zh');
    await page.getByTestId('settings-save').click();
    await disabled.getByTestId('loaded-reason').filter({ hasText: '已在设置中停用' }).waitFor({ timeout: 10_000 });
    h.model.enqueue(reply.text('Echo is off.'));
    await send(page, 'Is echo on?');
    await page.getByText('Echo is off.').waitFor({ timeout: 20_000 });
    assert.ok(!names(h.model.requests.at(-1)).includes('mcp_everything_echo'), 'a switched-off tool is not offered');
    await page.getByTestId('open-settings').click();
    await page.getByTestId('mcp-tool-switches').locator('summary').click();
    await page.getByTestId('mcp-tool-on-echo').check();
    await page.getByTestId('settings-language').selectOption('en');
    await page.getByTestId('settings-save').click();
    await page.locator('[data-testid=loaded-tool][data-status=valid]').waitFor({ timeout: 10_000 });

    // A new chat starts with nothing loaded.
    await page.getByTestId('new-session').click();
    await page.getByTestId('loaded-tools').filter({ hasText: 'none yet' }).waitFor({ timeout: 10_000 });

    // Switched off: every tool again, and no loaders.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('settings-dynamic-mcp').uncheck();
    await page.getByTestId('settings-save').click();
    h.model.enqueue(reply.text('All tools.'));
    await send(page, 'And now?');
    await page.getByText('All tools.').waitFor({ timeout: 20_000 });
    const offered = names(h.model.requests.at(-1));
    assert.ok(offered.includes('mcp_everything_echo') && offered.includes('mcp_everything_get-sum'));
    assert.ok(!offered.includes('load_mcp_tool'));
    assert.doesNotMatch(h.model.requests.at(-1).body.messages[0]?.content ?? '', /load_mcp_server/);
    assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
    await context.close();
  });

  test('with auto-load on, a call of a tool not loaded yet loads it and runs', async () => {
    const { page, errors } = await h.freshPage();
    await addMcpServer(page, 'everything', server.url);
    await page.getByTestId('settings-dynamic-mcp').check();
    await page.getByTestId('settings-auto-load').check();
    await page.getByTestId('settings-save').click();
    await page.getByTestId('loaded-tools').filter({ hasText: 'none yet' }).waitFor({ timeout: 10_000 });
    h.model.enqueue(
      reply.calls([{ id: 'a1', name: 'mcp_everything_echo', arguments: '{"message": "straight away"}' }]),
      reply.text('Called without loading.'),
    );
    const first = h.model.requests.length;
    await send(page, 'Echo without loading first');
    await page.getByText('Called without loading.').waitFor({ timeout: 20_000 });
    const [r1, r2] = h.model.requests.slice(first);
    assert.ok(!names(r1).includes('mcp_everything_echo'), 'not offered before');
    // It ran on the server, and is offered from then on, loaded "auto".
    assert.deepEqual(r2.body.messages.at(-1), { role: 'tool', content: 'Echo: straight away', tool_call_id: 'a1' });
    assert.ok(names(r2).includes('mcp_everything_echo'));
    const chip = page.locator('[data-testid=loaded-tool][data-status=valid]');
    await chip.waitFor({ timeout: 10_000 });
    assert.equal((await chip.textContent()).trim(), 'echo');
    assert.equal(await chip.getAttribute('title'), 'everything · loaded when the model called it');
    assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
  });

  test('a summary that could not be written is shown on its server, with why, and Retry asks again', async () => {
    const { context, page, errors } = await h.freshPage();
    await addMcpServer(page, 'everything', server.url);
    await page.getByTestId('settings-dynamic-mcp').check();
    const before = h.model.completions.length;
    h.model.enqueueCompletion(reply.error(503, { error: { message: 'overloaded' } }));
    await page.getByTestId('settings-summarizer').selectOption({ label: 'scripted-model' });
    await page.getByTestId('settings-save').click();
    await page.getByTestId('open-settings').click();
    const failed = page.getByTestId('mcp-server').filter({ hasText: 'everything' }).getByTestId('mcp-summary-error');
    await failed.waitFor({ timeout: 10_000 });
    assert.equal(await failed.textContent(), "Summary not written: the summarizer's provider answered HTTP 503");
    assert.equal(h.model.completions.length, before + 1);
    let catalog = await storedCatalog(page);
    assert.equal(catalog.servers[0].summarized, false, 'the descriptions stay');
    // The choice is kept, shown as saved.
    assert.equal(await page.getByTestId('settings-summarizer').locator('option:checked').textContent(), 'scripted-model');

    h.model.enqueueCompletion('{"server": "The reference server", "tools": {"echo": "Repeats a message"}}');
    await page.getByTestId('mcp-summary-retry').click();
    await failed.waitFor({ state: 'detached', timeout: 10_000 });
    for (let i = 0; i < 100 && h.model.completions.length < before + 2; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(h.model.completions[before + 1].body.model, 'scripted-model');
    // Written into the catalog in the background.
    for (let i = 0; i < 100 && !(catalog = await storedCatalog(page)).servers[0].summarized; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(catalog.servers[0].summary, 'The reference server');
    assert.ok(catalog.servers[0].summaryGeneratedAt > 0, 'dated');
    assert.equal(catalog.tools.find((t) => t.name === 'echo').summary, 'Repeats a message');
    assert.deepEqual(errors.filter((e) => !/status of (400|503)/.test(e)), []);
    await context.close();
  });
});

/** The MCP catalog as stored in IndexedDB. */
function storedCatalog(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('air-agent-db');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const get = open.result.transaction('meta').objectStore('meta').get('doc:mcp-catalog');
      get.onsuccess = () => resolve(JSON.parse(get.result));
      get.onerror = () => reject(get.error);
    };
  }));
}

describe('MCP summarizer with the real local model', () => {
  let browser, app, model, server;
  before(async () => {
    app = await serveApp();
    model = await startModel({ nPredict: 200 });
    server = await startEverything();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await model?.stop();
    app?.server.close();
  });

  test('SmolLM2 is asked for the catalog, and whatever it writes, the catalog holds', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = await openApp(page, app.url);
    await configure(page, { baseUrl: model.baseUrl });
    const asked = [];
    page.on('requestfinished', async (r) => {
      const body = r.postData();
      const json = body ? JSON.parse(body) : null;
      // (Not auto mode's one-off probe, which offers a tool.)
      if (r.url().endsWith('/chat/completions') && json?.stream === false && !json.tools) asked.push(await r.response().then((x) => x?.status()));
    });
    await addMcpServer(page, 'everything', server.url);
    await page.getByTestId('settings-dynamic-mcp').check();
    await page.getByTestId('settings-summarizer').selectOption({ label: 'SmolLM2-135M-Instruct' });
    await page.getByTestId('settings-save').click();
    // (The local model may be slow on a busy machine: up to three minutes.)
    for (let i = 0; i < 1800 && asked.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(asked.slice(0, 1), [200], 'the local model answered the summarizer');
    await new Promise((r) => setTimeout(r, 500));
    // The stored catalog: the model's summary if it wrote usable JSON, the
    // descriptions' otherwise; never empty.
    const catalog = await storedCatalog(page);
    const entry = catalog.servers.find((s) => s.name === 'everything');
    assert.ok(entry.summary.trim().length > 0);
    if (!entry.summarized) assert.match(entry.summary, /^\d+ tools: echo/);
    assert.equal(catalog.tools.filter((t) => t.server === 'everything').length, 14);
    assert.ok(catalog.tools.every((t) => t.summary.trim().length > 0));
    // And the chat goes on with the catalog in its prompt.
    await send(page, 'Hello');
    await page.getByTestId('message-assistant').last().waitFor({ timeout: 60_000 });
    await page.getByTestId('send').waitFor({ timeout: 90_000 });
    assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
    await context.close();
  });
});

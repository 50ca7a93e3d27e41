// HTTP tools end to end: an OpenAPI document served on 127.0.0.1 is
// imported in Settings, two of its operations picked, then a scripted
// model calls them: the GET runs at once, the POST asks first, and each
// result reaches the next request.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { scriptedHarness, send } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

/** The document: a JSON GET, a JSON POST, and a form upload that cannot be a tool. */
const DOC = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  servers: [{ url: '/api' }],
  paths: {
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        summary: 'A pet by its id.',
        parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
      },
    },
    '/pets': {
      post: {
        operationId: 'addPet',
        summary: 'Adds a pet.',
        requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } } },
      },
    },
    '/pets/{petId}/photo': {
      post: {
        operationId: 'uploadPhoto',
        parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
        requestBody: { content: { 'multipart/form-data': { schema: { type: 'object' } } } },
      },
    },
  },
};

/** A small API on 127.0.0.1 that lets the app's page call it (CORS), and what it was asked. */
async function startApi() {
  const seen = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const cors = {
        'Access-Control-Allow-Origin': req.headers.origin || '*',
        'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
        'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] || 'content-type',
      };
      if (req.method === 'OPTIONS') {
        res.writeHead(204, cors);
        res.end();
        return;
      }
      seen.push({ method: req.method, url: req.url, body });
      const json = (status, value) => {
        res.writeHead(status, { ...cors, 'Content-Type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.method === 'GET' && req.url === '/openapi.json') return json(200, DOC);
      const pet = req.url.match(/^\/api\/pets\/(\d+)$/);
      if (req.method === 'GET' && pet) return json(200, { id: Number(pet[1]), name: 'Rex' });
      if (req.method === 'POST' && req.url === '/api/pets') return json(201, { id: 8, ...JSON.parse(body || '{}'), created: true });
      return json(404, { error: 'no such thing' });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, seen, stop: () => new Promise((resolve) => server.close(resolve)) };
}

describe('HTTP tools (scripted model, local API)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);
  let api;
  before(async () => { api = await startApi(); });
  after(async () => { await api?.stop(); });

  /** The messages of the last request the model got. */
  const sent = () => h.model.requests.at(-1).body.messages;

  test('an OpenAPI import gives tools that ask until allowed; a GET allowed always runs, a POST asks, results reach the model', async () => {
    const { context, page, errors } = await h.freshPage();

    // Settings → HTTP tools → Import OpenAPI, by URL.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('http-import').locator('summary').click();
    await page.getByTestId('http-import-url').fill(`${api.url}/openapi.json`);
    await page.getByTestId('http-import-read').click();
    await page.getByTestId('http-candidates').waitFor({ timeout: 20_000 });
    assert.ok(api.seen.some((r) => r.url === '/openapi.json'), 'the document was fetched');
    const skipped = await page.getByTestId('http-skipped').allTextContents();
    assert.equal(skipped.length, 1);
    assert.match(skipped[0], /multipart\/form-data/);
    await page.getByTestId('http-candidate-getPet').check();
    await page.getByTestId('http-candidate-addPet').check();
    await page.getByTestId('http-import-save').click();
    await page.getByTestId('http-tool-on-getPet').waitFor({ timeout: 10_000 });
    assert.equal(await page.getByTestId('http-tool-on-addPet').isChecked(), true);
    await page.waitForFunction(() => (localStorage.getItem('air-agent-http-tools') || '').includes('addPet'), null, { timeout: 10_000 });
    await page.getByTestId('settings-save').click();
    await page.getByTestId('settings').waitFor({ state: 'detached' });

    // An imported GET asks too (a document can word an operation so the
    // model calls it unasked); allowed always, it then runs without asking.
    h.model.enqueue(reply.calls([{ id: 'call_get0', name: 'getPet', arguments: '{"petId": 3}' }]), reply.text('Pet 3 is Tim.'));
    await send(page, 'Who is pet 3?');
    await page.getByTestId('tool-approval').waitFor({ timeout: 20_000 });
    assert.ok(!api.seen.some((r) => r.url === '/api/pets/3'), 'not sent before it was allowed');
    await page.getByTestId('approve-always').click();
    await page.getByText('Pet 3 is Tim.').waitFor({ timeout: 20_000 });
    await page.getByTestId('send').waitFor({ timeout: 20_000 });
    await page.getByTestId('new-session').click();
    h.model.enqueue(reply.calls([{ id: 'call_get', name: 'getPet', arguments: '{"petId": 7}' }]), reply.text('Pet 7 is Rex.'));
    const before = h.model.requests.length;
    await send(page, 'Who is pet 7?');
    await page.getByText('Pet 7 is Rex.').waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('tool-approval').count(), 0, 'allowed always: not asked again');
    const offered = h.model.requests[before].body.tools.map((t) => t.function.name).sort();
    assert.deepEqual(offered, ['addPet', 'calculator', 'getPet', 'get_current_time', 'run_javascript', 'run_python']);
    assert.ok(api.seen.some((r) => r.method === 'GET' && r.url === '/api/pets/7'), JSON.stringify(api.seen));
    const result = sent().find((m) => m.role === 'tool' && m.tool_call_id === 'call_get');
    assert.match(result.content, /"name": "Rex"/);
    const card = page.getByTestId('tool-card');
    assert.equal(await card.getAttribute('data-status'), 'done');
    assert.equal(await card.getByTestId('tool-name').textContent(), 'getPet');
    assert.equal(await card.getByTestId('tool-source').textContent(), 'HTTP tool');

    // The POST asks first; nothing is sent before the yes.
    h.model.enqueue(reply.calls([{ id: 'call_post', name: 'addPet', arguments: '{"name": "Tom"}' }]), reply.text('Tom was added.'));
    await send(page, 'Add Tom');
    await page.getByTestId('tool-approval').waitFor({ timeout: 20_000 });
    assert.ok(!api.seen.some((r) => r.method === 'POST'), 'not sent before it was allowed');
    await page.getByTestId('approve-once').click();
    await page.getByText('Tom was added.').waitFor({ timeout: 20_000 });
    const post = api.seen.find((r) => r.method === 'POST');
    assert.equal(post.url, '/api/pets');
    assert.deepEqual(JSON.parse(post.body), { name: 'Tom' });
    const created = sent().find((m) => m.role === 'tool' && m.tool_call_id === 'call_post');
    assert.match(created.content, /"created": true/);
    assert.deepEqual(errors, []);
    await context.close();
  });
});

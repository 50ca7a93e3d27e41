// A scripted OpenAI-compatible server for what a tiny real model cannot be
// made to do on cue: exact texts (Markdown, XSS payloads), slow streams,
// HTTP errors, Retry-After. Runs in the test's own process on 127.0.0.1.
//
//   const model = await startScriptedModel();
//   model.enqueue(reply.text('Hello **world**'));
//   ... model.requests  // every request body received, with its time
//   ... model.listed    // every GET /models, with its time and headers
//
// `startScriptedModel({ models: ['a', 'b'] })` lists other models (by
// default `scripted-model` and `scripted-large`).
import { createServer } from 'node:http';

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Expose-Headers': 'Retry-After',
};

const chunk = (delta, extra = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'scripted-model', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;

/** Builders for scripted replies. */
export const reply = {
  /** `text` streamed in `pieces` chunks, `delayMs` apart, then finish + usage + [DONE]. */
  text(text, { pieces = 8, delayMs = 0 } = {}) {
    const size = Math.max(1, Math.ceil(text.length / pieces));
    const parts = [];
    for (let i = 0; i < text.length; i += size) parts.push(chunk({ content: text.slice(i, i + size) }));
    return {
      status: 200,
      delayMs,
      events: [
        chunk({ role: 'assistant', content: '' }),
        ...parts,
        `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'scripted-model', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
        `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'scripted-model', choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } })}\n\n`,
        'data: [DONE]\n\n',
      ],
    };
  },
  /** A stream that sends `text` slowly and then never ends (until the client goes). */
  hanging(text, { pieces = 10, delayMs = 100 } = {}) {
    const r = reply.text(text, { pieces, delayMs });
    return { ...r, events: r.events.slice(0, -3), hang: true };
  },
  /** Reasoning (DeepSeek's `reasoning_content`) first, then the answer. */
  reasoning(thinking, text) {
    const r = reply.text(text);
    const think = thinking.match(/.{1,12}/gs).map((piece) => chunk({ reasoning_content: piece }));
    return { ...r, events: [r.events[0], ...think, ...r.events.slice(1)] };
  },
  /** Text, then the connection closes with no finish reason and no [DONE]. */
  dropped(text) {
    const r = reply.text(text);
    return { ...r, events: r.events.slice(0, -3) };
  },
  /**
   * Tool calls, OpenAI-style: the first delta of each call has its id and
   * name, the arguments follow in two fragments; then `tool_calls`.
   * `calls`: [{ id, name, arguments }] (arguments as JSON text).
   */
  calls(calls, { delayMs = 0 } = {}) {
    const events = [chunk({ role: 'assistant', content: null })];
    calls.forEach((c, index) => {
      const mid = Math.floor(c.arguments.length / 2);
      events.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments.slice(0, mid) } }] }));
      events.push(chunk({ tool_calls: [{ index, function: { arguments: c.arguments.slice(mid) } }] }));
    });
    events.push(`data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'scripted-model', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\n`);
    events.push('data: [DONE]\n\n');
    return { status: 200, delayMs, events };
  },
  /** A plain HTTP error. */
  error(status, body, headers = {}) {
    return { status, body: typeof body === 'string' ? body : JSON.stringify(body), headers };
  },
};

export async function startScriptedModel({ models = ['scripted-model', 'scripted-large'] } = {}) {
  const listed = [];
  const queue = [];
  const requests = [];
  const completions = [];
  const completionQueue = [];
  const probes = [];
  const sockets = new Set();
  const server = createServer(async (req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS).end();
      return;
    }
    if (req.method === 'GET' && req.url.endsWith('/models')) listed.push({ at: Date.now(), headers: req.headers });
    if (req.method === 'GET' && req.url.endsWith('/models') && req.headers.authorization === 'Bearer bad-key') {
      res.writeHead(401, { ...CORS, 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } }));
      return;
    }
    if (req.method === 'GET' && req.url.endsWith('/models')) {
      res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model' })) }));
      return;
    }
    let raw = '';
    for await (const piece of req) raw += piece;
    let body = null;
    try { body = JSON.parse(raw); } catch {}
    // The app's one-off question "do you call tools natively?": this
    // scripted model does. Kept apart from the chat requests.
    if (body?.stream === false && body?.tools?.[0]?.function?.name === 'probe') {
      probes.push({ at: Date.now(), body });
      res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ id: 'chatcmpl-probe', object: 'chat.completion', model: 'scripted-model', choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_probe', type: 'function', function: { name: 'probe', arguments: '{}' } }] } }] }));
      return;
    }
    // Other non-streamed questions (the MCP summarizer): answered from
    // their own queue, as a chat completion (or a scripted error), and
    // kept apart.
    if (body?.stream === false) {
      completions.push({ at: Date.now(), body });
      const content = completionQueue.shift() ?? '(no scripted completion left)';
      if (typeof content === 'object') {
        res.writeHead(content.status, { ...CORS, 'Content-Type': 'application/json', ...content.headers });
        res.end(content.body);
        return;
      }
      res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ id: 'chatcmpl-c', object: 'chat.completion', model: body.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }] }));
      return;
    }
    requests.push({ at: Date.now(), url: req.url, headers: req.headers, body });
    const next = queue.shift() ?? reply.text('(no scripted reply left)');
    if (next.status !== 200) {
      res.writeHead(next.status, { ...CORS, 'Content-Type': 'application/json', ...next.headers });
      res.end(next.body);
      return;
    }
    res.writeHead(200, { ...CORS, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    let closed = false;
    res.on('close', () => { closed = true; });
    for (const event of next.events) {
      if (closed) return;
      res.write(event);
      if (next.delayMs) await new Promise((r) => setTimeout(r, next.delayMs));
    }
    if (!next.hang) res.end();
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    baseUrl: `${base}/v1`,
    requests,
    listed,
    probes,
    enqueue: (...replies) => queue.push(...replies),
    completions,
    /** Answers for non-streamed requests (the MCP summarizer), in order: texts, or `reply.error(…)`. */
    enqueueCompletion: (...texts) => completionQueue.push(...texts),
    pending: () => queue.length,
    stop: () => new Promise((ok) => { for (const s of sockets) s.destroy(); server.close(ok); }),
  };
}

// A fake OpenAI-compatible endpoint on loopback for the page tests: a test double of an external
// service (the model provider), never of our own parts. It speaks Chat Completions streaming
// as OpenAI documents it (server-sent events of `chat.completion.chunk` objects, tool-call
// arguments split across chunks, a usage chunk with empty `choices`, `data: [DONE]`), answers
// `GET /v1/models` (two models), and records every request. Replies are scripted, one per chat request, in
// order; a reply's `expect(body)` checks the request it answers: when it throws, the fake
// answers 400 (as OpenAI does to a bad request) and keeps the failure for the test to report.
import { createServer } from 'node:http';

const MODEL = 'fake-model';
/** A second model the endpoint lists (only there: not configured in the host). */
export const OTHER_MODEL = 'fake-model-mini';
/** Most bytes of a request body the fake reads (the host's requests are a few kB). */
const MAX_BODY = 4 * 1024 * 1024;

/** One `chat.completion.chunk` as an SSE event. */
export function chunk(delta, finishReason = null) {
  return sseData({
    id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model: MODEL,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
}

/** The last chunk before `[DONE]` when `stream_options.include_usage` is set. */
export function usageChunk(prompt = 40, completion = 9) {
  return sseData({
    id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model: MODEL,
    system_fingerprint: 'fp_fake', choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  });
}

const sseData = (value) => `data: ${JSON.stringify(value)}\n\n`;
const DONE = 'data: [DONE]\n\n';

/** A streamed text answer: `pieces` one content delta each. */
export function textReply(pieces, { reasoning } = {}) {
  return {
    parts: [
      chunk({ role: 'assistant', content: '', refusal: null }),
      ...(reasoning ? [chunk({ reasoning_content: reasoning })] : []),
      ...pieces.map((content) => chunk({ content })),
      chunk({}, 'stop'),
      usageChunk(),
      DONE,
    ],
  };
}

/** A streamed tool call: its arguments (JSON text) arrive in `argPieces`. */
export function toolCallReply(id, name, argPieces) {
  return {
    parts: [
      chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }], refusal: null }),
      ...argPieces.map((args) => chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] })),
      chunk({}, 'tool_calls'),
      usageChunk(),
      DONE,
    ],
  };
}

/**
 * Starts the fake on 127.0.0.1 (a free port). `replies`: the scripted answers to the chat
 * requests, `{ parts, delayMs?, expect? }`. Resolves with { baseUrl, requests, failures, close }:
 * `requests` are { method, path, headers, body (parsed JSON or null) }, `failures` the errors
 * of `expect`s and of unscripted requests.
 */
export async function startFakeOpenAI(replies) {
  const queue = [...replies];
  const requests = [];
  const failures = [];
  const server = createServer((req, res) => {
    let size = 0;
    const data = [];
    req.on('data', (d) => {
      size += d.length;
      if (size > MAX_BODY) req.destroy(new Error('request body too large'));
      else data.push(d);
    });
    req.on('end', () => {
      const text = Buffer.concat(data).toString('utf8');
      let body = null;
      try { body = text ? JSON.parse(text) : null; } catch (e) { failures.push(new Error(`a request body that is not JSON: ${e.message}`)); }
      const record = { method: req.method, path: req.url, headers: req.headers, body };
      requests.push(record);
      answer(record, res);
    });
  });

  function sendError(res, status, message, type) {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
  }

  function answer(record, res) {
    if (record.method === 'GET' && record.path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const data = [MODEL, OTHER_MODEL].map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' }));
      res.end(JSON.stringify({ object: 'list', data }));
      return;
    }
    if (record.method !== 'POST' || record.path !== '/v1/chat/completions') {
      sendError(res, 404, `Unknown request URL: ${record.method} ${record.path}.`, 'invalid_request_error');
      return;
    }
    const reply = queue.shift();
    if (!reply) {
      failures.push(new Error(`chat request ${requests.length} has no scripted reply`));
      sendError(res, 500, 'The fake has no reply scripted for this request.', 'server_error');
      return;
    }
    if (reply.expect) {
      try {
        reply.expect(record.body);
      } catch (e) {
        failures.push(e);
        sendError(res, 400, `The fake refused the request: ${e.message}`, 'invalid_request_error');
        return;
      }
    }
    stream(res, reply.parts, reply.delayMs ?? 40);
  }

  /** Writes `parts` one by one, `delayMs` apart, as one `text/event-stream` (chunked). */
  async function stream(res, parts, delayMs) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
    for (const part of parts) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (res.destroyed) return;
      res.write(part);
    }
    res.end();
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failures,
    /** The chat requests' bodies, in order. */
    chatRequests: () => requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

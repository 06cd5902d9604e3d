/*
 * The endpoints an agent depends on, as real HTTP servers on 127.0.0.1 for the agent-obs tests:
 * an OpenAI-compatible Chat Completions API (POST /v1/chat/completions), an Anthropic-style
 * Messages API (POST /v1/messages), a tool API (POST /tool) and a RAG search (POST /search). Both
 * chat APIs report token usage the way their originals do. Each path has a mode the test sets:
 * `ok`, `slow` (answers after `slow_ms`), `fail` (503), `malformed` (a body that is not JSON) or
 * `wrong` (well-formed but wrong: another tool result, other documents, no answer text).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Mode = 'ok' | 'slow' | 'fail' | 'malformed' | 'wrong';
export type EndpointPath = '/v1/chat/completions' | '/v1/messages' | '/tool' | '/search';

export interface Endpoints {
  origin: string;
  modes: Record<EndpointPath, Mode>;
  /** Requests seen per path: method, headers, parsed JSON body (null when not JSON). */
  seen: Record<string, Array<{ headers: http.IncomingHttpHeaders; body: any }>>;
  close(): Promise<void>;
}

function answer(path: EndpointPath, mode: Mode, body: any): { status: number; text: string } {
  if (mode === 'fail') return { status: 503, text: JSON.stringify({ error: { type: 'overloaded', message: 'try later' } }) };
  if (mode === 'malformed') return { status: 200, text: '<html>upstream proxy error</html>' };
  const wrong = mode === 'wrong';
  switch (path) {
    case '/v1/chat/completions':
      return { status: 200, text: JSON.stringify({
        id: 'chatcmpl-1', object: 'chat.completion', model: body?.model ?? 'unknown',
        choices: wrong ? [] : [{ index: 0, message: { role: 'assistant', content: 'pong' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
      }) };
    case '/v1/messages':
      return { status: 200, text: JSON.stringify({
        id: 'msg_1', type: 'message', role: 'assistant', model: body?.model ?? 'unknown', stop_reason: 'end_turn',
        content: wrong ? [] : [{ type: 'text', text: 'pong' }], usage: { input_tokens: 30, output_tokens: 10 },
      }) };
    case '/tool':
      return { status: 200, text: JSON.stringify({ ok: !wrong, temperature_c: wrong ? null : 4, city: body?.city ?? null }) };
    case '/search':
      return { status: 200, text: JSON.stringify({ query: body?.query ?? null, documents: wrong
        ? [{ id: 'doc-1', text: 'Shipping takes 5 days.' }]
        : [{ id: 'doc-7', text: 'Refunds are accepted within 30 days.' }, { id: 'doc-9', text: 'Contact support.' }] }) };
  }
}

export async function startEndpoints(opts: { slow_ms: number }): Promise<Endpoints> {
  const modes: Record<EndpointPath, Mode> = { '/v1/chat/completions': 'ok', '/v1/messages': 'ok', '/tool': 'ok', '/search': 'ok' };
  const seen: Endpoints['seen'] = {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname as EndpointPath;
      let body: any = null;
      try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { /* not JSON */ }
      (seen[path] ??= []).push({ headers: req.headers, body });
      const mode = modes[path];
      if (!mode) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      const reply = () => {
        const a = answer(path, mode, body);
        res.writeHead(a.status, { 'content-type': mode === 'malformed' ? 'text/html' : 'application/json' }).end(a.text);
      };
      if (mode === 'slow') setTimeout(reply, opts.slow_ms); else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`, modes, seen,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

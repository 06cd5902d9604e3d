/*
 * An OpenAI-shaped chat completions endpoint for tests: POST /v1/chat/completions answers
 * `{ id, model, choices: [{ message: { role, content } }], usage: { prompt_tokens,
 * completion_tokens, total_tokens } }` echoing the request's model; `?delay_ms=N` waits first;
 * `/v1/tool` answers a JSON tool result without usage; anything else 404. Every request body is
 * recorded in `seen`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OpenAiServer {
  origin: string;
  seen: { path: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

export async function startOpenAiServer(opts: { completion_tokens?: number; content?: string } = {}): Promise<OpenAiServer> {
  const seen: OpenAiServer['seen'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push({ path: url.pathname, headers: req.headers, body });
      const reply = () => {
        res.setHeader('content-type', 'application/json');
        if (url.pathname === '/v1/chat/completions') {
          let model = 'unknown';
          try { model = (JSON.parse(body) as { model?: string }).model ?? model; } catch { /* not JSON: echo unknown */ }
          const completion = opts.completion_tokens ?? 7;
          res.end(JSON.stringify({
            id: 'chatcmpl-1', object: 'chat.completion', model,
            choices: [{ index: 0, message: { role: 'assistant', content: opts.content ?? 'pong' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 12, completion_tokens: completion, total_tokens: 12 + completion },
          }));
        } else if (url.pathname === '/v1/tool') {
          res.end(JSON.stringify({ result: { ok: true, items: [1, 2, 3] } }));
        } else {
          res.statusCode = 404;
          res.end('{"error":"not found"}');
        }
      };
      const delay = Number(url.searchParams.get('delay_ms') ?? 0);
      if (delay > 0) setTimeout(reply, delay); else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * The few API calls the e2e tests and the network builder make, over plain fetch (docs/api/conventions.md
 * envelopes; docs/api/probes.md for tasks and their stream).
 */

/** A non-2xx answer: the HTTP status and the docs/api/conventions.md error object. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(readonly status: number, readonly code: string, message: string, readonly details: unknown) {
    super(`${status} ${code}: ${message}`);
  }
}

/** How long {@link call} keeps retrying answers that ask to be retried (503 UNAVAILABLE, 429). */
const RETRY_FOR_MS = 180_000;

/**
 * `method path` against `api_url` with an optional JSON body and bearer token; resolves the
 * envelope's `data`. A 503 UNAVAILABLE (load shedding) or 429 answer carrying Retry-After is
 * retried after that many seconds, as a client of the API should (docs/api/errors.md: both are
 * refused before any work is done, so a retried POST cannot apply twice), for up to 3 minutes: a
 * busy test machine makes the control plane shed load. @throws ApiError on any other non-2xx status
 */
export async function call<T = any>(api_url: string, method: string, path: string, body?: unknown, bearer?: string): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const give_up_at = Date.now() + RETRY_FOR_MS;
  for (;;) {
    const res = await fetch(api_url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
    const json = (await res.json().catch(() => null)) as { data?: T; error?: { code: string; message: string; details?: unknown } } | null;
    const retry_after_s = Number(res.headers.get('retry-after'));
    if ((res.status === 503 || res.status === 429) && retry_after_s > 0 && Date.now() < give_up_at) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(retry_after_s, 10) * 1000));
      continue;
    }
    if (!res.ok) throw new ApiError(res.status, json?.error?.code ?? 'UNKNOWN', json?.error?.message ?? res.statusText, json?.error?.details);
    return json!.data as T;
  }
}

/**
 * Wait for a probe group to end through `GET /v1/probe/tasks/{task_id}/stream` (server-sent
 * events: one `node_result` per node, then `done` carrying the polling result) and resolve that
 * result. @throws Error when the stream ends without `done` or `timeout_ms` passes
 */
export async function waitTask<T = any>(api_url: string, task_id: string, timeout_ms = 120_000): Promise<T> {
  const res = await fetch(`${api_url}/v1/probe/tasks/${task_id}/stream`, { headers: { accept: 'text/event-stream' }, signal: AbortSignal.timeout(timeout_ms) });
  if (!res.ok || !res.body) throw new Error(`stream of ${task_id}: ${res.status} ${await res.text()}`);
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      if (event !== 'done') continue;
      const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
      return JSON.parse(data) as T;
    }
  }
  throw new Error(`stream of ${task_id} ended without a done event`);
}

/** POST /v1/probe/{type} then waitTask: resolves the ended group's polling result. */
export async function runProbe<T = any>(api_url: string, type: string, body: Record<string, unknown>, bearer?: string): Promise<T> {
  const created = await call<{ task_id: string }>(api_url, 'POST', `/v1/probe/${type}`, body, bearer);
  return waitTask<T>(api_url, created.task_id);
}

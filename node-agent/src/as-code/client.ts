/*
 * A small client of the public /v1 API (docs/api/conventions.md envelopes) used by plan, apply,
 * export and the `vantage` CLI. It takes a fetch function, so the control plane can run the same
 * engine against itself in process (app.fetch) and the CLI against a URL.
 */

/** A fetch-compatible function (the global fetch, or a Hono app's `fetch`). */
export type FetchLike = (input: Request) => Response | Promise<Response>;

/** An API answer that was not 2xx: HTTP `status`, the envelope's error `code` and `message`, and `details`. */
export class ApiCallError extends Error {
  override readonly name = 'ApiCallError';
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: unknown) {
    super(message);
  }
}

/** Where and as whom to call: `base_url` like `https://vantage.example.com` (no /v1), a bearer credential. */
export interface ApiClientOptions {
  base_url: string;
  token: string;
  fetch?: FetchLike;
  /** Per request bound, milliseconds (default 30000). */
  timeout_ms?: number;
}

/** The calls the engine and CLI make: `data` of the success envelope, or ApiCallError. */
export interface ApiClient {
  get<T = unknown>(path: string): Promise<T>;
  post<T = unknown>(path: string, body?: unknown): Promise<T>;
  patch<T = unknown>(path: string, body: unknown): Promise<T>;
  put<T = unknown>(path: string, body: unknown): Promise<T>;
  delete(path: string): Promise<void>;
}

/**
 * Build a client for `opts.base_url` authenticating with `Authorization: Bearer <token>`.
 * @throws ApiCallError from each call (status 0, code NETWORK_ERROR when no answer came)
 */
export function createApiClient(opts: ApiClientOptions): ApiClient {
  const doFetch: FetchLike = opts.fetch ?? ((req) => fetch(req));
  const base = opts.base_url.replace(/\/+$/, '');
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { authorization: `Bearer ${opts.token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = new Request(`${base}${path}`, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(opts.timeout_ms ?? 30_000),
    });
    let res: Response;
    try {
      res = await doFetch(req);
    } catch (err) {
      throw new ApiCallError(0, 'NETWORK_ERROR', `${method} ${path}: ${(err as Error).message}`);
    }
    const text = await res.text();
    let json: { data?: unknown; error?: { code?: string; message?: string; details?: unknown } } = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new ApiCallError(res.status, 'BAD_RESPONSE', `${method} ${path}: answer is not JSON (HTTP ${res.status})`);
    }
    if (!res.ok) throw new ApiCallError(res.status, json.error?.code ?? 'HTTP_ERROR', json.error?.message ?? `HTTP ${res.status}`, json.error?.details);
    return json.data as T;
  };
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
    patch: (path, body) => call('PATCH', path, body),
    put: (path, body) => call('PUT', path, body),
    delete: async (path) => { await call('DELETE', path); },
  };
}

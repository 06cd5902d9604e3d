/** A small client for the control plane's /v1 API as the demo uses it (docs/api/conventions.md envelopes). */
export class Api {
  constructor(readonly base_url: string, private bearer: string | null = null) {}

  /** Use `token` as the bearer credential from now on (docs/api/conventions.md). */
  authorize(token: string): void {
    this.bearer = token;
  }

  /**
   * Call `method path` with a JSON body; resolves the envelope's `data`. A 503 UNAVAILABLE (the
   * control plane shedding load on a busy machine, or its database away) and a 429 are answers
   * "not done, come back": the call is made again after the `Retry-After` seconds (1 s when absent)
   * for up to `retry_for_ms` (docs/api/conventions.md errors and rate limits).
   * @throws Error with the docs/api/conventions.md error code and message when the status is not 2xx
   */
  async call<T = any>(method: string, path: string, body?: unknown, retry_for_ms = 60_000): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.bearer) headers.authorization = `Bearer ${this.bearer}`;
    const until = Date.now() + retry_for_ms;
    for (;;) {
      const res = await fetch(this.base_url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await res.json().catch(() => null)) as { data?: T; error?: { code: string; message: string } } | null;
      if ((res.status === 503 || res.status === 429) && Date.now() < until) {
        const wait_s = Number(res.headers.get('retry-after')) || 1;
        await new Promise((r) => setTimeout(r, Math.min(wait_s, 10) * 1000));
        continue;
      }
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json?.error?.code ?? ''} ${json?.error?.message ?? ''}`.trim());
      return json!.data as T;
    }
  }
}

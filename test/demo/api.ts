/** A small client for the control plane's /v1 API as the demo uses it (docs/api/conventions.md envelopes). */
export class Api {
  constructor(readonly base_url: string, private bearer: string | null = null) {}

  /** Use `token` as the bearer credential from now on (docs/api/conventions.md). */
  authorize(token: string): void {
    this.bearer = token;
  }

  /**
   * Call `method path` with a JSON body; resolves the envelope's `data`.
   * @throws Error with the docs/api/conventions.md error code and message when the status is not 2xx
   */
  async call<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.bearer) headers.authorization = `Bearer ${this.bearer}`;
    const res = await fetch(this.base_url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json().catch(() => null)) as { data?: T; error?: { code: string; message: string } } | null;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json?.error?.code ?? ''} ${json?.error?.message ?? ''}`.trim());
    return json!.data as T;
  }
}

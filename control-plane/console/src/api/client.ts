import type { ErrorCode, TokenResponse } from '@vantage/shared-protocol';

/** A refused API call: the HTTP status and the error envelope's code, message and details (docs/api/conventions.md). */
export class ApiFailure extends Error {
  constructor(readonly status: number, readonly code: ErrorCode | 'NETWORK', message: string, readonly details?: Record<string, unknown>) {
    super(message);
  }
}

/** The access token of the signed-in session: in memory only, never in storage (docs/console.md). */
let accessToken: string | null = null;
let locale = 'en';
const listeners = new Set<(signedIn: boolean) => void>();

/** The locale sent as Accept-Language (en, cn, tw), so API error messages come translated. */
export function setApiLocale(next: string): void { locale = next; }
/** Whether a session is open in this tab. */
export function signedIn(): boolean { return accessToken !== null; }
/** Be told when the session opens or ends. */
export function onSession(fn: (signedIn: boolean) => void): () => void { listeners.add(fn); return () => listeners.delete(fn); }

function setToken(token: string | null): void {
  const changed = (token === null) !== (accessToken === null);
  accessToken = token;
  if (changed) for (const fn of listeners) fn(token !== null);
}

/** Cookie mode: the refresh token stays in the HttpOnly cookie (docs/api/accounts.md "Cookie sessions"). */
const COOKIE_MODE = { 'X-Vantage-Session': 'cookie' };

async function call<T>(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<{ data: T; meta?: Record<string, unknown> }> {
  const init: RequestInit = { method, headers: { Accept: 'application/json', 'Accept-Language': locale, ...headers }, credentials: 'same-origin' };
  if (body !== undefined) {
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (err) {
    throw new ApiFailure(0, 'NETWORK', (err as Error).message);
  }
  const json = await res.json().catch(() => null) as { data?: T; meta?: Record<string, unknown>; error?: { code: ErrorCode; message: string; details?: Record<string, unknown> } } | null;
  if (!res.ok) throw new ApiFailure(res.status, json?.error?.code ?? 'INTERNAL_ERROR', json?.error?.message ?? res.statusText, json?.error?.details);
  return { data: json?.data as T, ...(json?.meta ? { meta: json.meta } : {}) };
}

let refreshing: Promise<boolean> | null = null;

/**
 * Exchange the refresh cookie for a new access token (POST /v1/auth/session/refresh). One
 * refresh at a time; false when there is no session (no cookie, or it was refused).
 */
export function resumeSession(): Promise<boolean> {
  refreshing ??= call<TokenResponse>('POST', '/v1/auth/session/refresh', undefined, COOKIE_MODE)
    .then((r) => { setToken(r.data.access_token); return true; })
    .catch(() => { setToken(null); return false; })
    .finally(() => { refreshing = null; });
  return refreshing;
}

/**
 * Call the public API with the session's access token; a 401 refreshes the session once and
 * retries. Resolves to the envelope's `data`.
 * @throws ApiFailure with the envelope's error code
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const auth = (): Record<string, string> => (accessToken ? { Authorization: `Bearer ${accessToken}` } : {});
  try {
    return (await call<T>(method, path, body, auth())).data;
  } catch (err) {
    if (!(err instanceof ApiFailure) || err.status !== 401 || !accessToken || err.code === 'AUTH_2FA_REQUIRED') throw err;
    if (!(await resumeSession())) throw err;
    return (await call<T>(method, path, body, auth())).data;
  }
}

/** Log in or register in cookie mode: the access token is kept in memory, the refresh token in the cookie. */
export async function openSession(path: '/v1/auth/login' | '/v1/auth/register', body: unknown): Promise<void> {
  const r = await call<TokenResponse>('POST', path, body, COOKIE_MODE);
  setToken(r.data.access_token);
}

/** Revoke the session (POST /v1/auth/logout) and clear the cookie; the tab forgets the token either way. */
export async function closeSession(): Promise<void> {
  try {
    if (accessToken) await call<null>('POST', '/v1/auth/logout', undefined, { ...COOKIE_MODE, Authorization: `Bearer ${accessToken}` });
  } finally {
    setToken(null);
  }
}

/**
 * `fetch` with the session's access token and locale, for what `api` cannot read (an event
 * stream: it is the `fetch` of the EventSource in use-event-stream.ts); a 401 refreshes the session
 * once and retries, as `api` does.
 */
export async function sessionFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const go = () => {
    const headers = new Headers(init.headers);
    headers.set('Accept-Language', locale);
    if (accessToken) headers.set('Authorization', `Bearer ${accessToken}`);
    return fetch(input, { ...init, headers, credentials: 'same-origin' });
  };
  const res = await go();
  if (res.status !== 401 || !accessToken || !(await resumeSession())) return res;
  return go();
}

import { useState } from 'preact/hooks';
import { api } from './client.js';

/**
 * A button's action on the API (acknowledge, delete, send a test…): `run` clears the last
 * failure, runs `fn`, and keeps what it threw in `error` for a FormError to show; `call` runs one
 * API call that way and then `after` (typically the list's reload).
 */
export function useAction(after?: () => void) {
  const [error, setError] = useState<unknown>(null);
  async function run(fn: () => Promise<void>): Promise<void> {
    setError(null);
    try { await fn(); } catch (err) { setError(err); }
  }
  const call = (method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) => run(async () => {
    await api(method, path, body);
    after?.();
  });
  return { error, run, call };
}

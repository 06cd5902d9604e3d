import { createServer } from 'node:net';

/** A TCP port free on `host` right now (listen on 0, read it, close). Small race; fine for tests. */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Poll `check` every `every_ms` until it returns a value (not null/undefined), else throw after `timeout_ms`. */
export async function waitUntil<T>(what: string, timeout_ms: number, check: () => Promise<T | null | undefined> | T | null | undefined, every_ms = 250): Promise<T> {
  const until = Date.now() + timeout_ms;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await check();
      if (v !== null && v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeout_ms} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, every_ms));
  }
}

import type { AppDeps } from '../deps.js';
import { clearExpiredPayloads } from './mcp-activity.db.js';

/** How often raw payloads past their retention are cleared, ms. */
const EVERY_MS = 10 * 60_000;

/**
 * Clear raw tool-call payloads past `payload_retain_until` (7 days after the failed call; docs/api/mcp.md
 * "Tool calls"), now and every 10 minutes; one UPDATE, safe on any number of instances.
 * @returns `{ run, stop }`: `run()` clears once (at `now()`), `stop()` ends the timer
 */
export function startPayloadRetention(deps: Pick<AppDeps, 'sql' | 'log'>, now: () => number = Date.now): { run(): Promise<number>; stop(): void } {
  const log = deps.log.child({ module: 'mcp.retention' });
  const run = () => clearExpiredPayloads(deps.sql, new Date(now()));
  const tick = () => void run().catch((err: unknown) => log.warn({ err }, 'mcp payload retention failed'));
  const timer = setInterval(tick, EVERY_MS);
  timer.unref();
  tick();
  return { run, stop: () => clearInterval(timer) };
}

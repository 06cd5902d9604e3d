import pino from 'pino';
import { PROTOCOL_VERSION, type NodeMessage, type WelcomeMessage } from '@vantage/shared-protocol';
import { Secret } from '../../secret.js';
import type { CheckRun } from '../../probes/check-run.js';
import type { RunCheckFn } from '../../tasks/check-job.js';
import { agentConfigSchema, type AgentConfig } from '../../config/schema.js';

/** Poll `cond` every 20 ms until true; reject after `timeout_ms` with `what`. For state with no event (a DB count). */
export async function eventually(cond: () => boolean, what: string, timeout_ms = 30_000): Promise<void> {
  const deadline = Date.now() + timeout_ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A silent logger for tests. */
export const quietLog = pino({ level: 'silent' });

/** One line a {@link capturingLog} logger wrote: pino's level number, `msg` and the fields. */
export interface LogLine { level: number; msg: string; [field: string]: unknown }

/** A debug-level logger whose lines are kept in `lines` (parsed JSON), for tests of what the agent says. */
export function capturingLog(): { log: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (text: string) => { lines.push(JSON.parse(text) as LogLine); } });
  return { log, lines };
}

/** Agent config for tests: a state dir, a control plane URL and optional overrides. */
export function testConfig(over: Record<string, unknown>): AgentConfig {
  return agentConfigSchema.parse({ state_dir: '/nonexistent', ...over });
}

/**
 * A small real check function for agent tests (instead of the probe engine): a target starting
 * with `hold` waits until {@link release}d or aborted (then reports `cancelled`); others finish on
 * the next turn with a successful tcp-shaped result.
 */
export function heldChecks() {
  const held = new Map<string, () => void>();
  const runCheck: RunCheckFn = (check, opts) => new Promise<CheckRun>((resolve) => {
    const started_at = new Date().toISOString();
    const finish = (ok: boolean) => resolve({
      type: 'tcp', started_at, finished_at: new Date().toISOString(), success: ok,
      error: ok ? null : 'check cancelled', error_class: ok ? null : 'cancelled',
      output: ok ? { resolved_address: '198.18.1.10', port: 443, connect_ms: 0.5, state: 'open' } : null,
    } as CheckRun);
    if (opts.signal?.aborted) return finish(false);
    opts.signal?.addEventListener('abort', () => finish(false), { once: true });
    if (check.target.startsWith('hold')) held.set(check.target, () => finish(true));
    else setImmediate(() => finish(true));
  });
  return { runCheck, release: (target: string) => held.get(target)?.(), held };
}

/**
 * The greeting of an agent that enrolls with `token` once, then says hello with the credential
 * its first welcome carried (pass every welcome to `remember`).
 */
export function stubGreeting(token: string) {
  let identity: { node_id: string; credential: string } | null = null;
  return {
    enrolled: () => identity !== null,
    greeting: () => identity
      ? { secret: new Secret(identity.credential), first: { type: 'hello', protocol_version: PROTOCOL_VERSION, agent_version: 'test', node_id: identity.node_id } as NodeMessage }
      : { secret: new Secret(token), first: { type: 'enroll', protocol_version: PROTOCOL_VERSION, agent_version: 'test' } as NodeMessage },
    remember: (w: WelcomeMessage) => { if (w.credential) identity = { node_id: w.node_id, credential: w.credential }; },
  };
}

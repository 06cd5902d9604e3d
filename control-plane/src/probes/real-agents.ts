import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sql } from 'postgres';
import { createAgent, openStateDb, type Agent, type AgentConfig } from '@vantage/node-agent';
import type { NodeCapability } from '@vantage/shared-protocol';
import type { StateDb } from '../../../node-agent/src/state/db.js';
import { runCheck } from '../../../node-agent/src/probes/runner.js';
import { detectCapabilities } from '../../../node-agent/src/probes/capabilities.js';
import { quietLog, testConfig } from '../../../node-agent/src/connection/test-support/helpers.js';
import { makeToken, waitFor } from '../hub/test-harness.js';

interface Teardown { teardown(fn: () => unknown): void }

/**
 * Test helper: start one real agent (the node-agent runtime and its probe engine) with its own
 * state directory, enrolling with `token` at the control plane at `url`, allowed to probe
 * `allow_cidrs`; `capabilities` absent = what this process can really run (detected);
 * `config` adds agent settings (e.g. `browser_executable`); `runCheck` replaces the probe engine's
default (runner.ts createRunCheck with settings, e.g. the CAs the SSL audit trusts). Stopped and its directory removed at
 * teardown. Returns the agent and its state database (its identity is readable there once enrolled).
 */
export async function startRealAgent(t: Teardown, opts: {
  url: string; token: string; allow_cidrs: string[]; capabilities?: NodeCapability[]; config?: Partial<AgentConfig>; runCheck?: typeof runCheck;
}): Promise<{ agent: Agent; db: StateDb }> {
  const dir = mkdtempSync(join(tmpdir(), 'vantage-agent-'));
  const db = openStateDb(dir);
  const agent = createAgent({
    db, log: quietLog, runCheck: opts.runCheck ?? runCheck, agent_version: '0.0.0-test', backoff: { min_ms: 50, max_ms: 200 }, ...(opts.capabilities ? { capabilities: opts.capabilities } : {}),
    config: testConfig({ control_plane_url: opts.url, token: opts.token, allow_cidrs: opts.allow_cidrs, ...opts.config }),
  });
  const exit = agent.start();
  t.teardown(async () => {
    await agent.stop(0);
    await exit;
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { agent, db };
}

/**
 * Test helper: enroll and start one real agent ({@link startRealAgent}) per country against the
 * control plane at `url`, advertising what this process can really run (raw ICMP types only as
 * root). Resolves once all of them are online (bound `timeout_ms`, default 60 s for a busy
 * machine). Returns the capabilities advertised.
 */
export async function startRealAgents(t: Teardown, sql: Sql, url: string, opts: { countries: string[]; allow_cidrs: string[]; timeout_ms?: number }): Promise<{ capabilities: string[] }> {
  const { capabilities } = detectCapabilities();
  for (const country of opts.countries) {
    await startRealAgent(t, { url, token: await makeToken(sql, { country_code: country }), allow_cidrs: opts.allow_cidrs, capabilities: capabilities as NodeCapability[] });
  }
  const n = opts.countries.length;
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === n, opts.timeout_ms ?? 60_000);
  return { capabilities };
}

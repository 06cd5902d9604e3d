import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sql } from 'postgres';
import { createAgent, openStateDb } from '@vantage/node-agent';
import { runCheck } from '../../../node-agent/src/probes/runner.js';
import { detectCapabilities } from '../../../node-agent/src/probes/capabilities.js';
import { quietLog, testConfig } from '../../../node-agent/src/connection/test-support/helpers.js';
import { makeToken, waitFor } from '../hub/test-harness.js';

interface Teardown { teardown(fn: () => unknown): void }

/**
 * Test helper: enroll and start one real agent (the node-agent runtime and its probe engine) per
 * country against the control plane at `url`, each with its own state directory, allowed to probe
 * `allow_cidrs` (e.g. loopback), advertising what this process can really run (raw ICMP types only
 * as root). Resolves once all of them are online (bound `timeout_ms`, default 60 s for a busy
 * machine); stopped and cleaned at teardown. Returns the capabilities advertised.
 */
export async function startRealAgents(t: Teardown, sql: Sql, url: string, opts: { countries: string[]; allow_cidrs: string[]; timeout_ms?: number }): Promise<{ capabilities: string[] }> {
  const { capabilities } = detectCapabilities();
  for (const country of opts.countries) {
    const dir = mkdtempSync(join(tmpdir(), 'vantage-agent-'));
    const db = openStateDb(dir);
    const agent = createAgent({
      db, log: quietLog, runCheck, agent_version: '0.0.0-test', backoff: { min_ms: 50, max_ms: 200 }, capabilities,
      config: testConfig({ control_plane_url: url, token: await makeToken(sql, { country_code: country }), allow_cidrs: opts.allow_cidrs }),
    });
    const exit = agent.start();
    t.teardown(async () => {
      await agent.stop(0);
      await exit;
      db.close();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  const n = opts.countries.length;
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === n, opts.timeout_ms ?? 60_000);
  return { capabilities };
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, openStateDb, type Agent } from '@vantage/node-agent';
import { runCheck } from '../../node-agent/src/probes/runner.js';
import { quietLog, testConfig } from '../../node-agent/src/connection/test-support/helpers.js';
import { makeToken } from '../../control-plane/src/hub/test-harness.js';
import type { Sql } from '../../control-plane/src/db/sql.js';

/** A real agent (node-agent code and check engine) enrolled for `user_id` in `country`, allowed loopback targets; stopped at teardown. */
export async function startRealAgent(t: { teardown(fn: () => unknown): void }, opts: { url: string; sql: Sql; user_id: string; country: string }): Promise<Agent> {
  const LOOPBACK = ['127.0.0.0/8'];
  const state = mkdtempSync(join(tmpdir(), 'vantage-agent-'));
  const db = openStateDb(state);
  const agent = createAgent({
    db, log: quietLog, runCheck, agent_version: '0.0.0-test', backoff: { min_ms: 50, max_ms: 200 }, capabilities: ['http', 'dns', 'tcp'],
    config: testConfig({ control_plane_url: opts.url, token: await makeToken(opts.sql, { country_code: opts.country, user_id: opts.user_id }), allow_cidrs: LOOPBACK }),
  });
  const exit = agent.start();
  t.teardown(async () => {
    await agent.stop(0);
    await exit;
    db.close();
    rmSync(state, { recursive: true, force: true });
  });
  return agent;
}

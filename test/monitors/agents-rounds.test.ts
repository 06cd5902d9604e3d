import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { roundPhaseMs } from '@vantage/shared-protocol';
import type { Agent } from '@vantage/node-agent';
import { startRealAgent } from '../../control-plane/src/probes/real-agents.js';
import { makeToken, waitFor } from '../../control-plane/src/hub/test-harness.js';
import { startPlacementJob } from '../../control-plane/src/monitors/placement-job.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { storedChecks } from '../../control-plane/src/checks/test-support.js';

/*
 * Real agents (the node-agent code, with its check engine) on a real control plane: they receive
 * their assignment set on connect and deltas as the monitor is created, changed, paused and
 * deleted; they run its rounds aligned to the wall clock; their results are stored through the
 * monitor results path, accepted because the monitor is assigned to them.
 */

const LOOPBACK = ['127.0.0.0/8'];
type Result = { node_id: string; scheduled_at: Date; started_at: Date };
const ROUND_S = 10;

const { app, sql, url, deps } = await testApp(t, { config: { probe_allow_cidrs: LOOPBACK, plan: 'business' } });
const user = await registerUser(app);
const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: user.access_token, body });

// The target: a TCP server on loopback that accepts and closes.
const target: Server = createServer((s) => s.end());
await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => target.close(() => resolve())));
const port = (target.address() as AddressInfo).port;

/** A real agent with its own state folder, enrolled with a token of `country`, stopped at teardown. */
async function startAgent(country: string): Promise<Agent> {
  const token = await makeToken(sql, { country_code: country, user_id: user.user_id });
  return (await startRealAgent(t, { url, token, allow_cidrs: LOOPBACK, capabilities: ['http', 'dns', 'tcp'] })).agent;
}

t.test('agents get their set, run aligned rounds, and their results are accepted', async (t) => {
  const agents = await Promise.all(['DE', 'FR', 'JP'].map(startAgent));
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 3);

  const created = await api('POST', '/v1/monitors', { name: 'loopback tcp', type: 'tcp', target: `127.0.0.1:${port}`, interval_s: 60, node_count: 3 });
  t.equal(created.status, 201);
  const m = created.body.data;
  t.equal(m.node_ids.length, 3, 'placed on the three agents');
  // Rounds every 10 s instead of 60 (the API allows 60, 300, 1800): the change reaches the agents as a delta.
  await sql`UPDATE monitors SET interval_s = ${ROUND_S}, revision = revision + 1 WHERE id = ${m.id}`;
  const job = startPlacementJob({ sql, log: deps.log, config: { ...deps.config, placement_interval_ms: 60_000 } });
  t.teardown(() => job.stop());
  await sql`UPDATE placement_queue SET due_at = now()`;
  await job.runOnce();
  await waitFor(async () => agents.every((a) => a.assignments.list().some((x) => x.monitor_id === m.id && x.interval_s === ROUND_S)));
  const held = agents[0]!.assignments.list().find((x) => x.monitor_id === m.id)!;
  t.equal(held.phase_ms, roundPhaseMs(m.id, ROUND_S), 'the assignment carries the round phase');

  // Two full rounds on every node, as stored in the check history (checks, by round).
  const results = async (): Promise<Result[]> => (await storedChecks(sql, sql`s.monitor_id = ${m.id}`))
    .map((c) => ({ node_id: c.node_id!, scheduled_at: c.scheduled_at, started_at: new Date(c.scheduled_at.getTime() + c.start_offset_ms) }));
  await waitFor(async () => {
    const rows = await results();
    return new Set(rows.map((r) => r.node_id)).size === 3 && rows.length >= 6;
  }, 60_000);
  const rows = await results();
  const rounds = new Map<number, Result[]>();
  for (const r of rows) {
    const k = Math.floor((r.started_at.getTime() + 500 - held.phase_ms!) / (ROUND_S * 1000));
    rounds.set(k, [...(rounds.get(k) ?? []), r]);
  }
  const full = [...rounds.entries()].filter(([, rs]) => rs.length === 3);
  t.ok(full.length >= 1, 'rounds that all three nodes ran');
  for (const [k, rs] of full) {
    const start = held.phase_ms! + k * ROUND_S * 1000;
    const late = rs.map((r) => r.started_at.getTime() - start);
    t.ok(late.every((ms) => ms >= -50 && ms < 1500), `round ${k}: every node started at the round's instant (+${late.join(', +')} ms)`);
    t.equal(new Set(rs.map((r) => r.node_id)).size, 3);
    t.ok(rs.every((r) => r.scheduled_at.getTime() === start), 'scheduled_at = phase + k * interval on every node');
  }
  const nodes = await sql<{ id: string; results_rejected_total: number }[]>`SELECT id, results_rejected_total::int FROM nodes`;
  t.ok(nodes.every((n) => n.results_rejected_total === 0), 'nothing was refused: the monitor is assigned to each node');

  // Pause: the monitor leaves every agent's schedule; resume: it comes back; delete: gone.
  t.equal((await api('POST', `/v1/monitors/${m.id}/pause`)).status, 200);
  await waitFor(async () => agents.every((a) => !a.scheduler.monitor_ids.includes(m.id)));
  t.pass('paused: no agent runs it');
  t.equal((await api('POST', `/v1/monitors/${m.id}/resume`)).status, 200);
  await waitFor(async () => agents.every((a) => a.scheduler.monitor_ids.includes(m.id)));
  t.pass('resumed: every agent runs it again');
  t.equal((await api('DELETE', `/v1/monitors/${m.id}`)).status, 200);
  await waitFor(async () => agents.every((a) => a.scheduler.monitor_ids.length === 0 && a.assignments.list().length === 0));
  t.pass('deleted: removed from every agent');
  await waitFor(async () => {
    const rows = await sql<{ ok: boolean }[]>`SELECT acked_version = version AS ok FROM node_assignments`;
    return rows.length === 3 && rows.every((r) => r.ok);
  });
  t.pass('each node acked its latest version');

  // Each agent measured its clock against the control plane's and reported it in its heartbeats.
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE clock_offset_ms IS NOT NULL`)[0]!.n === 3);
  for (const id of m.node_ids as string[]) {
    const node = (await call(app, 'GET', `/v1/nodes/${id}`)).body.data;
    t.match(node, { clock_skewed: false, clock_reported_at: /Z$/ }, 'same machine: not skewed');
    t.ok(Math.abs(node.clock_offset_ms) < 1000, `offset ${node.clock_offset_ms} ms`);
  }
});

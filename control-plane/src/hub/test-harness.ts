import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROTOCOL_VERSION, enrollProof, newId, newSecret, type ResultEnvelope, type TaskAckMessage } from '@vantage/shared-protocol';
import { loadConfig, type Config } from '../config/index.js';
import { insertEnrollmentToken } from '../nodes/enrollment-tokens.db.js';
import type { Sql } from '../db/sql.js';
import { createLogger } from '../log.js';
import type { ResultSink } from '../contracts.js';
import { createHub, type Hub } from './hub.js';
import { secretHash } from '../nodes/secrets.js';
import { TestNode } from '../test-support/test-node.js';

interface Teardown { teardown(fn: () => unknown): void }

/**
 * A ResultSink stand-in for hub tests (the probe-task side is tested on its own): it accepts a
 * result when its task (or monitor) was `assign`ed to that node, stores ids idempotently and
 * records acks.
 */
export function recordingSink(): ResultSink & {
  assign(task_id: string, node_id: string): void; stored: Map<string, ResultEnvelope>; acks: TaskAckMessage[];
} {
  const assigned = new Map<string, string>();
  const stored = new Map<string, ResultEnvelope>();
  const acks: TaskAckMessage[] = [];
  return {
    assign: (task_id, node_id) => void assigned.set(task_id, node_id),
    stored, acks,
    async ingest(node_id, results) {
      const out = { stored: [] as string[], rejected: [] as Array<{ result_id: string; reason: string }> };
      for (const r of results) {
        if (r.task_id && assigned.get(r.task_id) !== node_id) out.rejected.push({ result_id: r.result_id, reason: 'task not assigned to this node' });
        else if (r.monitor_id && assigned.get(r.monitor_id) !== node_id) out.rejected.push({ result_id: r.result_id, reason: 'monitor not assigned to this node' });
        else { stored.set(r.result_id, r); out.stored.push(r.result_id); }
      }
      return out;
    },
    async taskAck(_node_id, ack) { acks.push(ack); },
    async pendingTasks() { return []; },
  };
}

/** A hub on its own http server on 127.0.0.1:0 against `sql`, closed at teardown. */
export async function startHub(t: Teardown, sql: Sql, db_url: string | undefined, overrides: Partial<Config> = {}, results: ResultSink = recordingSink()): Promise<{ hub: Hub; base: string; server: Server; config: Config }> {
  const config = loadConfig({}, { database_url: db_url, log_level: (process.env.TEST_LOG_LEVEL as Config['log_level']) ?? 'silent', heartbeat_interval_ms: 2000, ...overrides });
  const hub = createHub({ sql, log: createLogger(config.log_level), config, results });
  await hub.ready();
  const server = createServer((_req, res) => res.writeHead(404).end());
  hub.attach(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    await hub.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { hub, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, config };
}

/** Store an enrollment token for `user_id` directly (the HTTP route is tested separately). @returns the `ent_` secret */
export async function makeToken(sql: Sql, fields: Partial<Parameters<typeof insertEnrollmentToken>[1]> = {}): Promise<string> {
  const token = newSecret('enrollment_token');
  await insertEnrollmentToken(sql, {
    id: newId('enrollment_token_record'), user_id: newId('user'), token_hash: secretHash(token), preview: 'ent_…',
    label: null, country_code: null, declared_province: null, city_id: null, operator: null, sponsor_user_id: null,
    // Shared: the nodes of these tests serve every account's probes and monitors, as one
    // enrolled through the API with `shared: true` (docs/api/nodes.md "Sharing").
    ttl_hours: 24, shared: true, ...fields, team_id: fields.team_id ?? null,
  });
  return token;
}

/**
 * Enroll a fresh node on `base` with `token`: `enroll`, `welcome`, then (unless `confirm` is false,
 * as for an agent whose welcome was lost) `enroll.confirm` with the proof and `enroll.confirmed`.
 * @returns the connected node, its id and credential
 */
export async function enrollNode(base: string, token: string, hostname = 'probe-1', opts: { confirm?: boolean } = {}): Promise<{ node: TestNode; node_id: string; credential: string }> {
  const node = await TestNode.connect(base, token);
  node.send({ type: 'enroll', protocol_version: PROTOCOL_VERSION, agent_version: '0.1.0', hostname });
  const welcome = await node.next('welcome');
  if (!welcome.credential) throw new Error('welcome after enroll carried no credential');
  if (opts.confirm !== false) {
    node.send({ type: 'enroll.confirm', node_id: welcome.node_id, proof: enrollProof(welcome.credential, welcome.node_id) });
    await node.next('enroll.confirmed');
  }
  return { node, node_id: welcome.node_id, credential: welcome.credential };
}

/** Connect an enrolled node with its credential and say hello. */
export async function helloNode(base: string, credential: string, node_id: string): Promise<TestNode> {
  const node = await TestNode.connect(base, credential);
  node.send({ type: 'hello', protocol_version: PROTOCOL_VERSION, agent_version: '0.1.0', node_id });
  await node.next('welcome');
  return node;
}

/** Poll `check` every 50 ms until it holds (for state that has no event, e.g. a row written on close). */
export async function waitFor(check: () => Promise<boolean>, timeout_ms = 20_000): Promise<void> {
  const until = Date.now() + timeout_ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { PROTOCOL_VERSION, enrollProof, newId, newSecret, type ResultEnvelope, type TaskAckMessage } from '@vantage/shared-protocol';
import { loadConfig, type Config } from '../config/index.js';
import { insertEnrollmentToken } from '../nodes/enrollment-tokens.db.js';
import type { Sql } from '../db/sql.js';
import { createLogger, type Logger } from '../log.js';
import type { ResultSink } from '../contracts.js';
import { createHub, type Hub } from './hub.js';
import type { LivenessLimits } from './liveness.js';
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

/**
 * A hub on its own http server on 127.0.0.1:0 against `sql`, closed at teardown. `deps` may give
 * the hub's logger (e.g. {@link hubLog}'s) and liveness limits (hub/liveness.ts, ms).
 */
export async function startHub(
  t: Teardown, sql: Sql, db_url: string | undefined, overrides: Partial<Config> = {}, results: ResultSink = recordingSink(),
  deps: { log?: Logger; liveness?: Partial<LivenessLimits> } = {},
): Promise<{ hub: Hub; base: string; server: Server; config: Config }> {
  const config = loadConfig({}, { database_url: db_url, log_level: (process.env.TEST_LOG_LEVEL as Config['log_level']) ?? 'silent', heartbeat_interval_ms: 2000, ...overrides });
  const hub = createHub({ sql, log: deps.log ?? createLogger(config.log_level), config, results, liveness: deps.liveness });
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

/** One line the hub logged: pino's object, with `msg`, `time` (epoch ms) and the line's fields (`node_id`, `why`...). */
export type HubLogLine = { msg: string; time: number; node_id?: string | null } & Record<string, unknown>;

/**
 * A logger (level info) to give the hub, for tests that follow a node through the transitions
 * the hub logs where they happen (hub.ts: out of service, back in service, link dead with its
 * rule in `why`, disconnected). pino hands each line to its stream synchronously, so
 * `at(node_id, msg, snapshot)` sees the hub as it was when it logged: it resolves with the node's
 * first line `msg` written after the call and what `snapshot()` returned at that moment, and
 * rejects when none came within `timeout_ms` (a rejection nobody awaits is not reported).
 */
export function hubLog(): {
  log: Logger;
  at<T>(node_id: string, msg: string, snapshot?: () => T, timeout_ms?: number): Promise<{ line: HubLogLine; seen: T | undefined }>;
} {
  const watchers = new Set<(line: HubLogLine) => void>();
  const log = pino({ level: 'info' }, {
    write(text: string) {
      const line = JSON.parse(text) as HubLogLine;
      for (const watch of watchers) watch(line);
    },
  });
  return {
    log,
    at<T>(node_id: string, msg: string, snapshot?: () => T, timeout_ms = 20_000) {
      const found = new Promise<{ line: HubLogLine; seen: T | undefined }>((resolve, reject) => {
        const timer = setTimeout(() => {
          watchers.delete(watch);
          reject(new Error(`hub did not log "${msg}" for ${node_id} within ${timeout_ms} ms`));
        }, timeout_ms);
        const watch = (line: HubLogLine) => {
          if (line.node_id !== node_id || line.msg !== msg) return;
          watchers.delete(watch);
          clearTimeout(timer);
          resolve({ line, seen: snapshot?.() });
        };
        watchers.add(watch);
      });
      // Awaited by the test; a watch left waiting by an assertion that failed first must not also
      // fail the file as an unhandled rejection.
      found.catch(() => {});
      return found;
    },
  };
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

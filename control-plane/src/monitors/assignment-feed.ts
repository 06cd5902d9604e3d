import { roundPhaseMs, type Assignment, type ServerMessage } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { AssignmentFeed } from '../contracts.js';
import { batchCalls } from '../db/batch.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { mayHoldSecretsOf, type NodeTrustFacts } from '../secrets/node-trust.js';
import { SecretKeyError, secretBoxOf } from '../secrets/secret-box.js';
import { openedConfig } from './header-secrets.js';
import { createAssignmentCheck } from './assignment-check.js';
import { onAssignmentsChanged } from './assignment-signals.js';
import {
  assignmentIndex, assignmentRows, assignmentSets, assignmentVersions, recordAssignmentsAck, recordAssignmentsAcks, type AssignmentRow, type AssignmentSet,
} from './assignments.db.js';
import { monitorSecretHeaders } from './placement-status.js';

/** Postgres channel on which bump_node_assignments (0024) announces nodes with new versions. */
export const ASSIGNMENTS_CHANNEL = 'vantage_assignments';
/** Assignments' JSON per frame at most (the agent accepts 1 MiB frames; a set can be far larger). */
const FRAME_BYTES_MAX = 256 * 1024;
/** Nodes whose full sets one statement reads at most (a node's set may hold thousands of monitors). */
const FULL_SET_BATCH_NODES = 100;
/** A version sent and not acked for this long is sent again as a full set, ms. */
const ACK_TIMEOUT_MS = 60_000;

/** One node held here: what it was sent, as far as this instance knows. */
interface Link {
  send: (m: ServerMessage) => boolean;
  /** Version of the last frame sent (null: nothing yet, a full set is due). */
  sent_version: number | null;
  /** Monitor id → revision the node holds once it applied what was sent. */
  held: Map<string, number>;
  /** The node's owner and platform mark when its last full set was built (null: none yet). */
  trust: NodeTrustFacts | null;
  /** Versions sent and not acked yet, oldest first, and when the oldest was sent. */
  unacked: number[];
  unacked_since: number;
  acked_recorded: number;
  pending: 'full' | 'delta' | null;
  running: boolean;
}

/** Build an assignment (node-protocol assignmentSchema) from a monitor row. */
export function toAssignment(r: AssignmentRow, allow_cidrs: string[]): Assignment {
  return {
    monitor_id: r.id, interval_s: r.interval_s, phase_ms: roundPhaseMs(r.id, r.interval_s),
    policy: { allow_private: r.private_target, allow_cidrs },
    check: { type: r.type, target: r.target, config: r.config } as Assignment['check'],
  };
}

/** Cut `items` into runs whose JSON stays under FRAME_BYTES_MAX (at least one item per run). */
function chunks(items: Assignment[]): Assignment[][] {
  const out: Assignment[][] = [[]];
  let bytes = 0;
  for (const a of items) {
    const size = JSON.stringify(a).length;
    if (bytes + size > FRAME_BYTES_MAX && out[out.length - 1]!.length > 0) { out.push([]); bytes = 0; }
    out[out.length - 1]!.push(a);
    bytes += size;
  }
  return out;
}

/**
 * The assignment feed of one instance (contracts.ts AssignmentFeed; docs/architecture/hub.md
 * "Assignments"):
 * - on `connected`, the node gets `assignments.full` at its current version; a set larger than a
 *   frame continues as deltas from that version to itself;
 * - when nodes' versions move (NOTIFY vantage_assignments with a database server; in-process
 *   signals in embedded mode), each node held here gets `assignments.delta` from the version it
 *   was sent to the current one: the monitors whose revision it does not hold, and those that left;
 * - an ack of a version it was sent is recorded (node_assignments.acked_version); any other ack
 *   (the node ignored a delta: it holds something else) gets a full set, as does a version left
 *   unacked for ACK_TIMEOUT_MS;
 * - every `sweep_ms` the held nodes' versions are compared with what they were sent, so a lost
 *   notification delays a delta, never loses it;
 * - a monitor whose headers carry secrets is sent only to a node trusted with its owner's secrets
 *   (secrets/node-trust.ts), checked here again whatever placement decided (defence in depth);
 *   a node whose owner or platform mark changed gets a full set, judged anew;
 * - an assignment a node would refuse (assignment-check.ts: a config stored before a rule the
 *   nodes apply) is withheld with an error naming the field, so nodes get only what they run.
 * Work per node is serialised and coalesced. `start()` begins listening; `stop()` ends it.
 */
export function createAssignmentFeed(deps: { sql: Sql; log: Logger; config: Pick<Config, 'database_url' | 'probe_allow_cidrs' | 'secrets_key' | 'secrets_keys_previous'>; sweep_ms?: number }): AssignmentFeed & {
  start(): Promise<void>; stop(): Promise<void>; nodesChanged(node_ids: string[]): void; readonly held: number;
} {
  const { sql, config } = deps;
  const log = deps.log.child({ module: 'monitors.assignments' });
  const links = new Map<string, Link>();
  const sweep_ms = deps.sweep_ms ?? (config.database_url ? 10_000 : 2_000);
  let stopListening: (() => Promise<void>) | null = null;
  let sweeper: NodeJS.Timeout | null = null;
  const box = secretBoxOf(config);
  const refusedByNodes = createAssignmentCheck();
  // Every node says hello at once after a restart: their full sets are read in a few statements.
  // Acks of many nodes in one statement and commit (all nodes ack their full sets after a restart);
  // a batch that fails as a whole is written again one node at a time.
  const ackBatch = batchCalls<{ node_id: string; version: number }, void>(async (acks) => {
    await recordAssignmentsAcks(sql, acks);
    return acks.map(() => undefined);
  }, { max: 1000 });
  const recordAck = (ack: { node_id: string; version: number }) => ackBatch(ack).catch(() => recordAssignmentsAck(sql, ack.node_id, ack.version));
  const fullSet = batchCalls<string, AssignmentSet>(async (node_ids) => {
    const sets = await assignmentSets(sql, node_ids);
    return node_ids.map((id) => sets.get(id)!);
  }, { max: FULL_SET_BATCH_NODES });

  /**
   * The assignments of `rows` for node `node_id`, header secrets opened (nodes get them over their
   * authenticated socket), and the ids of the rows left out (`withheld`):
   * - a monitor whose headers carry secrets the node may not hold (secrets/node-trust.ts: not the
   *   owner's node, not a platform node) is never opened for it, whatever placement decided, with
   *   an error in the log (placement should not have put it there);
   * - a monitor whose secrets cannot be opened here, with an error naming the key;
   * - a monitor whose assignment a node would refuse (assignment-check.ts: stored headers that
   *   break the request header rule, a JSONPath or pattern stored before the API refused it,
   *   anything node-protocol assignmentSchema refuses), with an error naming the field: the node
   *   would drop it, so it is not sent (nor counted as held).
   */
  function assignable(node_id: string, node: NodeTrustFacts, rows: AssignmentRow[]): { assignments: Assignment[]; withheld: Set<string> } {
    const assignments: Assignment[] = [];
    const withheld = new Set<string>();
    for (const r of rows) {
      const secret_headers = monitorSecretHeaders(r.type, r.config.headers);
      if (secret_headers.length > 0 && !mayHoldSecretsOf(node, r)) {
        log.error({ monitor_id: r.id, node_id, owner_user_id: r.user_id, team_id: r.team_id, node_owner_user_id: node.owner_user_id, node_team_id: node.team_id, secret_headers },
          'monitor not assigned: its header secrets may not reach this node (neither its owner\'s node nor a platform node)');
        withheld.add(r.id);
        continue;
      }
      try {
        const assignment = toAssignment({ ...r, config: openedConfig(box, r.id, r.type, r.config) }, config.probe_allow_cidrs);
        const faults = refusedByNodes(assignment);
        if (faults) {
          // Stored before a rule the nodes apply (docs/api/monitors.md): they would not run it.
          log.error({ monitor_id: r.id, node_id, revision: r.revision, field: faults[0]!.path, reason: faults[0]!.message, fields: faults.slice(0, 10) },
            'monitor not assigned: its stored config breaks a rule nodes apply; it runs again once edited to pass');
          withheld.add(r.id);
          continue;
        }
        assignments.push(assignment);
      } catch (err) {
        if (!(err instanceof SecretKeyError)) throw err;
        log.error({ monitor_id: r.id, key_id: err.key_id, reason: err.message }, 'monitor not assigned: its header secrets cannot be opened');
      }
    }
    return { assignments, withheld };
  }

  function sendAll(node_id: string, link: Link, frames: ServerMessage[], version: number): void {
    for (const f of frames) {
      if (!link.send(f)) {
        if (links.get(node_id) === link) links.delete(node_id);
        return;
      }
    }
    if (link.unacked.length === 0) link.unacked_since = Date.now();
    link.unacked.push(version);
    link.sent_version = version;
  }

  async function sendFull(node_id: string, link: Link): Promise<void> {
    const { version, node, rows } = await fullSet(node_id);
    const { assignments, withheld } = assignable(node_id, node, rows);
    const parts = chunks(assignments);
    const frames: ServerMessage[] = parts.map((part, i) => i === 0
      ? { type: 'assignments.full', version, assignments: part }
      : { type: 'assignments.delta', from_version: version, version, upsert: part, remove: [] });
    link.held = new Map(rows.filter((r) => !withheld.has(r.id)).map((r) => [r.id, r.revision]));
    link.trust = node;
    link.unacked = [];
    sendAll(node_id, link, frames, version);
    log.debug({ node_id, version, count: rows.length, frames: frames.length }, 'assignments.full sent');
  }

  async function sendDelta(node_id: string, link: Link): Promise<void> {
    const index = await assignmentIndex(sql, node_id);
    if (index.version === link.sent_version) return;
    // Its owner or platform mark changed: what it may hold is judged again, monitor by monitor.
    if (link.trust?.owner_user_id !== index.node.owner_user_id || link.trust?.team_id !== index.node.team_id || link.trust?.platform !== index.node.platform) return sendFull(node_id, link);
    const upsert_ids = [...index.monitors].filter(([id, rev]) => link.held.get(id) !== rev).map(([id]) => id);
    const remove = [...link.held.keys()].filter((id) => !index.monitors.has(id));
    const rows = await assignmentRows(sql, upsert_ids);
    const from = link.sent_version!;
    const { assignments, withheld } = assignable(node_id, index.node, rows);
    // One it held before and may no longer hold (its headers gained a secret, the node lost its
    // platform mark) leaves it now.
    for (const id of withheld) if (link.held.has(id)) remove.push(id);
    const parts = chunks(assignments);
    const frames: ServerMessage[] = parts.map((part, i) => ({
      type: 'assignments.delta', from_version: i === 0 ? from : index.version, version: index.version, upsert: part, remove: i === 0 ? remove : [],
    }));
    for (const id of remove) link.held.delete(id);
    for (const r of rows) if (!withheld.has(r.id)) link.held.set(r.id, r.revision);
    sendAll(node_id, link, frames, index.version);
    log.debug({ node_id, from_version: from, version: index.version, upsert: rows.length, remove: remove.length }, 'assignments.delta sent');
  }

  function schedule(node_id: string, kind: 'full' | 'delta'): void {
    const link = links.get(node_id);
    if (!link) return;
    link.pending = kind === 'full' || link.pending === 'full' ? 'full' : 'delta';
    if (link.running) return;
    link.running = true;
    void (async () => {
      while (link.pending && links.get(node_id) === link) {
        const k = link.pending === 'full' || link.sent_version === null ? 'full' : 'delta';
        link.pending = null;
        try {
          await (k === 'full' ? sendFull(node_id, link) : sendDelta(node_id, link));
        } catch (err) {
          log.warn({ err, node_id }, 'sending assignments failed; the sweep retries');
        }
      }
    })().finally(() => { link.running = false; });
  }

  function nodesChanged(node_ids: string[]): void {
    for (const id of node_ids) if (links.has(id)) schedule(id, 'delta');
  }

  async function sweep(): Promise<void> {
    const ids = [...links.keys()];
    const now = Date.now();
    for (let i = 0; i < ids.length; i += 5000) {
      const batch = ids.slice(i, i + 5000);
      const versions = await assignmentVersions(sql, batch);
      for (const id of batch) {
        const link = links.get(id);
        if (!link || link.sent_version === null) continue;
        if (link.unacked.length > 0 && now - link.unacked_since > ACK_TIMEOUT_MS) schedule(id, 'full');
        else if ((versions.get(id) ?? 0) !== link.sent_version) schedule(id, 'delta');
      }
    }
  }

  return {
    get held() { return links.size; },
    nodesChanged,
    async connected(node_id, send) {
      const link: Link = { send, sent_version: null, held: new Map(), trust: null, unacked: [], unacked_since: 0, acked_recorded: 0, pending: null, running: false };
      links.set(node_id, link);
      schedule(node_id, 'full');
    },
    async acked(node_id, version) {
      const link = links.get(node_id);
      if (!link) return;
      const i = link.unacked.indexOf(version);
      if (i >= 0) {
        link.unacked.splice(0, i + 1);
        link.unacked_since = Date.now();
      } else if (version !== link.sent_version) {
        log.info({ node_id, acked: version, sent: link.sent_version }, 'node holds another assignments version: full set');
        schedule(node_id, 'full');
        return;
      }
      if (version > link.acked_recorded) {
        link.acked_recorded = version;
        await recordAck({ node_id, version });
      }
    },
    disconnected(node_id) {
      links.delete(node_id);
    },
    async start() {
      if (config.database_url) {
        const listener = await sql.listen(ASSIGNMENTS_CHANNEL, (payload) => nodesChanged(payload.split(',').filter(Boolean)));
        stopListening = () => listener.unlisten();
      } else {
        const off = onAssignmentsChanged(nodesChanged);
        stopListening = async () => off();
      }
      sweeper = setInterval(() => void sweep().catch((err: unknown) => log.warn({ err }, 'assignments sweep failed')), sweep_ms);
      sweeper.unref();
    },
    async stop() {
      if (sweeper) clearInterval(sweeper);
      await stopListening?.().catch(() => {});
      links.clear();
    },
  };
}

/**
 * Simulated probe nodes for test/bench/hub-bench.ts, run as a child process (fork) so their CPU
 * and memory are not counted against the control plane. Each is a light ws client that does on
 * the wire what node-agent does (node-agent/src/connection/client.ts, agent.ts):
 *  - `enroll` with its `ent_` token and `enroll.confirm`; later connections `hello` with its
 *    `nk_` credential, its outbox figures and `tasks_held` (the tasks whose results are unacked);
 *  - after `welcome` (never before: whatever arrives earlier is dropped, and counted, as the agent
 *    drops it): a `heartbeat` every `heartbeat_interval_ms` carrying a clock report, a ws ping per
 *    interval for the round trip, `outbox.stats` on welcome and every 60 s (at its own phase);
 *  - acks `assignments.full`/`assignments.delta` with the version it holds;
 *  - answers every `task.run` at once with `task.ack` and one tcp result in a `result.batch`, and
 *    keeps the result until `result.ack` (sent again after a reconnect, as the outbox does);
 *  - when the link goes down, reconnects on the agent's own schedule (backoff.ts reconnectDelay:
 *    0.1-1 s after a stable link, 1-2.5 s per failed retry in the first minute).
 * No probe traffic is sent. Node i connects to `bases[i % bases.length]`.
 *
 * The simulator shares the machine's cores with the control plane, so it is kept cheap: frames are
 * sent with an all-zero mask (ws then skips masking and the random mask per frame), incoming text is
 * not UTF-8 validated, and a heartbeat is recognised by its first bytes without JSON.
 *
 * IPC: receives `{ bases, tokens }`, replies `{ ready: node_ids }` once every enrollment is
 * confirmed. Then `{ cmd: 'stats' }` → `{ stats }` (links welcomed now, frames dropped before
 * welcome by type, failed attempts, the simulator's own CPU time so far in ms); `{ cmd: 'herd' }` cuts every link at once and
 * each node reconnects on the agent's schedule (`at_once: true`: all with no delay), replying
 * `{ herd: true }` once cut; `'stop'` closes every socket and exits.
 */
import { createRequire } from 'node:module';
import { enrollProof, newId, NODE_WS_PATH, PROTOCOL_VERSION } from '@vantage/shared-protocol';
import { reconnectDelay } from '../../../node-agent/src/connection/backoff.js';

// ws is a dependency of the control plane (its types are not visible from test/).
interface SimSocket { send(data: string): void; ping(): void; close(): void; terminate(): void; on(event: string, fn: (...args: any[]) => void): void }
const WebSocket = createRequire(new URL('../../../control-plane/package.json', import.meta.url))('ws') as new (url: string, opts: object) => SimSocket;

// Never outlive the benchmark: its IPC channel closes when it exits, however it ends.
process.once('disconnect', () => process.exit(0));
const { bases, tokens } = await new Promise<{ bases: string[]; tokens: string[] }>((resolve) => process.once('message', resolve as never));
// What the control plane sends as `{"type":"heartbeat","sent_at":…}` (hub/liveness.ts).
const HEARTBEAT = Buffer.from('{"type":"heartbeat",');
const isHeartbeat = (data: Buffer) => data.length < 64 && data.subarray(0, HEARTBEAT.length).equals(HEARTBEAT);
// An all-zero mask: frames still carry the mask a server requires, but RFC 6455 (5.3) wants it
// unpredictable (against proxy cache poisoning on real networks); a shortcut for a loopback bench
// only, which lets ws skip the XOR and the random mask.
const WS_OPTS = { generateMask: () => {}, skipUTF8Validation: true, handshakeTimeout: 15_000 };
/** node-agent: a link with no `welcome` this long after it opened is dropped, ms (client.ts hello_timeout_ms). */
const WELCOME_TIMEOUT_MS = 30_000;
/** node-agent's housekeeping interval (outbox.stats), ms. */
const STATS_INTERVAL_MS = 60_000;
/** node-agent/src/connection/client.ts STABLE_LINK_MS. */
const STABLE_LINK_MS = 10_000;

const stats = { welcomed_now: 0, failed_attempts: 0, dropped_before_welcome: {} as Record<string, number>, failures: {} as Record<string, number> };
const failed = (why: string) => { stats.failures[why] = (stats.failures[why] ?? 0) + 1; };
let stopping = false;
let batch = 0;

interface SimNode {
  i: number; token: string; node_id: string | null; credential: string | null;
  ws: SimSocket | null; welcomed: boolean; up_at: number; down_at: number | null; failures: number;
  /** Results sent and not yet acked, by result id (the agent's outbox). */
  unacked: Map<string, { task_id: string; frame: object }>;
  assignments_version: number | null;
  timers: NodeJS.Timeout[];
  onConfirmed: ((id: string) => void) | null;
}

const dropped = (type: string) => { stats.dropped_before_welcome[type] = (stats.dropped_before_welcome[type] ?? 0) + 1; };

function send(n: SimNode, m: object): void {
  n.ws?.send(JSON.stringify(m));
}

function onWelcome(n: SimNode, m: { node_id: string; credential: string | null; heartbeat_interval_ms: number }): void {
  n.welcomed = true;
  n.up_at = Date.now();
  stats.welcomed_now++;
  if (!n.credential && m.credential) {
    n.credential = m.credential;
    n.node_id = m.node_id;
    send(n, { type: 'enroll.confirm', node_id: m.node_id, proof: enrollProof(m.credential, m.node_id) });
  }
  const ws = n.ws!;
  const beat = () => {
    send(n, { type: 'heartbeat', sent_at: Date.now(), clock_offset_ms: 3, rtt_ms: 1 });
    ws.ping();
  };
  const outboxStats = () => send(n, { type: 'outbox.stats', pending: n.unacked.size, dropped_total: 0, oldest_pending_at: null });
  ws.ping();
  n.timers.push(setInterval(beat, m.heartbeat_interval_ms));
  outboxStats();
  // The agent's housekeeping runs from its own start: a phase of its own.
  n.timers.push(setTimeout(() => n.timers.push(setInterval(outboxStats, STATS_INTERVAL_MS)), Math.random() * STATS_INTERVAL_MS));
  // The outbox sends what was not acked before the link went down.
  for (const r of n.unacked.values()) send(n, r.frame);
}

function onTaskRun(n: SimNode, task_id: string): void {
  const now = new Date().toISOString();
  const result_id = newId('result');
  const frame = {
    type: 'result.batch', batch_id: batch++, results: [{
      result_id, task_id, monitor_id: null, type: 'tcp', started_at: now, finished_at: now,
      success: true, error: null, error_class: null, output: { resolved_address: '198.18.0.10', port: 443, connect_ms: 0.3, state: 'open' },
    }],
  };
  n.unacked.set(result_id, { task_id, frame });
  send(n, { type: 'task.ack', task_id, accepted: true });
  send(n, frame);
}

function onMessage(n: SimNode, data: Buffer): void {
  if (isHeartbeat(data)) {
    if (!n.welcomed) dropped('heartbeat');
    return;
  }
  const m = JSON.parse(data.toString());
  if (m.type === 'welcome') return n.welcomed ? undefined : onWelcome(n, m);
  if (!n.welcomed) return dropped(m.type);
  if (m.type === 'enroll.confirmed') n.onConfirmed?.(m.node_id);
  else if (m.type === 'task.run') onTaskRun(n, m.task_id);
  else if (m.type === 'result.ack') for (const id of m.result_ids as string[]) n.unacked.delete(id);
  else if (m.type === 'assignments.full' || m.type === 'assignments.delta') {
    // node-agent's rule: a full set is taken; a delta applies only from the version held.
    if (m.type === 'assignments.full' || m.from_version === n.assignments_version) n.assignments_version = m.version;
    if (n.assignments_version !== null) send(n, { type: 'assignments.ack', version: n.assignments_version });
  }
}

function connect(n: SimNode): void {
  const base = bases[n.i % bases.length]!;
  const secret = n.credential ?? n.token;
  const ws = new WebSocket(base.replace(/^http/, 'ws') + NODE_WS_PATH, { ...WS_OPTS, headers: { authorization: `Bearer ${secret}` } });
  n.ws = ws;
  n.welcomed = false;
  const info = { protocol_version: PROTOCOL_VERSION, agent_version: 'bench', hostname: `sim-${n.i}`, capabilities: ['tcp'] };
  const no_welcome = setTimeout(() => { if (!n.welcomed && n.ws === ws) ws.terminate(); }, WELCOME_TIMEOUT_MS);
  n.timers.push(no_welcome);
  ws.on('open', () => {
    if (!n.credential) ws.send(JSON.stringify({ type: 'enroll', ...info }));
    else {
      const tasks_held = [...new Set([...n.unacked.values()].map((r) => r.task_id))];
      ws.send(JSON.stringify({ type: 'hello', node_id: n.node_id, ...info, outbox: { pending: n.unacked.size, dropped_total: 0 }, tasks_held }));
    }
  });
  // A link the herd command replaced (n.ws moved on) is forgotten.
  ws.on('message', (data: Buffer) => { if (n.ws === ws) onMessage(n, data); });
  let why = '';
  ws.on('error', (err: Error) => { why ||= err.message.replace(/\d+\.\d+\.\d+\.\d+:\d+/, 'addr'); });
  ws.on('close', (code: number) => {
    if (n.ws !== ws) return;
    for (const t of n.timers) clearTimeout(t);
    n.timers = [];
    const welcomed = n.welcomed;
    if (welcomed) stats.welcomed_now--;
    n.welcomed = false;
    n.ws = null;
    if (stopping) return;
    // client.ts run(): a stable link (or a restart close) resets the series; anything else is a failure.
    if (welcomed && (Date.now() - n.up_at >= STABLE_LINK_MS || code === 4003 || code === 1001 || code === 1012)) {
      n.failures = 0;
      n.down_at = Date.now();
    } else {
      n.failures++;
      if (!welcomed) {
        stats.failed_attempts++;
        failed(why || `close ${code}`);
      }
    }
    const retry_in_ms = reconnectDelay(n.failures, n.down_at === null ? null : Date.now() - n.down_at);
    n.timers.push(setTimeout(() => connect(n), retry_in_ms));
  });
}

const nodes: SimNode[] = tokens.map((token, i) => ({
  i, token, node_id: null, credential: null, ws: null, welcomed: false, up_at: 0, down_at: null, failures: 0,
  unacked: new Map(), assignments_version: null, timers: [], onConfirmed: null,
}));
const enrolled = (n: SimNode) => new Promise<string>((resolve) => {
  n.onConfirmed = (id) => { n.onConfirmed = null; resolve(id); };
  connect(n);
});
const ids: string[] = [];
for (let i = 0; i < nodes.length; i += 100) ids.push(...await Promise.all(nodes.slice(i, i + 100).map(enrolled)));
process.send!({ ready: ids });

process.on('message', (m: 'stop' | { cmd: 'stats' | 'herd'; at_once?: boolean }) => {
  if (m === 'stop') {
    stopping = true;
    for (const n of nodes) {
      for (const t of n.timers) clearTimeout(t);
      n.ws?.close();
    }
    setTimeout(() => process.exit(0), 200);
    return;
  }
  if (m.cmd === 'stats') {
    const cpu = process.cpuUsage();
    process.send!({ stats: { ...stats, cpu_ms: (cpu.user + cpu.system) / 1000 } });
  }
  if (m.cmd === 'herd') {
    // Every link cut at the same instant (a network blip); each node reconnects as the agent
    // does after an established link went down: after reconnectDelay(0, 0), 0.1-1 s jittered.
    // `at_once` (hub-bench.ts --herd-at-once) sends every hello at once instead.
    const now = Date.now();
    for (const n of nodes) {
      const ws = n.ws;
      if (!ws) continue;
      for (const t of n.timers) clearTimeout(t);
      n.timers = [];
      const stable = n.welcomed && now - n.up_at >= STABLE_LINK_MS;
      if (n.welcomed) stats.welcomed_now--;
      n.welcomed = false;
      n.ws = null; // its close event then finds another link (or none) and does nothing
      ws.terminate();
      if (stable) {
        n.failures = 0;
        n.down_at = now;
      } else n.failures++;
      const retry_in_ms = m.at_once ? 0 : reconnectDelay(n.failures, n.down_at === null ? null : now - n.down_at);
      n.timers.push(setTimeout(() => connect(n), retry_in_ms));
    }
    process.send!({ herd: true });
  }
});

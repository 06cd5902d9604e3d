import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import t, { type Test } from 'tap';
import WebSocket, { WebSocketServer } from 'ws';
import { newLinkState, type Conn } from './core.js';
import { livenessLimits, noteLife, startLiveness } from './liveness.js';
import { waitFor } from './test-harness.js';

// A short interval keeps the test quick: dead after 2 × 400 + 500 = 1,300 ms quiet, each link
// visited every 100 ms.
const INTERVAL_MS = 400;
const limits = livenessLimits(INTERVAL_MS);

/** Hold the event loop (a long collection, a starved CPU) for `ms`. */
function holdLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* the loop is held */ }
}

/**
 * A real WebSocket pair on loopback: the server side is the hub's Conn (its frames noted as life,
 * as hub.ts does), the client side is the node, which counts the heartbeats it receives.
 */
async function link(t: Test) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const node = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  await new Promise<void>((resolve, reject) => { node.once('open', () => resolve()); node.once('error', reject); });
  const ws = await accepted;
  const conn = {
    ws, socket: { cork() {}, uncork() {} }, node_id: 'node_test', before_welcome: null,
    live: newLinkState(performance.now(), INTERVAL_MS), last_frame_at: performance.now(),
  } as unknown as Conn;
  ws.on('message', () => noteLife(conn, performance.now(), 'frame'));
  let beats = 0;
  node.on('message', (data) => { if (JSON.parse(String(data)).type === 'heartbeat') beats++; });
  t.teardown(async () => {
    node.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  return { conn, node, beats: () => beats };
}

t.test('a silent link gets heartbeats, then is closed once quiet past dead_after_ms', async (t) => {
  const { conn, beats } = await link(t);
  const dead: Array<{ why: string; quiet_ms: number }> = [];
  const liveness = startLiveness({
    interval_ms: INTERVAL_MS, conns: () => [conn], onSuspect() {},
    onDead: (c, why) => void dead.push({ why, quiet_ms: performance.now() - c.last_frame_at }),
  });
  t.teardown(() => liveness.stop());
  await waitFor(async () => dead.length > 0);
  t.equal(dead[0]!.why, 'heartbeat_timeout');
  t.ok(dead[0]!.quiet_ms > limits.dead_after_ms, `quiet ${Math.round(dead[0]!.quiet_ms)} ms when closed`);
  t.ok(beats() >= 1, `${beats()} heartbeat(s) reached the node before`);
});

t.test('a held event loop closes no link whose frames wait unread; a silent one is closed after', async (t) => {
  const talking = await link(t);
  const silent = await link(t);
  // Each close with the link's last frame then: the talking link may be closed later (it says
  // nothing after its one frame), but only once that frame was read.
  const dead: Array<{ conn: Conn; last_frame_at: number }> = [];
  const liveness = startLiveness({
    interval_ms: INTERVAL_MS, conns: () => [talking.conn, silent.conn], onSuspect() {},
    onDead: (c) => void dead.push({ conn: c, last_frame_at: c.last_frame_at }),
  });
  t.teardown(() => liveness.stop());
  const held_at = performance.now();
  // Inside a timer callback, as a long task would be: the liveness timer, due meanwhile, runs
  // next in the same timers phase, before the loop reads the node's frame from its socket.
  await new Promise<void>((resolve) => setTimeout(() => {
    talking.node.send(JSON.stringify({ type: 'heartbeat', sent_at: Date.now() }));
    holdLoop(limits.dead_after_ms + 700);
    resolve();
  }, 0));
  await waitFor(async () => talking.conn.last_frame_at > held_at);
  await waitFor(async () => dead.some((d) => d.conn === silent.conn));
  t.notOk(dead.some((d) => d.conn === talking.conn && d.last_frame_at < held_at), 'the node whose frame waited in the socket is not closed for the stall');
  t.ok(silent.beats() >= 1, 'the silent node got a heartbeat first');
});

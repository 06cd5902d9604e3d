import { performance } from 'node:perf_hooks';
import type { Conn } from './core.js';

/**
 * Liveness limits derived from the heartbeat interval `interval_ms` (config, sent in `welcome`;
 * agents send a heartbeat every interval, so a healthy link is never quiet much longer):
 * - `dead_after_ms`: quiet this long (two heartbeats missed) → the link is dead. With the default
 *   4 s interval that is 8.5 s, and every link is looked at every `visit_ms`, so a silently cut
 *   link is found within 10 s;
 * - `task_ack_timeout_ms`: a `task.run` followed by nothing at all from the node for this long (an
 *   agent acks a task.run at once) makes the link suspect: taken out of service and pinged (the
 *   peer's ws stack answers a ping with a pong without application code: a pong proves the link,
 *   and puts the node back in service; only frames count as the application being alive);
 * - `suspect_probe_ms`: a suspect link that answers neither frame nor pong this long more is dead.
 */
export function livenessLimits(interval_ms: number) {
  return {
    dead_after_ms: 2 * interval_ms + 500,
    visit_ms: Math.min(1000, Math.max(100, Math.round(interval_ms / 4))),
    task_ack_timeout_ms: 3000,
    suspect_probe_ms: 3000,
  };
}
export type LivenessLimits = ReturnType<typeof livenessLimits>;

/** Work per slice is cut off after this much time and continued on the next event-loop turn. */
const SLICE_BUDGET_MS = 4;
/**
 * A slice of the links is looked at every SLICE_MS, so each is visited once per `visit_ms`. Small
 * slices keep the event loop's pauses short: with 10,000 links a 100 ms tick sent ~250 heartbeats
 * in one go (a few ms during which no request was served); a 25 ms tick sends ~60.
 */
const SLICE_MS = 25;
/**
 * The liveness timer came this much later than due: the event loop was held (a long collection,
 * a starved CPU, a paused VM). Node runs due timers before it reads sockets, so the first visits
 * after such a stall would see every link as quiet as the stall was long, though their frames
 * wait unread in the kernel: verdicts wait one visit period (`visit_ms`) while the loop reads them.
 */
const STALL_MS = 250;

export interface LivenessDeps {
  interval_ms: number;
  limits?: Partial<LivenessLimits>;
  /** The established links (node_id set) and links still in their handshake. */
  conns: () => Iterable<Conn>;
  /** The link is dead: close it at once. `why` names the rule. */
  onDead: (conn: Conn, why: 'heartbeat_timeout' | 'task_unanswered') => void;
  /** The link became suspect (a task.run went unanswered): take the node out of service. */
  onSuspect: (conn: Conn) => void;
}

/**
 * Watch every established link: send `heartbeat` frames to links that did not get one with
 * their own frames ({@link beatWithFrame}: by then half an interval late), close dead links and
 * report (and ping) suspect ones. The work is spread: every SLICE_MS one share of a snapshot of
 * the links is visited (each link once per `visit_ms`), heartbeats of a link come at its own phase
 * (core.ts newLinkState), and a slice stops after SLICE_BUDGET_MS and goes on after other work.
 * So the event loop is never blocked for long, whatever the node count (a tick that went through
 * all nodes at once blocked it 30-40 µs per node). No database work here: see lease.ts.
 * Times are performance.now() ms (a forward step of the wall clock would make every link look
 * quiet at once), and after the loop was held past STALL_MS no link is judged for one visit
 * period (its frames are read first).
 * @returns `stop()`
 */
export function startLiveness(deps: LivenessDeps): { stop(): void; limits: LivenessLimits } {
  const limits = { ...livenessLimits(deps.interval_ms), ...deps.limits };
  let round: Conn[] = [];
  let pos = 0;
  let round_started = 0;
  let stopped = false;
  let last_tick_at = performance.now();
  // No verdict before this (performance.now() ms): set after a stall (STALL_MS).
  let judge_from = 0;

  const visit = (conn: Conn, now: number, beat: Buffer): void => {
    if (!conn.node_id || conn.ws.readyState !== conn.ws.OPEN) return;
    const live = conn.live;
    const quiet_ms = now - conn.last_frame_at;
    const judging = now >= judge_from;
    if (judging && live.suspect_since && now - live.suspect_since > limits.suspect_probe_ms) return deps.onDead(conn, 'task_unanswered');
    if (judging && quiet_ms > limits.dead_after_ms) return deps.onDead(conn, 'heartbeat_timeout');
    if (judging && !live.suspect_since && live.task_sent_at && now - live.task_sent_at > limits.task_ack_timeout_ms) {
      live.suspect_since = now;
      conn.ws.ping();
      deps.onSuspect(conn);
    }
    // Not before `welcome` (core.ts Conn.before_welcome): an older agent would drop it. Half an
    // interval late: a link whose node sends its own heartbeats gets ours with them (beatWithFrame).
    if (now >= live.next_beat_at + deps.interval_ms / 2 && !conn.before_welcome) {
      live.next_beat_at = now + deps.interval_ms;
      conn.ws.send(beat, { binary: false });
    }
  };

  const work = (end: number): void => {
    if (stopped) return;
    const started = performance.now();
    const now = performance.now();
    // `sent_at` is wall-clock time: the node compares it with its own clock (clock-offset.ts).
    const beat = Buffer.from(JSON.stringify({ type: 'heartbeat', sent_at: Date.now() }));
    while (pos < end) {
      visit(round[pos++]!, now, beat);
      if ((pos & 63) === 0 && performance.now() - started > SLICE_BUDGET_MS) {
        if (pos < end) setImmediate(() => work(end));
        return;
      }
    }
  };

  const timer = setInterval(() => {
    const now = performance.now();
    if (now - last_tick_at > STALL_MS) judge_from = now + limits.visit_ms;
    last_tick_at = now;
    if (pos >= round.length && now - round_started >= limits.visit_ms) {
      round = [...deps.conns()];
      pos = 0;
      round_started = now;
    }
    work(Math.min(round.length, pos + Math.ceil((round.length * SLICE_MS) / limits.visit_ms)));
  }, SLICE_MS);
  timer.unref();

  return {
    limits,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/**
 * A frame arrived from the node: when this link's heartbeat is due within half an interval, send
 * it now, with the socket corked until the end of this tick. An agent sends its heartbeat and a
 * ws ping together every interval (node-agent connection/client.ts: the ping times the round
 * trip), and ws answers the ping with a pong in the same synchronous pass over the received
 * bytes: the heartbeat and the pong then leave in one write instead of two. At 10,000 nodes
 * the pongs alone, each its own write, were a fifth of the idle hub's CPU. The heartbeat then
 * follows the node's own cadence (due within half an interval: a node's heartbeat, every interval,
 * always finds it so); {@link startLiveness} sends it half an interval after it was due to a link
 * that sends nothing, so the node still hears from us at least every 1.5 intervals (an agent
 * gives up after HEARTBEAT_MISSES_DEAD = 3).
 * Nothing is sent before `welcome` (core.ts Conn.before_welcome). `now` is performance.now() ms.
 */
export function beatWithFrame(conn: Conn, now: number, interval_ms: number): void {
  const live = conn.live;
  if (!conn.node_id || conn.before_welcome || now < live.next_beat_at - interval_ms / 2 || conn.ws.readyState !== conn.ws.OPEN) return;
  live.next_beat_at = now + interval_ms;
  conn.socket.cork();
  conn.ws.send(`{"type":"heartbeat","sent_at":${Date.now()}}`);
  process.nextTick(() => conn.socket.uncork());
}

/**
 * Something arrived from the node: a frame (the node is alive) or a pong (the link carries
 * traffic both ways). Either puts a suspect link back in service (`recovered`). `now` is
 * performance.now() ms.
 */
export function noteLife(conn: Conn, now: number, kind: 'frame' | 'pong'): { recovered: boolean } {
  const live = conn.live;
  if (kind === 'frame') conn.last_frame_at = now;
  live.task_sent_at = 0;
  if (!live.suspect_since) return { recovered: false };
  live.suspect_since = 0;
  return { recovered: true };
}

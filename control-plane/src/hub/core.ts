import { performance } from 'node:perf_hooks';
import { CLOSE_CODES, type CloseName, type ServerMessage } from '@vantage/shared-protocol';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import type { GeoLocator } from '../nodes/geo/geoip.js';
import type { NodeHello, NodeLinkRow } from '../nodes/nodes.db.js';
import type { Logger } from '../log.js';
import type { AssignmentFeed, ResultSink } from '../contracts.js';
import type { NodeReports } from './node-reports.js';
import type { UpgradeAuth } from './upgrade.js';

/** One node WebSocket, from upgrade to close. `node_id` is set once enroll/hello succeeded. */
export interface Conn {
  ws: WebSocket;
  /**
   * The socket under `ws` (the upgraded request's): corked while a heartbeat is sent in answer
   * to the node's frames, so it leaves with ws's pong to the node's ping in one write
   * (liveness.ts beatWithFrame).
   */
  socket: Pick<Duplex, 'cork' | 'uncork'>;
  auth: Extract<UpgradeAuth, { ok: true }>;
  /** Socket peer address (IPv4-mapped IPv6 unwrapped), used for GeoIP at enrollment. */
  ip: string | null;
  node_id: string | null;
  /**
   * performance.now() of the last frame received. Liveness runs on the monotonic clock: a step
   * of the wall clock (NTP, a VM resumed) must not make every link look quiet or fresh.
   */
  last_frame_at: number;
  /** Liveness bookkeeping of hub/liveness.ts (all performance.now() ms, 0 = not set). */
  live: LinkState;
  /** Consecutive frames that failed validation (too many closes the link with protocol_error). */
  bad_frames: number;
  /** Frames of one connection are handled in arrival order. */
  chain: Promise<void>;
  hello_timer: NodeJS.Timeout | null;
  /**
   * Frames for the node held back until its `welcome` is sent (null once it was): an older agent
   * drops whatever arrives before `welcome`, and a hello registers the link before its online mark is
   * written, so a task.run routed to it meanwhile must wait, not be lost.
   */
  before_welcome: ServerMessage[] | null;
}

/** What the hub knows of a link's health between frames (hub/liveness.ts). */
export interface LinkState {
  /** When the next `heartbeat` frame is due. */
  next_beat_at: number;
  /** When the oldest `task.run` not yet followed by any frame from the node was sent (0 = none). */
  task_sent_at: number;
  /** Since when the link is suspect (a task.run went unanswered): out of service, pinged (0 = not suspect). */
  suspect_since: number;
}

/** A fresh LinkState for a link opened at `now`; heartbeats start at a random point of the first interval. */
export function newLinkState(now: number, interval_ms: number): LinkState {
  return { next_beat_at: now + Math.floor(Math.random() * interval_ms), task_sent_at: 0, suspect_since: 0 };
}

/** What handshake and frame handlers need from the hub (hub.ts builds it). */
export interface HubCore {
  sql: Sql;
  log: Logger;
  config: Config;
  results: ResultSink;
  /** Monitor assignments of the nodes held here (absent: none are sent). */
  assignments?: AssignmentFeed;
  geo: GeoLocator;
  instance_id: string;
  /** Make `conn` the holder of `node_id` here, closing an older local socket (4006) and asking other instances to. */
  register(conn: Conn, node_id: string): void;
  /** Drop `conn` from the registry without marking the node offline (handshake refused after register). */
  unregister(conn: Conn): void;
  /** Record the node online on this instance (nodes.db.ts markNodeOnline, batched: online-marks.ts); null when it may not be. */
  markOnline(hello: NodeHello): Promise<NodeLinkRow | null>;
  /** Write-behind of outbox.stats and clock offsets (node-reports.ts). */
  reports: NodeReports;
}

/** Consecutive invalid frames after which the link is closed with protocol_error. */
export const BAD_FRAMES_MAX = 100;

/** Send one server message if the socket is open. @returns whether it was handed to the socket */
export function sendFrame(conn: Conn, message: ServerMessage): boolean {
  if (conn.ws.readyState !== conn.ws.OPEN) return false;
  if (conn.before_welcome && message.type !== 'welcome' && message.type !== 'error') {
    conn.before_welcome.push(message);
    return true;
  }
  conn.ws.send(JSON.stringify(message));
  // An agent acks a task.run at once: nothing back from the node soon after is a sign (liveness.ts).
  if (message.type === 'task.run' && !conn.live.task_sent_at) conn.live.task_sent_at = performance.now();
  return true;
}

/**
 * Send `welcome`, then the frames held back while the handshake ran (Conn.before_welcome), in
 * the order they were sent.
 */
export function sendWelcome(conn: Conn, welcome: Extract<ServerMessage, { type: 'welcome' }>): void {
  const held = conn.before_welcome ?? [];
  conn.before_welcome = null;
  sendFrame(conn, welcome);
  for (const m of held) sendFrame(conn, m);
}

/** Send an `error` frame (the link stays up; shared-protocol errorMessageSchema). */
export function sendError(conn: Conn, code: string, message: string, ref: string | null = null): void {
  sendFrame(conn, { type: 'error', code, message: message.slice(0, 2000), ref });
}

/** Time a peer gets to answer our close frame before its socket is destroyed, ms (ws alone waits 30 s). */
export const CLOSE_GRACE_MS = 2_000;

/**
 * Close with one of shared-protocol CLOSE_CODES (code and reason); a peer that does not complete
 * the close handshake within CLOSE_GRACE_MS (gone, half-open, or not reading) is cut off.
 */
export function closeWith(conn: Conn, name: CloseName): void {
  const { code, reason } = CLOSE_CODES[name];
  if (conn.ws.readyState !== conn.ws.OPEN && conn.ws.readyState !== conn.ws.CONNECTING) return;
  conn.ws.close(code, reason);
  setTimeout(() => conn.ws.terminate(), CLOSE_GRACE_MS).unref();
}

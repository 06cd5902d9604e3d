import { CLOSE_CODES, type CloseName, type ServerMessage } from '@vantage/shared-protocol';
import type { WebSocket } from 'ws';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import type { GeoLocator } from '../geo/geoip.js';
import type { Logger } from '../log.js';
import type { ResultSink } from './contract.js';
import type { UpgradeAuth } from './upgrade.js';

/** One node WebSocket, from upgrade to close. `node_id` is set once enroll/hello succeeded. */
export interface Conn {
  ws: WebSocket;
  auth: Extract<UpgradeAuth, { ok: true }>;
  /** Socket peer address (IPv4-mapped IPv6 unwrapped), used for GeoIP at enrollment. */
  ip: string | null;
  node_id: string | null;
  /** Date.now() of the last frame received (any frame counts as liveness). */
  last_frame_at: number;
  /** Consecutive frames that failed validation (too many closes the link with protocol_error). */
  bad_frames: number;
  /** Frames of one connection are handled in arrival order. */
  chain: Promise<void>;
  hello_timer: NodeJS.Timeout | null;
}

/** What handshake and frame handlers need from the hub (hub.ts builds it). */
export interface HubCore {
  sql: Sql;
  log: Logger;
  config: Config;
  results: ResultSink;
  geo: GeoLocator;
  instance_id: string;
  /** Make `conn` the holder of `node_id` here, closing an older local socket (4006) and asking other instances to. */
  register(conn: Conn, node_id: string): void;
  /** Drop `conn` from the registry without marking the node offline (handshake refused after register). */
  unregister(conn: Conn): void;
}

/** Consecutive invalid frames after which the link is closed with protocol_error. */
export const BAD_FRAMES_MAX = 100;

/** Send one server message if the socket is open. @returns whether it was handed to the socket */
export function sendFrame(conn: Conn, message: ServerMessage): boolean {
  if (conn.ws.readyState !== conn.ws.OPEN) return false;
  conn.ws.send(JSON.stringify(message));
  return true;
}

/** Send an `error` frame (the link stays up; shared-protocol errorMessageSchema). */
export function sendError(conn: Conn, code: string, message: string, ref: string | null = null): void {
  sendFrame(conn, { type: 'error', code, message: message.slice(0, 2000), ref });
}

/** Close with one of shared-protocol CLOSE_CODES (code and reason). */
export function closeWith(conn: Conn, name: CloseName): void {
  const { code, reason } = CLOSE_CODES[name];
  if (conn.ws.readyState === conn.ws.OPEN || conn.ws.readyState === conn.ws.CONNECTING) conn.ws.close(code, reason);
}

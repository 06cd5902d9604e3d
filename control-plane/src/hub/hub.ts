import type { IncomingMessage, Server } from 'node:http';
import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import {
  CLOSE_CODES, HEARTBEAT_MISSES_DEAD, LIMITS, NODE_WS_PATH, newId,
  type ServerMessage, type TaskCancelMessage, type TaskRunMessage,
} from '@vantage/shared-protocol';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Config } from '../config/index.js';
import { markNodeOffline, nodeHolder, nodesToDrop, releaseInstanceNodes, sweepStaleNodes, touchNodes } from '../db/nodes.js';
import type { Sql } from '../db/sql.js';
import { createGeoLocator, type GeoLocator } from '../geo/geoip.js';
import { pickClientIp } from '../http/client-ip.js';
import type { Logger } from '../log.js';
import type { NodeHub, ResultSink } from './contract.js';
import { closeWith, sendFrame, type Conn, type HubCore } from './core.js';
import { handleFrame } from './frames.js';
import { handshake } from './handshake.js';
import { startRelay, type Relay } from './relay.js';
import { authenticateUpgrade, rejectUpgrade } from './upgrade.js';

/** Why the hub closes a node's socket on request of the API (owner disable/remove). */
export type DropReason = 'node_disabled' | 'node_removed';

/** The node hub: NodeHub (contract.ts) plus the pieces main.ts and the node routes use. */
export interface Hub extends NodeHub {
  /** This instance's name in `nodes.instance_id`. */
  readonly instance_id: string;
  /** Resolves once crash recovery ran and (with a database server) LISTEN is active; rejects if that failed. */
  ready(): Promise<void>;
  /** Handle WebSocket upgrades at NODE_WS_PATH on `server`. @returns a function that detaches */
  attach(server: Server): () => void;
  /** Close the node's socket wherever it is held (this instance, or others via NOTIFY). */
  disconnect(node_id: string, reason: DropReason): Promise<void>;
}

/** True when `hub` is the full Hub (the API's deps only promise NodeHub). */
export function isHub(hub: NodeHub): hub is Hub {
  return typeof (hub as Partial<Hub>).disconnect === 'function';
}

/**
 * Build the node hub (STYLE.md: construction apart from listening; `attach` starts serving).
 * - WebSocket at NODE_WS_PATH, authenticated before the upgrade (upgrade.ts), enroll/hello
 *   (handshake.ts), then frames (frames.ts).
 * - Heartbeats every `config.heartbeat_interval_ms`; a node silent for HEARTBEAT_MISSES_DEAD
 *   intervals is closed with heartbeat_timeout and marked offline.
 * - Node status in Postgres with the holding instance (`config.instance_id`, else hostname-pid);
 *   on start, nodes recorded against this instance go offline (crash recovery).
 * - With `config.database_url` set, cross-instance delivery by LISTEN/NOTIFY (relay.ts); in
 *   embedded mode (PGlite cannot deliver NOTIFY, NOTES.md) only local nodes are reachable.
 */
export function createHub(deps: { sql: Sql; log: Logger; config: Config; results: ResultSink; geo?: GeoLocator }): Hub {
  const { sql, config, results } = deps;
  const log = deps.log.child({ module: 'hub' });
  const instance_id = config.instance_id ?? `${hostname()}-${process.pid}`;
  const interval_ms = config.heartbeat_interval_ms;
  const registry = new Map<string, Conn>();
  const conns = new Set<Conn>();
  // The real ceiling: larger frames make ws close the link with 1009. Frames between
  // LIMITS.ws_message_max_bytes and this are refused with an `error` frame (parseNodeMessage).
  const wss = new WebSocketServer({ noServer: true, maxPayload: 2 * LIMITS.ws_message_max_bytes, perMessageDeflate: false });
  let relay: Relay | null = null;
  let closing = false;

  const deliverLocal = (node_id: string, message: ServerMessage): boolean => {
    const conn = registry.get(node_id);
    return conn ? sendFrame(conn, message) : false;
  };
  const dropLocal = (node_id: string, name: DropReason | 'replaced'): void => {
    const conn = registry.get(node_id);
    if (!conn) return;
    registry.delete(node_id);
    conn.node_id = null; // its close must not mark the node offline: someone else decided its state
    closeWith(conn, name);
  };

  const core: HubCore = {
    sql, log, config, results, instance_id,
    geo: deps.geo ?? createGeoLocator({ city_dir: config.geoip_city_dir, asn_dir: config.geoip_asn_dir, log }),
    register(conn, node_id) {
      const old = registry.get(node_id);
      conn.node_id = node_id;
      registry.set(node_id, conn);
      if (old && old !== conn) {
        old.node_id = null;
        closeWith(old, 'replaced');
      }
      relay?.drop(node_id, 'replaced', instance_id).catch((err: unknown) => log.warn({ err, node_id }, 'replace notify failed'));
    },
    unregister(conn) {
      if (conn.node_id && registry.get(conn.node_id) === conn) registry.delete(conn.node_id);
      conn.node_id = null;
    },
  };

  const started = (async () => {
    const released = await releaseInstanceNodes(sql, instance_id);
    if (released > 0) log.warn({ released, instance_id }, 'marked nodes of a previous run offline');
    if (config.database_url) {
      relay = await startRelay({ sql, log, channel: config.hub_notify_channel, instance_id, deliver: deliverLocal, dropLocal });
    }
  })();
  started.catch((err: unknown) => log.error({ err }, 'hub start failed'));

  const onConnection = (ws: WebSocket, conn: Conn): void => {
    conns.add(conn);
    conn.hello_timer = setTimeout(() => closeWith(conn, 'hello_timeout'), config.hello_timeout_ms);
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      conn.last_frame_at = Date.now();
      const raw = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      conn.chain = conn.chain.then(async () => {
        if (conn.ws.readyState !== conn.ws.OPEN) return;
        if (conn.node_id) return handleFrame(core, conn, raw);
        if (conn.hello_timer) {
          clearTimeout(conn.hello_timer);
          conn.hello_timer = null;
          return handshake(core, conn, raw);
        }
        // A frame that arrived while the handshake was refused: the socket is closing.
      }).catch((err: unknown) => {
        log.error({ err, node_id: conn.node_id }, 'node frame handling failed');
        if (!conn.node_id) closeWith(conn, 'protocol_error');
      });
    });
    ws.on('error', (err) => log.debug({ err, node_id: conn.node_id }, 'node socket error'));
    ws.on('close', (code) => {
      conns.delete(conn);
      if (conn.hello_timer) clearTimeout(conn.hello_timer);
      const node_id = conn.node_id;
      if (!node_id || registry.get(node_id) !== conn) return;
      registry.delete(node_id);
      log.info({ node_id, code }, 'node disconnected');
      if (!closing) markNodeOffline(sql, node_id, instance_id).catch((err: unknown) => log.error({ err, node_id }, 'mark offline failed'));
    });
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const path = new URL(req.url ?? '/', 'http://hub').pathname;
    if (path !== NODE_WS_PATH) return; // another upgrade handler's business
    socket.on('error', () => socket.destroy());
    const request_id = newId('request');
    (async () => {
      if (closing) return rejectUpgrade(socket, 503, 'UNAVAILABLE', 'server shutting down', request_id);
      await started;
      const auth = await authenticateUpgrade(sql, req);
      if (!auth.ok) return rejectUpgrade(socket, auth.status, auth.code, auth.message, request_id);
      // Behind a trusted proxy the node's address (and so its GeoIP location) is the forwarded one.
      const ip = pickClientIp(req.headers['x-forwarded-for'], req.socket.remoteAddress, config.trust_proxy);
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, {
        ws, auth, ip, node_id: null,
        last_frame_at: Date.now(), bad_frames: 0, chain: Promise.resolve(), hello_timer: null,
      }));
    })().catch((err: unknown) => {
      log.error({ err }, 'node upgrade failed');
      rejectUpgrade(socket, 503, 'UNAVAILABLE', 'node hub unavailable', request_id);
    });
  };

  const tick = setInterval(() => {
    const now = Date.now();
    for (const conn of conns) {
      if (!conn.node_id) continue;
      if (now - conn.last_frame_at > HEARTBEAT_MISSES_DEAD * interval_ms) {
        // The peer is gone: send the close frame for the record, then drop the socket at once
        // instead of waiting ws's 30 s close handshake, so the node is offline (and no longer
        // selected for probes) now.
        closeWith(conn, 'heartbeat_timeout');
        conn.ws.terminate();
      }
      else sendFrame(conn, { type: 'heartbeat', sent_at: now });
    }
    void housekeeping().catch((err: unknown) => log.warn({ err }, 'hub housekeeping failed'));
  }, interval_ms);
  tick.unref();

  /** Per tick: refresh last_seen_at, take offline nodes of vanished instances, drop disabled/removed nodes. */
  async function housekeeping(): Promise<void> {
    const held = [...registry.keys()];
    await touchNodes(sql, held, instance_id);
    await sweepStaleNodes(sql, (HEARTBEAT_MISSES_DEAD + 1) * interval_ms + 5000);
    for (const { id, removed } of await nodesToDrop(sql, held)) dropLocal(id, removed ? 'node_removed' : 'node_disabled');
  }

  async function route(node_id: string, message: ServerMessage): Promise<'sent' | 'offline'> {
    if (deliverLocal(node_id, message)) return 'sent';
    if (!relay) return 'offline';
    const holder = await nodeHolder(sql, node_id);
    if (!holder || holder.status !== 'online' || !holder.instance_id || holder.instance_id === instance_id) return 'offline';
    await relay.send(holder.instance_id, node_id, message);
    return 'sent';
  }

  return {
    instance_id,
    ready: () => started,
    sendTask: (node_id: string, message: TaskRunMessage) => route(node_id, message),
    cancelTask: (node_id: string, message: TaskCancelMessage) => route(node_id, message),
    localNodeIds: () => [...registry.keys()],
    attach(server) {
      server.on('upgrade', onUpgrade);
      return () => server.off('upgrade', onUpgrade);
    },
    async disconnect(node_id, reason) {
      dropLocal(node_id, reason);
      await relay?.drop(node_id, reason, instance_id);
    },
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(tick);
      for (const conn of conns) {
        if (conn.hello_timer) clearTimeout(conn.hello_timer);
        conn.ws.close(CLOSE_CODES.server_shutdown.code, CLOSE_CODES.server_shutdown.reason);
      }
      registry.clear();
      await started.catch(() => {});
      await relay?.stop().catch(() => {});
      await releaseInstanceNodes(sql, instance_id).catch((err: unknown) => log.warn({ err }, 'release on close failed'));
      wss.close();
    },
  };
}

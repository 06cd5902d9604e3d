import { performance } from 'node:perf_hooks';
import type { IncomingMessage, Server } from 'node:http';
import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import {
  CLOSE_CODES, LIMITS,
  type ServerMessage, type TaskCancelMessage, type TaskRunMessage,
} from '@vantage/shared-protocol';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Config } from '../config/index.js';
import { nodeHolder, refreshInstanceLease, releaseInstanceNodes } from '../nodes/instances.db.js';
import { setNodeReachable } from '../nodes/nodes.db.js';
import type { Sql } from '../db/sql.js';
import { sharedGeoLocator, type GeoLocator } from '../nodes/geo/geoip.js';
import type { Logger } from '../log.js';
import type { AssignmentFeed, DropReason, NodeDisconnector, NodeHub, ResultSink } from '../contracts.js';
import { closeWith, newLinkState, sendFrame, type Conn, type HubCore } from './core.js';
import { handleFrame } from './frames.js';
import { handshake } from './handshake.js';
import { leaseStaleMs, startLease } from './lease.js';
import { beatWithFrame, noteLife, startLiveness, type LivenessLimits } from './liveness.js';
import { nodeReports } from './node-reports.js';
import { offlineMarker, onlineMarker } from './online-marks.js';
import { startRelay, type Relay } from './relay.js';
import { createUpgradeHandler } from './upgrade.js';

/** The node hub: NodeHub and NodeDisconnector (contracts.ts) plus the pieces main.ts uses. */
export interface Hub extends NodeHub, NodeDisconnector {
  /** This instance's name in `nodes.instance_id`. */
  readonly instance_id: string;
  /** Resolves once crash recovery ran and (with a database server) LISTEN is active; rejects if that failed. */
  ready(): Promise<void>;
  /** Handle WebSocket upgrades at NODE_WS_PATH on `server`. @returns a function that detaches */
  attach(server: Server): () => void;
}

/**
 * Listen backlog for the server the hub is attached to (main.ts): after a restart every node
 * reconnects within a second or two, and Node's default (511) overflowed with 10,000 nodes (SYNs
 * dropped, handshakes retried). The kernel caps it at net.core.somaxconn (4096 by default since
 * Linux 5.4; raise that sysctl for larger fleets).
 */
export const LISTEN_BACKLOG = 16_384;

/** True when `hub` is the full Hub (the API's deps only promise NodeHub). */
export function isHub(hub: NodeHub): hub is Hub {
  return typeof (hub as Partial<Hub>).disconnect === 'function';
}

/**
 * Build the node hub (construction apart from listening; `attach` starts serving).
 * - WebSocket at NODE_WS_PATH, authenticated before the upgrade (upgrade.ts), enroll/hello
 *   (handshake.ts), then frames (frames.ts).
 * - Liveness in memory (liveness.ts): heartbeats every `config.heartbeat_interval_ms`, spread
 *   over time; a link quiet for two intervals, or whose task.run went unanswered and then its
 *   ping too, is closed and its node marked offline. An unanswered task.run takes the node out
 *   of service (offline, still held) until it answers.
 * - Node status in Postgres with the holding instance (`config.instance_id`, else hostname-pid),
 *   written only when it changes; the instance's lease row (lease.ts) is what is refreshed every
 *   interval. On start, nodes recorded against this instance go offline (crash recovery).
 * - With `config.database_url` set, cross-instance delivery by LISTEN/NOTIFY (relay.ts); in
 *   embedded mode (PGlite cannot deliver NOTIFY) only local nodes are reachable.
 */
export function createHub(deps: { sql: Sql; log: Logger; config: Config; results: ResultSink; assignments?: AssignmentFeed; geo?: GeoLocator; liveness?: Partial<LivenessLimits> }): Hub {
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
  const stale_ms = leaseStaleMs(interval_ms);

  /**
   * Per-node status writes of one link, in order and after the frames before them (a close
   * during the hello's UPDATE must not be overtaken by it), errors logged.
   */
  const writeAfter = (conn: Conn, node_id: string, what: string, write: () => Promise<unknown>): Promise<void> => {
    conn.chain = conn.chain.then(write).then(() => {}, (err: unknown) => log.error({ err, node_id }, `${what} failed`));
    return conn.chain;
  };
  /**
   * Offline marks of closed links not yet written, by node. A node that reconnects at once (every
   * node after a network blip) says hello on a new link while its old link's mark may still wait
   * in the pool's queue: written after the new online mark, it showed a connected node offline
   * (and out of every pick). A hello's online mark waits for it; the mark itself is skipped when
   * a newer link of the node is registered by then (that link's own mark decides).
   */
  const offlineWrites = new Map<string, Promise<void>>();
  // Batched with the other links closing at about the same time (online-marks.ts).
  const offlineMark = offlineMarker(sql, instance_id, (node_id) => registry.has(node_id), log);
  const markOffline = (conn: Conn, node_id: string): void => {
    const done = writeAfter(conn, node_id, 'mark offline', async () => {
      if (registry.has(node_id)) return;
      await offlineMark(node_id);
    });
    offlineWrites.set(node_id, done);
    void done.then(() => { if (offlineWrites.get(node_id) === done) offlineWrites.delete(node_id); });
  };
  const onlineMark = onlineMarker(sql, log);

  const deliverLocal = (node_id: string, message: ServerMessage): boolean => {
    const conn = registry.get(node_id);
    return conn ? sendFrame(conn, message) : false;
  };
  const dropLocal = (node_id: string, name: DropReason | 'replaced'): void => {
    const conn = registry.get(node_id);
    if (!conn) return;
    registry.delete(node_id);
    conn.node_id = null; // its close must not mark the node offline: someone else decided its state
    deps.assignments?.disconnected(node_id);
    closeWith(conn, name);
  };

  const core: HubCore = {
    sql, log, config, results, instance_id, assignments: deps.assignments,
    geo: deps.geo ?? sharedGeoLocator(config, log),
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
    async markOnline(hello) {
      await offlineWrites.get(hello.id);
      return onlineMark(hello);
    },
    reports: nodeReports(sql, log),
  };

  const started = (async () => {
    const released = await releaseInstanceNodes(sql, instance_id);
    if (released > 0) log.warn({ released, instance_id }, 'marked nodes of a previous run offline');
    await refreshInstanceLease(sql, instance_id);
    if (config.database_url) {
      relay = await startRelay({ sql, log, channel: config.hub_notify_channel, instance_id, deliver: deliverLocal, dropLocal });
    }
  })();
  started.catch((err: unknown) => log.error({ err }, 'hub start failed'));

  const onConnection = (ws: WebSocket, conn: Conn): void => {
    conns.add(conn);
    conn.hello_timer = setTimeout(() => closeWith(conn, 'hello_timeout'), config.hello_timeout_ms);
    const alive = (kind: 'frame' | 'pong') => {
      if (!noteLife(conn, performance.now(), kind).recovered || !conn.node_id) return;
      const node_id = conn.node_id;
      log.info({ node_id }, 'suspect node answered: back in service');
      writeAfter(conn, node_id, 'back in service', () => setNodeReachable(sql, node_id, instance_id, true));
    };
    ws.on('pong', () => alive('pong'));
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      alive('frame');
      beatWithFrame(conn, performance.now(), interval_ms);
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
      deps.assignments?.disconnected(node_id);
      log.info({ node_id, code }, 'node disconnected');
      if (!closing) markOffline(conn, node_id);
    });
  };

  const upgradeDeps = {
    sql, log, config,
    closing: () => closing,
    ready: () => started,
    accept(req: IncomingMessage, socket: Duplex, head: Buffer, auth: Conn['auth'], ip: string | null) {
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, {
        ws, socket, auth, ip, node_id: null, live: newLinkState(performance.now(), interval_ms),
        last_frame_at: performance.now(), bad_frames: 0, chain: Promise.resolve(), hello_timer: null, before_welcome: null,
      }));
    },
  };

  const liveness = startLiveness({
    interval_ms,
    limits: deps.liveness,
    conns: () => conns,
    onDead(conn, why) {
      log.warn({ node_id: conn.node_id, why }, 'node link dead');
      // Send the close frame for the record, then drop the socket at once instead of waiting for
      // ws's 30 s close handshake, so the node is offline (and no longer selected) now.
      closeWith(conn, 'heartbeat_timeout');
      conn.ws.terminate();
    },
    onSuspect(conn) {
      const node_id = conn.node_id!;
      log.warn({ node_id }, 'node did not answer a task.run: out of service until it answers');
      writeAfter(conn, node_id, 'mark suspect', () => setNodeReachable(sql, node_id, instance_id, false));
    },
  });
  // The lease loop starts once crash recovery wrote this instance's first lease.
  const lease = started.then(() => startLease({ sql, log, instance_id, interval_ms, held: () => registry, drop: dropLocal }));

  async function route(node_id: string, message: ServerMessage): Promise<'sent' | 'offline'> {
    if (deliverLocal(node_id, message)) return 'sent';
    if (!relay) return 'offline';
    const holder = await nodeHolder(sql, node_id, stale_ms);
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
      // Every request carrying Upgrade, whatever its path, is answered there (upgrade.ts).
      const onUpgrade = createUpgradeHandler(server, upgradeDeps);
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
      liveness.stop();
      await (await lease.catch(() => null))?.stop();
      for (const conn of conns) {
        if (conn.hello_timer) clearTimeout(conn.hello_timer);
        conn.ws.close(CLOSE_CODES.server_shutdown.code, CLOSE_CODES.server_shutdown.reason);
      }
      registry.clear();
      await started.catch(() => {});
      await relay?.stop().catch(() => {});
      await core.reports.outbox.close();
      await core.reports.clock.close();
      await releaseInstanceNodes(sql, instance_id).catch((err: unknown) => log.warn({ err }, 'release on close failed'));
      wss.close();
    },
  };
}

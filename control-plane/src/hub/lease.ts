import { reclaimNodes, refreshInstanceLease, releaseDeadInstances } from '../nodes/instances.db.js';
import { markNodeOffline, nodesToDrop } from '../nodes/nodes.db.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { Conn } from './core.js';

/** How long an instance's lease may go unrefreshed before others take its nodes offline, ms. */
export function leaseStaleMs(interval_ms: number): number {
  return 3 * interval_ms + 5000;
}

/** The disabled/removed backstop (a missed NOTIFY) runs at most this often, ms. */
const DROP_CHECK_MS = 10_000;
/** Node ids per backstop query. */
const DROP_CHUNK = 1000;

export interface LeaseDeps {
  sql: Sql;
  log: Logger;
  instance_id: string;
  interval_ms: number;
  /** The links this instance holds, by node id. */
  held: () => Map<string, Conn>;
  /** Close a held node that was disabled or removed meanwhile. */
  drop: (node_id: string, reason: 'node_disabled' | 'node_removed') => void;
}

/**
 * The database side of node liveness, once per heartbeat interval and never one write per node
 * (a held node's row is written only when its status changes: hello, close, suspect):
 * 1. refresh this instance's lease row (hub_instances). When the row had to be created again,
 *    another instance found the lease stale (this one was cut from the database or stalled) and
 *    took its nodes offline: the nodes still held here are put back online, and any that closed
 *    while that statement ran are taken offline again, so no node is left online without a socket;
 * 2. take offline the nodes of instances whose lease went stale (one statement, any instance);
 * 3. every DROP_CHECK_MS, close held nodes that were disabled or removed (backstop for a missed
 *    NOTIFY), in chunks so no query carries all ids at once.
 * @returns `stop()`, which waits for a round in progress
 */
export function startLease(deps: LeaseDeps): { stop(): Promise<void> } {
  const { sql, log, instance_id } = deps;
  const stale_ms = leaseStaleMs(deps.interval_ms);
  let running: Promise<void> | null = null;
  let last_drop_check = Date.now();

  async function reclaim(): Promise<void> {
    const snapshot = new Map([...deps.held()].filter(([, conn]) => !conn.live.suspect_since));
    const reclaimed = await reclaimNodes(sql, [...snapshot.keys()], instance_id);
    log.warn({ reclaimed: reclaimed.length }, 'lease was lost (nodes released by another instance): held nodes put back online');
    for (const id of reclaimed) {
      if (!deps.held().has(id)) await markNodeOffline(sql, id, instance_id);
    }
  }

  async function round(): Promise<void> {
    if (await refreshInstanceLease(sql, instance_id)) await reclaim();
    const released = await releaseDeadInstances(sql, stale_ms);
    if (released.length > 0) log.warn({ released: released.length }, 'nodes of instances with a stale lease taken offline');
    if (Date.now() - last_drop_check < DROP_CHECK_MS) return;
    last_drop_check = Date.now();
    const ids = [...deps.held().keys()];
    for (let i = 0; i < ids.length; i += DROP_CHUNK) {
      for (const { id, removed } of await nodesToDrop(sql, ids.slice(i, i + DROP_CHUNK))) deps.drop(id, removed ? 'node_removed' : 'node_disabled');
    }
  }

  const timer = setInterval(() => {
    if (running) return;
    running = round()
      .catch((err: unknown) => log.warn({ err }, 'hub lease round failed'))
      .finally(() => { running = null; });
  }, deps.interval_ms);
  timer.unref();

  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

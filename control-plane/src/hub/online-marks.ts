import { batchCalls } from '../db/batch.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { markNodeOffline, markNodeOnline, markNodesOffline, markNodesOnline, type NodeHello, type NodeLinkRow } from '../nodes/nodes.db.js';

/** Hellos whose online mark one statement writes at most (and closed links' offline marks). */
const ONLINE_BATCH_MAX = 500;

/**
 * The hello's online mark (nodes.db.ts markNodeOnline), written for every node saying hello at
 * about the same time in one statement and one commit ({@link batchCalls}): after a control-plane
 * restart every node comes back within seconds, and one UPDATE and WAL flush each made the
 * database the limit on how fast they could. A batch that fails as a whole (a deadlock with
 * another statement updating many nodes, say) is written again one node at a time, so a node's
 * hello fails only for a reason of its own.
 * @returns per call: the node's row, or null when it is disabled, banned or removed
 */
export function onlineMarker(sql: Sql, log: Pick<Logger, 'warn'>): (hello: NodeHello) => Promise<NodeLinkRow | null> {
  const batched = batchCalls<NodeHello, NodeLinkRow | null>(async (hellos) => {
    const rows = await markNodesOnline(sql, hellos);
    return hellos.map((h) => rows.get(h.id) ?? null);
  }, { max: ONLINE_BATCH_MAX });
  let logged: unknown = null;
  return (hello) => batched(hello).catch((err: unknown) => {
    // Every caller of a failed batch holds the same error: logged once.
    if (err !== logged) log.warn({ err }, 'online mark of a burst of hellos failed; writing them one at a time');
    logged = err;
    return markNodeOnline(sql, hello);
  });
}

/**
 * The offline mark of a closed link (nodes.db.ts markNodeOffline), written for every link of this
 * instance that closed at about the same time in one asynchronously committed statement
 * ({@link batchCalls}, nodes.db.ts markNodesOffline): when a network blip cuts every node, 10,000
 * single-row UPDATEs each waiting for its WAL flush kept the database busy for seconds, and each
 * node's new hello waits for its old link's mark (hub.ts). A node `held(id)` again when its
 * batch is written (its new link registered meanwhile) is skipped: that link's own mark decides.
 * A batch that fails as a whole is written again one node at a time.
 * @returns per call: resolves once written; rejects only when the node's own write failed
 */
export function offlineMarker(sql: Sql, instance_id: string, held: (node_id: string) => boolean, log: Pick<Logger, 'warn'>): (node_id: string) => Promise<void> {
  const batched = batchCalls<string, void>(async (ids) => {
    await markNodesOffline(sql, ids.filter((id) => !held(id)), instance_id);
    return ids.map(() => undefined);
  }, { max: ONLINE_BATCH_MAX });
  let logged: unknown = null;
  return (node_id) => batched(node_id).catch(async (err: unknown) => {
    if (err !== logged) log.warn({ err }, 'offline mark of a burst of closed links failed; writing them one at a time');
    logged = err;
    if (!held(node_id)) await markNodeOffline(sql, node_id, instance_id);
  });
}

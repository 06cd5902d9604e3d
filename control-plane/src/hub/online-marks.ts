import { batchCalls } from '../db/batch.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { markNodeOnline, markNodesOnline, type NodeHello, type NodeRow } from '../nodes/nodes.db.js';

/** Hellos whose online mark one statement writes at most. */
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
export function onlineMarker(sql: Sql, log: Pick<Logger, 'warn'>): (hello: NodeHello) => Promise<NodeRow | null> {
  const batched = batchCalls<NodeHello, NodeRow | null>(async (hellos) => {
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

import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Sql } from '../db/sql.js';
import type { AppEnv } from '../env.js';
import type { OwnerScope } from '../teams/authorize.js';
import { eventSeq, scopedEventsAfter, streamHead, type AgentObsEventRow } from './events.db.js';
import type { AgentObsStreamHub } from './stream-hub.js';
import { toAgentObsEvent } from './view.js';

/** Frame name of every event. */
export const STREAM_EVENT = 'agent_obs.event';
const CATCH_UP_BATCH = 500;
const KEEPALIVE_MS = 15_000;
/** A client this far behind is closed (it reconnects with Last-Event-ID and loses nothing). */
const QUEUE_MAX = 10_000;

/** Whether `row` is in `scope` (the rule of owner-scope.db.ts ownedBy, in memory). */
function inScope(scope: OwnerScope, row: AgentObsEventRow): boolean {
  return row.team_id === null ? scope.user_id !== null && row.user_id === scope.user_id : scope.team_ids.includes(row.team_id);
}

/**
 * The event stream of one client (text/event-stream; docs/api/agent-obs.md "Event stream"): every
 * event in `scope` (and of `monitor_id` when given) committed after the one `Last-Event-ID` names
 * (none, or an id we do not know: after the newest committed now), as `event: agent_obs.event`,
 * `id: <aoe_ id>`, `data: <AgentObsEvent>`, in commit order, each once. The client first joins
 * the hub (live events are queued), then reads what it missed from the database, then sends
 * the queue; everything is de-duplicated by seq, so nothing is lost or repeated across the seam.
 */
export async function streamAgentObsEvents(c: Context<AppEnv>, deps: { sql: Sql; hub: AgentObsStreamHub }, scope: OwnerScope, monitor_id: string | null): Promise<Response> {
  const last_id = c.req.header('last-event-id')?.trim();
  // Where the client stands and its hub subscription are settled before the response's headers
  // go out: an event committed after the client saw them is never missed.
  let sent = (last_id ? await eventSeq(deps.sql, last_id) : null) ?? await streamHead(deps.sql);
  let queue: AgentObsEventRow[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  const unsubscribe = await deps.hub.subscribe({
    wants: (row) => inScope(scope, row) && (monitor_id === null || row.monitor_id === monitor_id),
    deliver: (rows) => {
      queue.push(...rows);
      if (queue.length > QUEUE_MAX) closed = true;
      wake?.();
    },
  });
  return streamSSE(c, async (stream) => {
    const done = new Promise<void>((resolve) => stream.onAbort(() => {
      closed = true;
      wake?.();
      resolve();
    }));
    const send = async (rows: AgentObsEventRow[]) => {
      for (const row of rows) {
        if (closed) return;
        if (BigInt(row.seq) <= BigInt(sent)) continue;
        await stream.writeSSE({ event: STREAM_EVENT, id: row.id, data: JSON.stringify(toAgentObsEvent(row)) });
        sent = row.seq;
      }
    };
    try {
      for (;;) {
        const rows = await scopedEventsAfter(deps.sql, scope, monitor_id, sent, CATCH_UP_BATCH);
        await send(rows);
        if (rows.length < CATCH_UP_BATCH || closed) break;
      }
      while (!closed) {
        if (queue.length === 0) {
          await Promise.race([done, new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, KEEPALIVE_MS).unref();
          })]);
          wake = null;
          if (queue.length === 0 && !closed) await stream.write(': keepalive\n\n');
          continue;
        }
        const rows = queue;
        queue = [];
        await send(rows);
      }
    } finally {
      unsubscribe();
    }
  }, async () => {
    unsubscribe();
  });
}

import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Sql } from '../db/sql.js';
import { loadGroup, resultSeq, resultsAfter } from '../db/tasks.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { aggregateGroup, buildNodeResult } from './aggregate.js';
import { waitForGroup } from './signals.js';

/** Stream timings (ms): database poll period, keep-alive comment period, wait after the last deadline. */
export interface StreamTimings { poll_ms: number; keepalive_ms: number; overtime_ms: number }
const DEFAULTS: StreamTimings = { poll_ms: 200, keepalive_ms: 15_000, overtime_ms: 30_000 };

/**
 * Server-sent events for a probe group (text/event-stream; like spec 6.5's agent-obs stream):
 * one `event: node_result` frame per stored node result as it arrives (`id:` = the result id,
 * `data:` = `{ task_id, ...node result }`), then one `event: done` frame whose data is the final
 * polling answer, and the stream ends. A client that reconnects with `Last-Event-ID: <result id>`
 * gets only results stored after that one. A result stored on this instance wakes the stream at
 * once (tasks/signals.ts); others are found by polling the database every `poll_ms` (works across
 * instances without extra wiring; ids already sent are remembered, so
 * results committed out of seq order are not missed); `: keepalive` comments keep proxies
 * from closing an idle stream. If the group has not ended `overtime_ms` after its last deadline
 * (no sweeper running), `done` is sent with the group as it stands.
 * @throws ApiError PROBE_JOB_NOT_FOUND (404) before the stream starts when the id is unknown
 */
export async function streamTaskEvents(c: Context<AppEnv>, sql: Sql, task_id: string, timings: Partial<StreamTimings> = {}): Promise<Response> {
  const t = { ...DEFAULTS, ...timings };
  const group = await loadGroup(sql, task_id);
  if (!group || group.tasks.length === 0) throw new ApiError('PROBE_JOB_NOT_FOUND', `no probe task ${task_id}`);
  const { tasks, nodes } = group;
  const group_id = tasks[0]!.group_id;
  const taskById = new Map(tasks.map((task) => [task.id, task]));
  const facts = new Map(nodes.map((n) => [n.node_id, n]));
  const last_event_id = c.req.header('last-event-id');
  // Resume: results up to the client's last one were delivered on the earlier connection.
  const resume_seq = last_event_id ? (await resultSeq(sql, group_id, last_event_id.trim())) ?? 0 : 0;
  const give_up_at = Math.max(...tasks.map((task) => task.deadline_at.getTime())) + t.overtime_ms;

  return streamSSE(c, async (stream) => {
    let aborted = false;
    stream.onAbort(() => { aborted = true; });
    // Sent ids, not a seq high-water mark: concurrent ingests can commit seqs out of order.
    const sent = new Set<string>();
    let last_write = Date.now();
    while (!aborted) {
      const rows = await resultsAfter(sql, group_id, 0);
      for (const row of rows) {
        if (sent.has(row.result_id) || Number(row.seq) <= resume_seq) continue;
        sent.add(row.result_id);
        const task = taskById.get(row.task_id)!;
        const node = buildNodeResult(task.probe_type, task, row, facts.get(row.node_id));
        await stream.writeSSE({ event: 'node_result', id: row.result_id, data: JSON.stringify({ task_id: row.task_id, ...node }) });
        last_write = Date.now();
      }
      const ended = rows.length >= tasks.length || Date.now() > give_up_at;
      if (ended) {
        const fresh = await loadGroup(sql, task_id);
        const final = aggregateGroup(task_id, fresh!.tasks, fresh!.results, fresh!.nodes);
        await stream.writeSSE({ event: 'done', data: JSON.stringify(final) });
        return;
      }
      if (Date.now() - last_write >= t.keepalive_ms) {
        await stream.write(': keepalive\n\n');
        last_write = Date.now();
      }
      await waitForGroup(group_id, t.poll_ms);
    }
  });
}

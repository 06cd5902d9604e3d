import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { Sql } from '../db/sql.js';
import { groupResults, readGroup, type GroupRead, type GroupResult } from './groups.db.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { aggregateGroup, buildNodeResult, isReplaceable } from './aggregate.js';
import { waitForGroup } from './signals.js';

/**
 * Stream timings (ms): database poll period, keep-alive comment period, wait after the last
 * deadline, and how long the stream stays open after `done` for late node results.
 */
export interface StreamTimings { poll_ms: number; keepalive_ms: number; overtime_ms: number; late_ms: number }
const DEFAULTS: StreamTimings = { poll_ms: 200, keepalive_ms: 15_000, overtime_ms: 30_000, late_ms: 60_000 };

/**
 * Server-sent events for a probe group (text/event-stream; like 's agent-obs stream):
 * one `event: node_result` frame per stored node result as it arrives (`id:` = the result id,
 * `data:` = `{ task_id, ...node result }`), then one `event: done` frame whose data is the polling
 * answer. A client that reconnects with `Last-Event-ID: <result id>` gets only results stored
 * after that one. A result stored on this instance wakes the stream at once (probes/signals.ts);
 * others are found by polling the database every `poll_ms` (ids already sent are remembered, so
 * results committed out of seq order are not missed); `: keepalive` comments keep proxies from
 * closing an idle stream. If the group has not ended `overtime_ms` after its last deadline (no
 * sweeper running), `done` is sent with the group as it stands.
 *
 * After `done`, while the group holds a failure the control plane recorded in place of a node's
 * result (aggregate.ts isReplaceable), the stream stays open up to `late_ms`: a late result from
 * that node replaces the failure (nothing measured is lost) and is sent as `event: node_result`
 * for the same `task_id`, followed by `event: update` with the polling answer as it now stands
 * (`updated_at` moved). The stream ends once no replaceable result is left or `late_ms` passed.
 * @throws ApiError PROBE_JOB_NOT_FOUND (404) before the stream starts when the id is unknown
 */
export async function streamTaskEvents(c: Context<AppEnv>, sql: Sql, task_id: string, timings: Partial<StreamTimings> = {}): Promise<Response> {
  const t = { ...DEFAULTS, ...timings };
  const group = await readGroup(sql, task_id);
  if (!group) throw new ApiError('PROBE_JOB_NOT_FOUND', `no probe task ${task_id}`);
  const { tasks, group_id } = group;
  const taskById = new Map(tasks.map((task) => [task.id, task]));
  const facts = new Map(group.nodes.map((n) => [n.node_id, n]));
  const last_event_id = c.req.header('last-event-id')?.trim();
  // Resume: results up to the client's last one were delivered on the earlier connection.
  const resume_seq = (last_event_id && group.results.find((r) => r.result_id === last_event_id)?.seq) || 0;
  const give_up_at = Math.max(...tasks.map((task) => task.deadline_at.getTime())) + t.overtime_ms;
  const answer = (g: GroupRead) => JSON.stringify(aggregateGroup(task_id, g.tasks, g.results, g.nodes));

  return streamSSE(c, async (stream) => {
    let aborted = false;
    stream.onAbort(() => { aborted = true; });
    // Sent ids, not a seq high-water mark: concurrent ingests can commit seqs out of order.
    const sent = new Set<string>();
    let last_write = Date.now();
    const write = async (event: string, data: string, id?: string) => {
      await stream.writeSSE({ event, data, ...(id ? { id } : {}) });
      last_write = Date.now();
    };
    /** Send the results not sent yet; @returns how many were sent */
    const sendNew = async (rows: GroupResult[]): Promise<number> => {
      let n = 0;
      for (const row of rows) {
        if (sent.has(row.result_id) || row.seq <= resume_seq) continue;
        sent.add(row.result_id);
        const task = taskById.get(row.task_id)!;
        await write('node_result', JSON.stringify({ task_id: row.task_id, ...buildNodeResult(task.probe_type, task, row, facts.get(row.node_id)) }), row.result_id);
        n++;
      }
      return n;
    };
    const idle = async (s: SSEStreamingApi) => {
      if (Date.now() - last_write >= t.keepalive_ms) {
        await s.write(': keepalive\n\n');
        last_write = Date.now();
      }
      await waitForGroup(group_id, t.poll_ms);
    };

    while (!aborted) {
      const rows = await groupResults(sql, group_id);
      await sendNew(rows);
      if (rows.length >= tasks.length || Date.now() > give_up_at) break;
      await idle(stream);
    }
    if (aborted) return;
    let now = (await readGroup(sql, task_id))!;
    for (const r of now.results) sent.add(r.result_id);
    await write('done', answer(now));

    const late_until = Date.now() + t.late_ms;
    while (!aborted && now.results.some(isReplaceable) && Date.now() < late_until) {
      await idle(stream);
      if (aborted) return;
      const rows = await groupResults(sql, group_id);
      if (!rows.some((r) => !sent.has(r.result_id))) continue;
      now = (await readGroup(sql, task_id))!;
      if (await sendNew(now.results)) await write('update', answer(now));
    }
  });
}
